"""Where Lambda sends an asynchronous invocation's outcome: the OnSuccess and OnFailure
destinations receive its invocation record, a function's own dead-letter queue the failed
event; an SQS queue's message is a dead letter of it."""

from __future__ import annotations

from typing import Any

from pytest_schedemu import DeadLetterRequest, DeliveryRequest, Emulator, Outcome
from tests.constants import DLQ, FUNCTION
from tests.functions_async.doubles import Handlers, failing, function
from tests.helpers import create

SUCCESSES = "arn:aws:sqs:us-east-1:123456789012:successes"
FAILURES = "arn:aws:sqs:us-east-1:123456789012:failures"
TOPIC = "arn:aws:sns:us-east-1:123456789012:failures"
BUS = "arn:aws:events:us-east-1:123456789012:event-bus/default"
AUDIT = FUNCTION.replace("remind", "audit")


def at_half_past(client: Any) -> None:
    create(
        client,
        "once",
        "at(2026-03-01T10:30:00)",
        target={"Arn": FUNCTION, "Input": '{"n": 1}'},
    )


def test_on_success_receives_lambdas_invocation_record(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: {"reminded": True}
    emu.functions.add(function(on_success=SUCCESSES, on_failure=FAILURES))
    at_half_past(client)

    emu.clock.advance(hours=1)

    [run] = emu.invocations()
    [letter] = emu.dead_letters(SUCCESSES)
    assert letter.payload == {
        "version": "1.0",
        "timestamp": "2026-03-01T10:30:00.000Z",
        "requestContext": {
            "requestId": run.request_id,
            "functionArn": f"{FUNCTION}:$LATEST",
            "condition": "Success",
            "approximateInvokeCount": 1,
        },
        "requestPayload": {"n": 1},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST"},
        "responsePayload": {"reminded": True},
    }
    assert (letter.source, letter.schedule_arn, letter.input) == ("function", None, '{"n": 1}')
    assert letter.queue_url == "https://sqs.us-east-1.amazonaws.com/123456789012/successes"
    assert emu.dead_letters(FAILURES) == []


def test_on_failure_receives_the_record_once_the_retries_are_exhausted(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_retry_attempts=1, on_failure=FAILURES, dead_letter_arn=DLQ))
    at_half_past(client)

    emu.clock.advance(hours=1)

    first, last = emu.invocations()
    [letter] = emu.dead_letters(FAILURES)
    record = letter.payload
    assert record["timestamp"] == "2026-03-01T10:31:00.000Z"
    assert record["requestContext"] == {
        "requestId": first.request_id,
        "functionArn": f"{FUNCTION}:$LATEST",
        "condition": "RetriesExhausted",
        "approximateInvokeCount": 2,
    }
    assert record["responseContext"] == {
        "statusCode": 200,
        "executedVersion": "$LATEST",
        "functionError": "Unhandled",
    }
    assert record["responsePayload"] == {
        "errorMessage": last.error_message,
        "errorType": "ValueError",
        "stackTrace": list(last.stack_trace),
    }
    # A destination comes in addition to the function's own dead-letter queue.
    [event] = emu.dead_letters(DLQ)
    assert (event.body, event.attributes["RequestID"]) == ('{"n": 1}', first.request_id)


def test_the_functions_dead_letter_queue_receives_the_failed_event(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(dead_letter_arn=DLQ))
    at_half_past(client)

    emu.clock.advance(hours=1)

    runs = emu.invocations()
    [letter] = emu.dead_letters(DLQ)
    assert len(runs) == 3
    assert letter.body == '{"n": 1}'
    assert letter.attributes == {
        "RequestID": runs[0].request_id,
        "ErrorCode": "200",
        "ErrorMessage": "cannot remind about {'n': 1}",
    }
    assert letter.sent_at == runs[-1].invoked_at


def test_a_destination_that_is_a_function_is_invoked_with_the_record(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    handlers.behaviours["audit"] = lambda event, number: event["requestContext"]["condition"]
    emu.functions.add(function(maximum_retry_attempts=0, on_failure=AUDIT))
    emu.functions.add(function("audit"))
    at_half_past(client)

    emu.clock.advance(hours=1)

    [audit] = emu.invocations("audit")
    assert audit.result == "RetriesExhausted"
    assert audit.event["requestPayload"] == {"n": 1}
    assert audit.request_id != emu.invocations("remind")[0].request_id


class Sent:
    """A delivery backend that keeps what it is asked to send, and accepts it."""

    needs_request = True

    def __init__(self) -> None:
        self.requests: list[DeliveryRequest] = []

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        assert request is not None
        self.requests.append(request)
        return Outcome(True)

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        return Outcome(True)

    def close(self) -> None:
        pass


def test_a_topic_and_an_event_bus_receive_the_record_through_the_delivery_backend(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    sent = Sent()
    emu.configure(delivery=sent)
    handlers.behaviours["remind"] = lambda event, number: failing(event, number) if event else 1
    handlers.behaviours["audit"] = lambda event, number: 2
    emu.functions.add(function(maximum_retry_attempts=0, on_failure=TOPIC))
    emu.functions.add(function("audit", on_success=BUS))
    at_half_past(client)
    create(client, "audit", "at(2026-03-01T10:40:00)", target={"Arn": AUDIT})

    emu.clock.advance(hours=1)

    operations = [(r.target_arn, r.service, r.operation) for r in sent.requests]
    assert operations == [(TOPIC, "sns", "Publish"), (BUS, "events", "PutEvents")]
    published = sent.requests[0].request
    assert published["TopicArn"] == TOPIC
    assert '"condition":"RetriesExhausted"' in published["Message"]
    [entry] = sent.requests[1].request["Entries"]
    assert (entry["Source"], entry["DetailType"]) == (
        "lambda",
        "Lambda Function Invocation Result - Success",
    )
    assert '"responsePayload":2' in entry["Detail"]


def test_the_timeline_draws_the_schedules_lane_beside_a_functions_dead_letter(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_retry_attempts=0, dead_letter_arn=DLQ))
    at_half_past(client)
    emu.clock.advance(hours=1)

    svg = emu.timeline_svg()

    assert "once" in svg and len(emu.dead_letters(DLQ)) == 1


def test_a_state_file_keeps_a_functions_dead_letter_as_the_functions(
    tmp_path: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    path = str(tmp_path / "state.db")
    with Emulator(start="2026-03-01T10:00:00Z", state=path) as first:
        first.functions.add(function(maximum_retry_attempts=0, dead_letter_arn=DLQ))
        at_half_past(first.client())
        first.clock.advance(hours=1)
        sent = first.dead_letters(DLQ)

    with Emulator(state=path) as restarted:
        assert restarted.dead_letters(DLQ) == sent
        assert [letter.source for letter in sent] == ["function"]
