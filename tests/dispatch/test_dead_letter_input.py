"""A dead letter says what was sent: ``input`` is what the target would have received (the
failing attempt's ``input``), while ``body`` stays the message AWS puts on the queue."""

from __future__ import annotations

import json
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create, put_rule, rule_target

AT = "at(2026-03-01T10:00:00)"
PLACEHOLDERS = '{"run": "<aws.scheduler.execution-id>", "at": "<aws.scheduler.scheduled-time>"}'


def schedule_letter(emu: Emulator, client: Any, target: dict[str, Any]) -> Any:
    emu.target(target.get("Arn", QUEUE)).fail(error_code="ValidationException", retryable=False)
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}, **target})
    emu.clock.tick()
    (letter,) = emu.assert_dead_lettered(DLQ, count=1)
    return letter


def test_a_schedules_letter_holds_its_input_after_the_placeholders(
    emu: Emulator, client: Any
) -> None:
    letter = schedule_letter(emu, client, {"Input": PLACEHOLDERS})
    (attempt,) = emu.attempts()
    assert letter.input == attempt.input
    assert json.loads(letter.input) == {
        "run": attempt.execution_id,
        "at": "2026-03-01T10:00:00Z",
    }
    # The body is SQS SendMessage's request, whose message is that same input.
    body = json.loads(letter.body)
    assert set(body) == {"QueueUrl", "MessageBody"}
    assert body["MessageBody"] == letter.input


def test_a_lambda_targets_letter_holds_the_payload_not_the_invoke_request(
    emu: Emulator, client: Any
) -> None:
    letter = schedule_letter(emu, client, {"Arn": FUNCTION, "Input": '{"user": "ada"}'})
    assert letter.input == '{"user": "ada"}'
    assert letter.payload["FunctionName"] == FUNCTION


def test_the_input_stays_whole_when_the_body_is_shortened(emu: Emulator, client: Any) -> None:
    emu.reset(max_dead_letter_bytes=2048)
    letter = schedule_letter(emu, client, {"Input": "é" * 5000})
    assert letter.attributes["IS_PAYLOAD_TRUNCATED"] == "true"
    assert len(json.loads(letter.body)["MessageBody"]) < 5000
    assert letter.input == "é" * 5000


def test_a_rule_targets_letter_holds_its_transformed_input(emu: Emulator) -> None:
    emu.target(QUEUE).fail(retryable=False)
    transformer = {
        "InputPathsMap": {"t": "$.time"},
        "InputTemplate": '{"at": <t>, "rule": <aws.events.rule-name>}',
    }
    target = rule_target("q", QUEUE, InputTransformer=transformer, DeadLetterConfig={"Arn": DLQ})
    put_rule(emu, "nightly", "rate(1 hour)", target)
    emu.clock.advance(hours=1, minutes=1)
    (letter,) = emu.assert_dead_lettered(DLQ, count=1, rule="nightly")
    (attempt,) = emu.attempts(rule="nightly")
    assert letter.input == attempt.input == letter.body
    assert json.loads(letter.input) == {"at": "2026-03-01T11:00:00Z", "rule": "nightly"}


def test_a_rule_targets_letter_without_input_holds_the_event(emu: Emulator) -> None:
    emu.target(FUNCTION).fail(retryable=False)
    put_rule(
        emu, "nightly", "rate(1 hour)", rule_target("f", FUNCTION, DeadLetterConfig={"Arn": DLQ})
    )
    emu.clock.advance(hours=1, minutes=1)
    (letter,) = emu.assert_dead_lettered(DLQ, count=1, rule="nightly")
    event = json.loads(letter.input)
    assert event["detail-type"] == "Scheduled Event"
    assert event["time"] == "2026-03-01T11:00:00Z"
    assert letter.input == emu.attempts(rule="nightly")[0].input
