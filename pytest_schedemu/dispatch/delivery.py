"""Delivery: how one attempt reaches its target, and how tests steer the outcome.

A ``Delivery`` backend knows nothing of schedules: it gets a materialized request and
answers an ``Outcome``. ``RecordingDelivery`` (the default) accepts everything; the
dispatcher records every attempt whatever the backend. ``TargetControls`` sit in front of
the backend and apply what a test asked for: injected failures, handlers, missing targets
and denied roles.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol

from pytest_schedemu.errors import DeliveryError

ACCESS_DENIED_MESSAGE = (
    "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."
)


@dataclass(frozen=True)
class Outcome:
    """How one attempt ended: ``ok``, or a failure that is retryable or permanent."""

    ok: bool
    code: str | None = None
    message: str | None = None
    retryable: bool = False

    @classmethod
    def failure(cls, code: str, message: str | None, retryable: bool) -> Outcome:
        return cls(False, code, message or "", retryable)


OK = Outcome(True)


@dataclass(frozen=True)
class DeliveryRequest:
    """One attempt as a delivery backend sees it."""

    target_arn: str
    target_kind: str
    role_arn: str
    #: The target API's request, parsed; ``request_text`` is its exact JSON text.
    request: dict[str, Any]
    request_text: str
    #: The target's service and operation, e.g. ("sqs", "SendMessage"); None for generic.
    service: str | None
    operation: str | None
    region: str | None
    attempt_number: int
    attempted_at: datetime


@dataclass(frozen=True)
class DeadLetterRequest:
    """A dead-letter message as a delivery backend sends it (SQS SendMessage)."""

    queue_arn: str
    queue_url: str
    body: str
    #: SendMessage-shaped attributes: {name: {"DataType": "String", "StringValue": …}}.
    message_attributes: dict[str, dict[str, str]]


class Delivery(Protocol):
    #: False for a backend that answers without looking at the request: the dispatcher
    #: then does not build one (``deliver`` gets None).
    needs_request: bool

    def deliver(self, request: DeliveryRequest | None) -> Outcome: ...

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome: ...

    def close(self) -> None: ...


class RecordingDelivery:
    """The default backend: every target exists and accepts every request."""

    needs_request = False

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        return OK

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        return OK

    def close(self) -> None:
        pass


Handler = Callable[[Any], Any]


@dataclass
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
        self._denied_roles: set[str] = set()

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            self._denied_roles.clear()

    def rule(self, key: str) -> _Rule:
        with self._lock:
            return self._rules.setdefault(key, _Rule())

    def drop(self, key: str) -> None:
        with self._lock:
            self._rules.pop(key, None)

    def deny_role(self, role_arn: str) -> None:
        with self._lock:
            self._denied_roles.add(role_arn)

    def allow_role(self, role_arn: str) -> None:
        with self._lock:
            self._denied_roles.discard(role_arn)

    @property
    def idle(self) -> bool:
        return not self._rules and not self._denied_roles

    def role_denied(self, role_arn: str) -> bool:
        return role_arn in self._denied_roles

    def is_missing(self, key: str) -> bool:
        """Whether a test declared ``key`` missing: all a dead-letter send looks at, since
        failure rules and handlers steer attempts only."""
        with self._lock:
            rule = self._rules.get(key)
            return rule is not None and rule.missing

    def steer(
        self, keys: Sequence[str], missing_error: Outcome | None, attempt: Callable[[], Any]
    ) -> Outcome | None:
        """The outcome a test imposes on an attempt at one of ``keys``, or None.

        ``attempt`` builds the record a handler receives; it is only called for handlers.
        """
        with self._lock:
            rule = next((self._rules[k] for k in keys if k in self._rules), None)
            if rule is None:
                return None
            if rule.missing and missing_error is not None:
                return missing_error
            if rule.failing and (rule.failures_left is None or rule.failures_left > 0):
                if rule.failures_left is not None:
                    rule.failures_left -= 1
                    if rule.failures_left == 0:
                        rule.failing = False
                return Outcome.failure(rule.error_code, rule.message, rule.retryable)
            handler = rule.handler
        if handler is None:
            return None
        try:
            handler(attempt())
        except DeliveryError as error:
            return Outcome.failure(error.code, error.message, error.retryable)
        except Exception as error:
            return Outcome.failure(type(error).__name__, str(error), True)
        return OK


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
        rule = self._controls.rule(self.key)
        rule.failing = True
        rule.failures_left = times
        rule.error_code = error_code
        rule.message = message
        rule.retryable = retryable
        return self

    def handle(self, handler: Handler) -> TargetControl:
        """Run ``handler(attempt)`` as the target; raising fails the attempt (§ DeliveryError)."""
        if not callable(handler):
            raise TypeError(f"Unsupported handler {handler!r}: expected a callable")
        self._controls.rule(self.key).handler = handler
        return self

    def missing(self) -> TargetControl:
        """Declare the target missing: attempts fail permanently as its service would."""
        self._controls.rule(self.key).missing = True
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
