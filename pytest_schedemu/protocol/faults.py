"""What went wrong on the server's side: the unexpected exceptions it met, kept for the test,
and the errors a test asked the API to answer instead of doing an operation."""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_schedemu.errors import API_ERRORS, ApiError

logger = logging.getLogger("pytest_schedemu.api")


@dataclass(frozen=True)
class ServerError:
    """An unexpected exception inside the server, answered as a 500 and kept for the test."""

    method: str
    path: str
    operation: str | None
    exception: BaseException
    traceback: str

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.operation or 'no operation'}):\n{self.traceback}"


class ServerErrors:
    """The unexpected exceptions the server met, oldest first, for the test to see."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: list[ServerError] = []

    def record(self, error: ServerError) -> None:
        with self._lock:
            self._errors.append(error)

    def crashed(
        self, environ: Mapping[str, Any], operation: str | None, exception: BaseException
    ) -> None:
        """Keep and log the exception a request met, with the traceback being handled."""
        recorded = ServerError(
            environ.get("REQUEST_METHOD", ""),
            environ.get("PATH_INFO", ""),
            operation,
            exception,
            traceback.format_exc(),
        )
        self.record(recorded)
        logger.error("internal error while handling a request: %s", recorded)

    def list(self) -> list[ServerError]:
        with self._lock:
            return list(self._errors)

    def clear(self) -> None:
        with self._lock:
            self._errors.clear()


@dataclass
class _Injection:
    operation: str | None
    error: type[ApiError]
    message: str
    remaining: int | None


class ApiErrorInjections:
    """Errors a test asked the API to answer instead of doing the operation."""

    def __init__(self, operations: Iterable[str]) -> None:
        self._lock = threading.Lock()
        self._operations = frozenset(operations)
        self._injections: list[_Injection] = []

    def add(self, operation: str | None, code: str, message: str, times: int | None) -> None:
        error = API_ERRORS.get(code)
        if error is None:
            raise ValueError(f"Unsupported error code {code!r}: use one of {sorted(API_ERRORS)}")
        if operation is not None and operation not in self._operations:
            raise ValueError(
                f"Unsupported operation {operation!r}: use one of {sorted(self._operations)}"
            )
        if times is not None and (
            not isinstance(times, int) or isinstance(times, bool) or times < 1
        ):
            raise ValueError(f"Unsupported times {times!r}: expected None or a count >= 1")
        with self._lock:
            self._injections.append(_Injection(operation, error, message, times))

    def clear(self) -> None:
        with self._lock:
            self._injections.clear()

    def raise_for(self, operation: str) -> None:
        """Raise the first injected error that applies to ``operation``, using it up."""
        # Read without the lock first: the list is only ever replaced or emptied under it,
        # and most calls of most tests have no injection at all.
        if not self._injections:
            return
        with self._lock:
            for injection in self._injections:
                if injection.operation in (None, operation):
                    if injection.remaining is not None:
                        injection.remaining -= 1
                        if injection.remaining <= 0:
                            self._injections.remove(injection)
                    raise injection.error(injection.message)
