"""Where Lambda sends an asynchronous invocation's outcome: its destinations' invocation
record, and the function's own dead-letter queue's message (docs/functions-asynchronous.md).

A destination (``OnSuccess``, ``OnFailure``) receives Lambda's invocation record: the
request, how it ended and why Lambda stopped (``condition``). A function with a
``DeadLetterConfig`` also sends its dead-letter queue (SQS or SNS) the failed event itself,
with the attributes ``RequestID``, ``ErrorCode`` and ``ErrorMessage``. What reaches an SQS
queue is a dead letter of that queue (``Emulator.dead_letters``); an SNS topic or an event
bus receives it through the delivery backend, as a target would; a function of the
catalogue is invoked with it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.delivery.backends import DeadLetterRequest, Delivery, DeliveryRequest
from pytest_schedemu.formats import jsontext
from pytest_schedemu.functions.runner import Invocation
from pytest_schedemu.records import DeadLetter, History
from pytest_schedemu.records.types import FUNCTION
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.targets import queue_url, target_kind

SUCCESS = "Success"
RETRIES_EXHAUSTED = "RetriesExhausted"
EVENT_AGE_EXCEEDED = "EventAgeExceeded"

#: The EventBridge detail type of a record sent to an event bus [aws].
_DETAIL_TYPES = {
    True: "Lambda Function Invocation Result - Success",
    False: "Lambda Function Invocation Result - Failure",
}
#: What a dead-letter message's ErrorMessage attribute holds at most [aws: "the first 1 KB"].
_ERROR_MESSAGE_BYTES = 1024


def timestamp(at: datetime) -> str:
    """Lambda's form of an instant in an invocation record: ``2019-11-24T23:08:25.651Z``."""
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def invocation_record(
    *,
    at: datetime,
    request_id: str,
    function_arn: str,
    condition: str,
    invoke_count: int,
    payload: Any,
    run: Invocation,
) -> dict[str, Any]:
    """Lambda's invocation record, as a destination receives it [aws]."""
    response: dict[str, Any] = {"statusCode": 200, "executedVersion": "$LATEST"}
    if run.error_type is None:
        answer: Any = run.result
    else:
        response["functionError"] = "Unhandled"
        answer = {
            "errorMessage": run.error_message,
            "errorType": run.error_type,
            "stackTrace": list(run.stack_trace),
        }
    return {
        "version": "1.0",
        "timestamp": timestamp(at),
        "requestContext": {
            "requestId": request_id,
            "functionArn": f"{function_arn}:$LATEST",
            "condition": condition,
            "approximateInvokeCount": invoke_count,
        },
        "requestPayload": payload,
        "responseContext": response,
        "responsePayload": answer,
    }


def dead_letter_attributes(request_id: str, run: Invocation) -> dict[str, str]:
    """The attributes of the message a function's own dead-letter queue receives [aws]."""
    message = (run.error_message or "").encode()[:_ERROR_MESSAGE_BYTES]
    return {
        "RequestID": request_id,
        "ErrorCode": "200",
        "ErrorMessage": message.decode(errors="ignore"),
    }


class Destinations:
    """Sends what Lambda sends after an asynchronous invocation to where it goes."""

    def __init__(
        self,
        *,
        delivery: Callable[[], Delivery],
        history: History,
        settings: LiveSettings,
        now: Callable[[], datetime],
    ) -> None:
        self._delivery = delivery
        self._history = history
        self._settings = settings
        self._now = now
        #: Invokes a function of the catalogue with a record; False when none runs there.
        self.invoke: Callable[[str, str], bool] = lambda arn, body: False

    def send(
        self, arn: str, body: str, attributes: dict[str, str], *, succeeded: bool, event: str
    ) -> bool:
        """Send ``body`` to the destination or queue ``arn``; whether it arrived.
        ``event`` is the request payload it is about, kept as a dead letter's input."""
        kind = target_kind(arn).name
        if kind == "sqs":
            return self._to_queue(arn, body, attributes, event)
        if kind == "lambda":
            return self.invoke(arn, body)
        if kind == "sns":
            request = {"TopicArn": arn, "Message": body}
            return self._deliver(arn, kind, "Publish", request)
        if kind in ("events", "eventsv2"):
            entry = {
                "Source": "lambda",
                "DetailType": _DETAIL_TYPES[succeeded],
                "Detail": body,
                "EventBusName": arn,
            }
            return self._deliver(arn, "events", "PutEvents", {"Entries": [entry]})
        return False

    def _to_queue(self, arn: str, body: str, attributes: dict[str, str], event: str) -> bool:
        settings = self._settings.current
        request = DeadLetterRequest(
            queue_arn=arn,
            queue_url=queue_url(arn, settings.sqs_queue_url_template) or "",
            body=body,
            message_attributes={
                name: {"DataType": "String", "StringValue": value}
                for name, value in attributes.items()
            },
        )
        if not self._delivery().send_dead_letter(request).ok:
            return False
        now = self._now()
        self._history.add_dead_letter(
            DeadLetter(
                queue_arn=arn,
                body=body,
                payload=jsontext.loads_or_none(body),
                attributes=attributes,
                schedule_arn=None,
                scheduled_time=now,
                sent_at=now,
                queue_url=request.queue_url,
                input=event,
                source=FUNCTION,
            )
        )
        return True

    def _deliver(self, arn: str, service: str, operation: str, request: dict[str, Any]) -> bool:
        delivery = self._delivery()
        sent = DeliveryRequest(
            target_arn=arn,
            target_kind=service,
            role_arn="",
            request=request,
            request_text=jsontext.dumps_compact(request),
            service=service,
            operation=operation,
            region=arn.split(":")[3] if arn.count(":") >= 3 else None,
            attempt_number=1,
            attempted_at=self._now(),
        )
        return delivery.deliver(sent if delivery.needs_request else None).ok
