"""A rule target's failures are retried with EventBridge's backoff within its RetryPolicy,
and what ends failed goes to its dead-letter queue with EventBridge's attributes, or is
dropped, and never silently."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pytest_schedemu import Attempt, DeliveryError, Emulator
from pytest_schedemu.dispatch.retries import eventbridge_next_attempt
from pytest_schedemu.errors import DeliveryAssertionError
from tests.constants import DLQ, FUNCTION, QUEUE, T0
from tests.helpers import put_rule, rule_target

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"
FIRST = T0 + timedelta(hours=1)


def waits(emu: Emulator) -> list[int]:
    moments = [a.attempted_at for a in emu.attempts()]
    return [int((later - earlier).total_seconds()) for earlier, later in zip(moments, moments[1:])]


def test_eventbridges_ladder_fills_the_default_day_with_185_retries() -> None:
    number, at, dues = 1, 0, []
    while number <= 186:
        number, at = eventbridge_next_attempt(number, at)
        dues.append(at)
    assert dues[:11] == [1, 3, 7, 15, 31, 63, 127, 255, 511, 991, 1471]
    # The 185th retry (attempt 186) falls inside the default 24 hours; a 186th would not.
    assert dues[184] == 84991 <= 86400 < dues[184] + 86400


def test_a_failing_target_is_retried_with_eventbridges_backoff(emu: Emulator) -> None:
    emu.target(QUEUE).fail(times=5)
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1, minutes=1)
    assert waits(emu) == [1, 2, 4, 8, 16]
    assert [a.succeeded for a in emu.attempts()] == [False] * 5 + [True]
    assert len({a.event_id for a in emu.attempts()}) == 1


def test_exhausted_retries_send_eventbridges_dead_letter(emu: Emulator) -> None:
    emu.target(QUEUE).fail(error_code="ThrottlingException", message="Rate exceeded")
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target(
            "q",
            QUEUE,
            InputTransformer={
                "InputPathsMap": {"t": "$.time"},
                "InputTemplate": '{"at": <t>, "rule": <aws.events.rule-name>}',
            },
            RetryPolicy={"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 3},
            DeadLetterConfig={"Arn": DLQ},
        ),
    )
    emu.clock.advance(hours=1, minutes=1)
    [letter] = emu.assert_dead_lettered(DLQ, count=1, rule="nightly")
    # The body is the event as the target would have received it: its transformed input.
    assert json.loads(letter.body) == {"at": "2026-03-01T11:00:00Z", "rule": "nightly"}
    assert letter.attributes == {
        "RULE_ARN": RULE,
        "TARGET_ARN": QUEUE,
        "ERROR_CODE": "THROTTLING",
        "ERROR_MESSAGE": "ThrottlingException: Rate exceeded",
        "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
        "RETRY_ATTEMPTS": "3",
    }
    assert (letter.source, letter.rule_arn, letter.rule_name, letter.target_id) == (
        "rule",
        RULE,
        "nightly",
        "q",
    )
    assert letter.schedule_arn is None
    assert letter.sent_at == FIRST + timedelta(seconds=7)
    assert emu.executions(rule="nightly")[0].exhausted_condition == "MaximumRetryAttempts"


def test_the_event_age_limit_ends_the_retries(emu: Emulator) -> None:
    emu.target(QUEUE).fail()
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target(
            "q",
            QUEUE,
            RetryPolicy={"MaximumEventAgeInSeconds": 60, "MaximumRetryAttempts": 185},
            DeadLetterConfig={"Arn": DLQ},
        ),
    )
    emu.clock.advance(hours=1, minutes=5)
    # 0, 1, 3, 7, 15, 31 s; the next would be at 63 s, past the age of 60.
    assert len(emu.attempts()) == 6
    [letter] = emu.dead_letters(rule="nightly")
    assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumEventAgeInSeconds"
    assert letter.attributes["RETRY_ATTEMPTS"] == "5"


def test_a_missing_target_goes_to_the_dead_letter_queue_without_retries(emu: Emulator) -> None:
    emu.target(FUNCTION).missing()
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("f", FUNCTION, DeadLetterConfig={"Arn": DLQ}),
    )
    emu.clock.advance(hours=1)
    [attempt] = emu.attempts()
    assert (attempt.error_code, attempt.retryable) == ("ResourceNotFoundException", False)
    [letter] = emu.dead_letters()
    assert letter.attributes["ERROR_CODE"] == "NO_RESOURCE"
    assert "EXHAUSTED_RETRY_CONDITION" not in letter.attributes
    assert letter.attributes["RETRY_ATTEMPTS"] == "0"
    assert json.loads(letter.body)["detail-type"] == "Scheduled Event"


def test_a_denied_role_is_a_failure_to_assume_it(emu: Emulator) -> None:
    role = "arn:aws:iam::123456789012:role/events"
    emu.deny_role(role)
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("q", QUEUE, RoleArn=role, DeadLetterConfig={"Arn": DLQ}),
    )
    emu.clock.advance(hours=1)
    assert emu.dead_letters()[0].attributes["ERROR_CODE"] == "FAILED_TO_ASSUME_ROLE"


def test_a_handler_steers_a_rule_target_as_it_does_a_schedules(emu: Emulator) -> None:
    seen: list[Attempt] = []

    def handler(attempt: Attempt) -> None:
        seen.append(attempt)
        if len(seen) == 1:
            raise DeliveryError("ServiceUnavailable", "try later", retryable=True)

    emu.target(QUEUE).handle(handler)
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1, seconds=1)
    assert [a.succeeded for a in emu.target(QUEUE).attempts] == [False, True]
    assert emu.target(QUEUE).call_count == 2
    assert [a.rule_name for a in seen] == ["nightly", "nightly"]


def test_a_drop_without_a_dead_letter_queue_is_recorded_and_must_be_asserted(
    emu: Emulator,
) -> None:
    emu.target(QUEUE).fail(retryable=False, error_code="ValidationException", message="bad")
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1)
    assert [(d.kind, d.rule_name, d.detail) for d in emu.unasserted_drops()] == [
        ("dropped", "nightly", "ValidationException: bad")
    ]
    emu.assert_dropped(1, rule="nightly")
    assert emu.unasserted_drops() == []


def test_a_target_whose_input_cannot_be_built_fails_every_attempt_and_says_why(
    emu: Emulator,
) -> None:
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("q", QUEUE, InputPath="$.detail.missing", DeadLetterConfig={"Arn": DLQ}),
    )
    emu.clock.advance(hours=2)
    assert [(a.error_code, a.retryable) for a in emu.attempts()] == [
        ("INVALID_PARAMETER", False),
        ("INVALID_PARAMETER", False),
    ]
    assert "InputPath $.detail.missing selects nothing" in emu.attempts()[0].error_message
    letter = emu.dead_letters()[0]
    assert letter.attributes["ERROR_CODE"] == "INVALID_PARAMETER"
    # Nothing could be built: the dead letter holds the event the target was matched with.
    assert json.loads(letter.body)["source"] == "aws.events"


def test_an_input_template_that_makes_invalid_json_is_a_drop_not_a_silence(
    emu: Emulator,
) -> None:
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target(
            "q",
            QUEUE,
            InputTransformer={
                # A list inside quotes: ["arn:…"] breaks the string it is put in.
                "InputPathsMap": {"r": "$.resources"},
                "InputTemplate": '{"resources": "<r>"}',
            },
        ),
    )
    emu.clock.advance(hours=1)
    [drop] = emu.assert_dropped(1, rule="nightly")
    assert drop.detail.startswith("INVALID_JSON: The InputTemplate makes invalid JSON")
    with pytest.raises(DeliveryAssertionError, match="Expected at least one delivery"):
        emu.assert_delivered(QUEUE)
