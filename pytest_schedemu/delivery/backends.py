"""Delivery backends: how one attempt reaches its target.

A ``Delivery`` backend knows nothing of schedules: it gets a materialized request and
answers an ``Outcome``. ``RecordingDelivery`` (the default) accepts everything;
``dispatch.forwarding.Boto3Delivery`` sends to the target's real API; a test or a service
may bring its own. The dispatcher records every attempt whatever the backend, and applies
what tests asked of targets (``steering``) before the backend is called.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pytest_schedemu.errors import ROLE_NOT_ASSUMABLE

ACCESS_DENIED_MESSAGE = ROLE_NOT_ASSUMABLE


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
    #: The attempt's execution id, as its records carry it; None for a request no attempt
    #: made (what a function's destination is sent).
    execution_id: str | None = None


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
