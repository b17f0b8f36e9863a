"""What tests ask of targets: injected failures, handlers, missing targets, denied roles.

``TargetControls`` owns every rule behind its own lock; the dispatcher consults it on each
attempt (from the clock's thread, or from delivery threads in real time) while tests and
the control API change it from theirs. A rule is never changed in place: a change builds a
new rule and swaps it in under the lock, so a reader never sees half of one.
A handler's call is handed back (``handlers.HandlerCall``), for the dispatcher to make in the
thread it chooses; ``handlers.run_handler`` says what its attempt comes to.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from pytest_schedemu.delivery.backends import Outcome
from pytest_schedemu.delivery.handlers import Handler, HandlerCall, HandlerErrors


@dataclass(frozen=True)
class _Rule:
    failures_left: int | None = 0  # None: every attempt fails
    failing: bool = False
    error_code: str = "InternalServerError"
    message: str = "Injected failure"
    retryable: bool = True
    handler: Handler | None = None
    missing: bool = False


class TargetControls:
    """What tests asked of targets, keyed by target ARN or by ``service:action``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: dict[str, _Rule] = {}
        self._denied_roles: frozenset[str] = frozenset()
        # Rule keys and denied roles that some attempt (or dead-letter send) matched.
        self._consulted: set[str] = set()
        #: The bugs of handlers that no test could see raised; owned behind its own lock.
        self.handler_errors = HandlerErrors()

    def clear(self) -> None:
        """Forget every rule, and the handler bugs kept."""
        with self._lock:
            self._rules = {}
            self._denied_roles = frozenset()
            self._consulted = set()
        self.handler_errors.clear()

    def unused(self) -> list[str]:
        """The target keys and denied roles that no attempt has matched, in order set."""
        with self._lock:
            keys = [*self._rules, *sorted(self._denied_roles)]
            return [key for key in keys if key not in self._consulted]

    def change(self, key: str, **changes: Any) -> None:
        """Set fields of ``key``'s rule (creating it), all at once."""
        with self._lock:
            self._rules[key] = dataclasses.replace(self._rules.get(key, _Rule()), **changes)

    def drop(self, key: str) -> None:
        with self._lock:
            self._rules.pop(key, None)

    def deny_role(self, role_arn: str) -> None:
        with self._lock:
            self._denied_roles = self._denied_roles | {role_arn}

    def allow_role(self, role_arn: str) -> None:
        with self._lock:
            self._denied_roles = self._denied_roles - {role_arn}

    @property
    def idle(self) -> bool:
        # Read without the lock on the hot path: both are replaced, never mutated, so a
        # racing reader sees the old or the new value, and either is a valid answer.
        return not self._rules and not self._denied_roles

    def role_denied(self, role_arn: str) -> bool:
        if role_arn not in self._denied_roles:
            return False
        with self._lock:
            self._consulted.add(role_arn)
        return True

    def is_missing(self, key: str) -> bool:
        """Whether a test declared ``key`` missing: all a dead-letter send looks at, since
        failure rules and handlers steer attempts only."""
        with self._lock:
            rule = self._rules.get(key)
            if rule is None:
                return False
            self._consulted.add(key)
            return rule.missing

    def steer(
        self, keys: Sequence[str], missing_error: Outcome | None, attempt: Callable[[], Any]
    ) -> Outcome | HandlerCall | None:
        """The outcome a test imposes on an attempt at one of ``keys``, its handler's call
        still to make, or None.

        ``attempt`` builds the record a handler receives; it is only called for handlers.
        """
        with self._lock:
            matched = [k for k in keys if k in self._rules]
            if not matched:
                return None
            self._consulted.update(matched)
            key = matched[0]
            rule = self._rules[key]
            if rule.missing and missing_error is not None:
                return missing_error
            if rule.failing and (rule.failures_left is None or rule.failures_left > 0):
                if rule.failures_left is not None:
                    left = rule.failures_left - 1
                    self._rules[key] = dataclasses.replace(
                        rule, failures_left=left, failing=left > 0
                    )
                return Outcome.failure(rule.error_code, rule.message, rule.retryable)
            handler = rule.handler
        if handler is None:
            return None
        # The handler runs outside the lock: it may take its time, or steer targets itself.
        return HandlerCall(handler, attempt())


class TargetControl:
    """Steers one target: ``emu.target(arn).fail(times=2)``, ``.handle(fn)``, ``.recover()``."""

    def __init__(self, controls: TargetControls, key: str, inspect: Callable[[str], list[Any]]):
        self._controls = controls
        self.key = key
        self._inspect = inspect

    def fail(
        self,
        times: int | None = None,
        error_code: str = "InternalServerError",
        message: str = "Injected failure",
        retryable: bool = True,
    ) -> TargetControl:
        """Make attempts fail: every one (``times=None``) or the next ``times``."""
        if times is not None and (
            not isinstance(times, int) or isinstance(times, bool) or times < 1
        ):
            raise ValueError(f"Unsupported times {times!r}: expected None or a count >= 1")
        if not isinstance(error_code, str) or not error_code:
            raise TypeError(f"Unsupported error_code {error_code!r}: expected a non-empty string")
        if not isinstance(message, str):
            raise TypeError(f"Unsupported message {message!r}: expected a string")
        if not isinstance(retryable, bool):
            raise TypeError(f"Unsupported retryable {retryable!r}: expected True or False")
        self._controls.change(
            self.key,
            failing=True,
            failures_left=times,
            error_code=error_code,
            message=message,
            retryable=retryable,
        )
        return self

    def handle(self, handler: Handler) -> TargetControl:
        """Run ``handler(attempt)`` as the target: raising ``DeliveryError`` fails the attempt
        with that outcome; any other exception is a bug that fails the test (``HandlerError``).

        A coroutine function (``async def``) is awaited: in the running event loop when an
        async move (``clock.advance_async``...) makes the attempt, else in the emulator's own.
        """
        if not callable(handler):
            raise TypeError(f"Unsupported handler {handler!r}: expected a callable")
        self._controls.change(self.key, handler=handler)
        return self

    def missing(self) -> TargetControl:
        """Declare the target missing: attempts fail permanently as its service would."""
        self._controls.change(self.key, missing=True)
        return self

    def recover(self) -> TargetControl:
        """Forget failures, handlers and missing state: attempts succeed again."""
        self._controls.drop(self.key)
        return self

    # -- inspection, in the vocabulary of mocks ---------------------------------------------

    @property
    def attempts(self) -> list[Any]:
        return self._inspect(self.key)

    @property
    def deliveries(self) -> list[Any]:
        return [attempt for attempt in self.attempts if attempt.succeeded]

    @property
    def called(self) -> bool:
        return bool(self.attempts)

    @property
    def call_count(self) -> int:
        return len(self.attempts)

    @property
    def last(self) -> Any:
        attempts = self.attempts
        if not attempts:
            raise AssertionError(f"No attempt was made at {self.key}")
        return attempts[-1]

    def __repr__(self) -> str:
        return f"<TargetControl {self.key} attempts={self.call_count}>"
