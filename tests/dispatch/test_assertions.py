"""assert_delivered, assert_not_delivered and assert_dead_lettered: what they accept and
what their failures say."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create

AT = "at(2026-03-01T10:00:00)"


def test_assert_delivered_counts_and_returns_the_deliveries(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)", target={"Input": '{"user": "ada"}'})
    emu.clock.advance(hours=2)
    assert len(emu.assert_delivered(QUEUE)) == 3
    assert len(emu.assert_delivered(QUEUE, count=3)) == 3
    with pytest.raises(AssertionError, match=r"Expected 2 deliveries to .*, found 3"):
        emu.assert_delivered(QUEUE, count=2)


def test_payload_filter_compares_parsed_json_or_the_text(emu: Emulator, client: Any) -> None:
    create(client, "a", expression=AT, target={"Input": '{"user": "ada"}'})
    create(client, "b", expression=AT, target={"Input": "plain text"})
    emu.clock.tick()
    assert len(emu.assert_delivered(QUEUE, payload={"user": "ada"})) == 1
    assert len(emu.assert_delivered(QUEUE, payload="plain text")) == 1
    # None, the default, filters nothing.
    assert len(emu.assert_delivered(QUEUE, count=2, payload=None)) == 2
    with pytest.raises(AssertionError, match=re.escape("with payload {'user': 'bob'}, found 0")):
        emu.assert_delivered(QUEUE, payload={"user": "bob"})
    emu.assert_not_delivered(QUEUE, payload={"user": "bob"})


def test_failure_lists_deliveries_schedules_and_failed_attempts(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail(error_code="ThrottlingException")
    create(client, "to-queue", expression=AT)
    create(client, "to-function", expression="rate(1 day)", target={"Arn": FUNCTION})
    emu.clock.tick()
    with pytest.raises(AssertionError) as caught:
        emu.assert_delivered(FUNCTION)
    message = str(caught.value)
    assert "default/to-function" in message
    assert "ENABLED" in message
    assert "ThrottlingException" in message
    with pytest.raises(AssertionError, match=r"Expected no delivery to .*queue, found 1"):
        emu.assert_not_delivered(QUEUE)


def test_assert_dead_lettered_filters_by_schedule_and_attributes(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    (letter,) = emu.assert_dead_lettered(
        DLQ, count=1, attributes={"ERROR_CODE": "AWS.SimpleQueueService.NonExistentQueue"}
    )
    assert letter.attributes["RETRY_ATTEMPTS"] == "0"
    with pytest.raises(AssertionError):
        emu.assert_dead_lettered(DLQ, attributes={"ERROR_CODE": "ThrottlingException"})
