"""The delivery of a Lambda target's attempt to a function of the stack that runs.

Wraps whatever delivery backend the settings name: an attempt whose target is a function
the catalogue knows and can run is Lambda's asynchronous ``Invoke``, which succeeds as
Lambda accepts the event (202) and runs the function then (``asynchronous``); every other
attempt, and every dead letter, goes to the wrapped backend. The dispatcher only sees a
backend.
"""

from __future__ import annotations

from typing import Any

from pytest_schedemu.delivery.backends import (
    OK,
    DeadLetterRequest,
    Delivery,
    DeliveryRequest,
    Outcome,
)
from pytest_schedemu.functions.asynchronous import AsyncInvocations


class FunctionDelivery:
    """``inner``, but for the attempts Lambda accepts for a function that runs."""

    def __init__(self, inner: Delivery, invocations: AsyncInvocations) -> None:
        self.inner = inner
        self._invocations = invocations

    @property
    def needs_request(self) -> bool:
        # Only while a function can be invoked: without one, attempts stay unread (bulk).
        return self.inner.needs_request or bool(self._invocations.catalogue)

    @needs_request.setter
    def needs_request(self, value: bool) -> None:
        self.inner.needs_request = value

    def __getattr__(self, name: str) -> Any:
        # What a backend offers beyond the protocol (boto3's ``read_iam``) stays reachable.
        return getattr(self.inner, name)

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        if request is not None and request.target_kind == "lambda":
            definition = self._invocations.runnable(request.target_arn)
            if definition is not None:
                payload = request.request.get("Payload")
                self._invocations.accept(
                    definition, "" if payload is None else str(payload), request.execution_id
                )
                return OK
        return self.inner.deliver(request if self.inner.needs_request else None)

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        return self.inner.send_dead_letter(request)

    def close(self) -> None:
        self.inner.close()
