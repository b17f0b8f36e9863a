"""The functions an emulator runs: those of the stacks loaded with ``run_functions``, by
ARN, with the warm modules of each."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any

from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.modules import WarmModules
from pytest_schedemu.functions.runner import Invocation, run_handler

#: ``arn:aws:lambda:region:account:function:name`` has seven parts; a version or alias
#: is an eighth.
_UNQUALIFIED_PARTS = 7


def unqualified(arn: str) -> str:
    """The function's ARN without a version or alias (``:$LATEST``, ``:1``, ``:live``)."""
    parts = arn.split(":")
    return ":".join(parts[:_UNQUALIFIED_PARTS]) if len(parts) > _UNQUALIFIED_PARTS else arn


class FunctionCatalogue:
    """The definitions of the functions that run, and their warm modules; one lock.

    ``served`` is what a call runs inside so that the handler's own Scheduler and
    EventBridge clients reach the emulator that runs it (its interception's route)."""

    def __init__(self, served: Callable[[], AbstractContextManager[None]] = nullcontext) -> None:
        self._served = served
        self._lock = threading.Lock()
        self._functions: dict[str, FunctionDefinition] = {}
        #: Each function's modules between its invocations, as a warm Lambda container
        #: keeps them; a reset starts every function cold.
        self.warm = WarmModules()

    def add(self, definitions: Iterable[FunctionDefinition]) -> None:
        with self._lock:
            for definition in definitions:
                self._functions[definition.arn] = definition

    def get(self, arn: str) -> FunctionDefinition | None:
        """The function ``arn`` invokes, qualified or not; None when it is not one that
        runs."""
        with self._lock:
            return self._functions.get(unqualified(arn))

    def run(
        self,
        definition: FunctionDefinition,
        event: Any,
        *,
        now: datetime,
        request_id: str,
        region: str,
        account: str,
        clock: Callable[[], datetime] | None = None,
        wall_timeout: float | None = None,
    ) -> Invocation:
        """``run_handler`` for this emulator: the function's warm modules reused, its
        clients served by the emulator."""
        with self._served():
            return run_handler(
                definition,
                event,
                now=now,
                request_id=request_id,
                region=region,
                account=account,
                clock=clock,
                wall_timeout=wall_timeout,
                warm=self.warm,
            )

    def all(self) -> list[FunctionDefinition]:
        with self._lock:
            return list(self._functions.values())

    def clear(self) -> None:
        with self._lock:
            self._functions.clear()
        self.warm.clear()
