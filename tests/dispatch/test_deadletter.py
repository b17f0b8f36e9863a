"""The dead-letter message: body, attributes and truncation (§6.5)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from pytest_schedemu.dispatch.deadletter import (
    MAX_MESSAGE_BYTES,
    DeadLetterMessage,
    build_dead_letter,
)
from tests.constants import QUEUE, SCHEDULE_ARN

BODY = '{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/queue","MessageBody":"hi"}'


def letter(
    body: str = BODY,
    *,
    error_message: str = "Injected failure",
    exhausted: str | None = "MaximumRetryAttempts",
    **overrides: Any,
) -> DeadLetterMessage:
    facts: dict[str, Any] = {
        "error_code": "InternalServerError",
        "execution_id": "3deb500655068611",
        "retry_attempts": 1,
        "scheduled_time": 1893456000,
        "schedule_arn": SCHEDULE_ARN,
        "target_arn": QUEUE,
    }
    facts.update(overrides)
    return build_dead_letter(
        body=body, error_message=error_message, exhausted_condition=exhausted, **facts
    )


def attributes_size(message: DeadLetterMessage) -> int:
    return sum(
        len(name.encode()) + len("String") + len(value.encode())
        for name, value in message.attributes.items()
    )


def test_body_is_the_request_text_unchanged() -> None:
    assert letter().body == BODY


def test_attributes_after_retries_ran_out() -> None:
    assert list(letter().attributes.items()) == [
        ("ERROR_CODE", "InternalServerError"),
        ("ERROR_MESSAGE", "Injected failure"),
        ("EXECUTION_ID", "3deb500655068611"),
        ("EXHAUSTED_RETRY_CONDITION", "MaximumRetryAttempts"),
        ("IS_PAYLOAD_TRUNCATED", "false"),
        ("RETRY_ATTEMPTS", "1"),
        ("SCHEDULED_TIME", "2030-01-01T00:00:00Z"),
        ("SCHEDULE_ARN", SCHEDULE_ARN),
        ("TARGET_ARN", QUEUE),
    ]


def test_permanent_failure_has_no_exhausted_retry_condition() -> None:
    message = letter(
        exhausted=None,
        error_code="AWS.SimpleQueueService.NonExistentQueue",
        error_message="The specified queue does not exist for this wsdl version.",
        retry_attempts=0,
    )
    assert "EXHAUSTED_RETRY_CONDITION" not in message.attributes
    assert len(message.attributes) == 8
    assert message.attributes["RETRY_ATTEMPTS"] == "0"


def test_age_exhaustion_names_its_condition() -> None:
    message = letter(exhausted="MaximumEventAgeInSeconds")
    assert message.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumEventAgeInSeconds"


def test_empty_error_message_is_replaced_by_the_code() -> None:
    assert letter(error_message="").attributes["ERROR_MESSAGE"] == "InternalServerError"


def test_scheduled_time_from_a_datetime() -> None:
    at = datetime(2022, 5, 14, 1, 12, tzinfo=timezone.utc)
    assert letter(scheduled_time=at).attributes["SCHEDULED_TIME"] == "2022-05-14T01:12:00Z"


def test_message_attributes_are_send_message_shaped() -> None:
    attributes = letter(exhausted=None).message_attributes
    assert attributes["ERROR_CODE"] == {"DataType": "String", "StringValue": "InternalServerError"}
    assert list(attributes) == [
        "ERROR_CODE",
        "ERROR_MESSAGE",
        "EXECUTION_ID",
        "IS_PAYLOAD_TRUNCATED",
        "RETRY_ATTEMPTS",
        "SCHEDULED_TIME",
        "SCHEDULE_ARN",
        "TARGET_ARN",
    ]
    assert all(value["DataType"] == "String" for value in attributes.values())


def test_message_exactly_at_the_limit_is_not_truncated() -> None:
    room = MAX_MESSAGE_BYTES - attributes_size(letter())
    message = letter("a" * room)
    assert message.body == "a" * room
    assert message.truncated is False
    assert message.attributes["IS_PAYLOAD_TRUNCATED"] == "false"


def test_message_one_byte_over_the_limit_is_flagged_and_fits_with_the_shorter_flag() -> None:
    room = MAX_MESSAGE_BYTES - attributes_size(letter())
    message = letter("a" * (room + 1))
    assert message.attributes["IS_PAYLOAD_TRUNCATED"] == "true"
    assert message.truncated is True
    # "true" is one byte shorter than "false", and the cut uses all of the room left.
    assert message.body == "a" * (room + 1)


def test_large_body_is_cut_to_fill_the_limit_exactly() -> None:
    message = letter("b" * (MAX_MESSAGE_BYTES + 10_000))
    assert message.truncated is True
    assert len(message.body.encode()) + attributes_size(message) == MAX_MESSAGE_BYTES
    assert message.body == "b" * len(message.body)


def test_cut_never_splits_a_multi_byte_character() -> None:
    room = MAX_MESSAGE_BYTES - attributes_size(letter("x" * (MAX_MESSAGE_BYTES + 10_000)))
    # The three bytes of "€" straddle the cut: one fits, two do not.
    body = "a" * (room - 1) + "€" + "z" * 10
    message = letter(body)
    assert message.body == "a" * (room - 1)
    assert len(message.body.encode()) + attributes_size(message) == MAX_MESSAGE_BYTES - 1


def test_cut_keeps_a_multi_byte_character_that_fits() -> None:
    room = MAX_MESSAGE_BYTES - attributes_size(letter("x" * (MAX_MESSAGE_BYTES + 10_000)))
    body = "a" * (room - 3) + "€" + "z" * 10
    assert letter(body).body == "a" * (room - 3) + "€"


def test_multi_byte_characters_count_as_their_utf8_bytes() -> None:
    room = MAX_MESSAGE_BYTES - attributes_size(letter())
    assert letter("é" * (room // 2)).truncated is False
    assert letter("é" * (room // 2 + 1)).truncated is True


def test_attributes_are_counted_in_the_limit() -> None:
    huge = "m" * MAX_MESSAGE_BYTES
    message = letter(error_message=huge)
    assert message.body == ""
    assert message.truncated is True
    assert message.attributes["ERROR_MESSAGE"] == huge


def test_the_limit_is_sqs_one_mebibyte() -> None:
    assert MAX_MESSAGE_BYTES == 1_048_576


def test_a_shortened_payload_keeps_the_body_valid_json() -> None:
    payload = "p" * 5000

    def shortened(keep: int) -> str:
        return json.dumps({"QueueUrl": "u", "MessageBody": payload[:keep]})

    message = letter(
        shortened(len(payload)), max_bytes=2048, shortened=shortened, payload_length=len(payload)
    )
    assert message.truncated is True
    body = json.loads(message.body)
    assert body["QueueUrl"] == "u"
    assert 0 < len(body["MessageBody"]) < len(payload)
    assert payload.startswith(body["MessageBody"])
    size = len(message.body.encode()) + attributes_size(message)
    assert 2048 - 1 <= size <= 2048  # the longest payload that fits
