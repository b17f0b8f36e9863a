"""Assertions that cannot pass by accident, their filters, and their short failures."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import DeliveryAssertionError, Emulator
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create

AT = "at(2026-03-01T10:00:00)"
OTHER = "arn:aws:sqs:us-east-1:123456789012:queue-two"


def test_an_arn_nothing_targets_fails_and_suggests_the_closest(emu: Emulator, client: Any) -> None:
    create(client, "a", expression=AT)
    create(client, "b", expression=AT, target={"Arn": FUNCTION})
    emu.clock.tick()
    typo = QUEUE + "x"
    for check in (
        lambda: emu.assert_delivered(typo),
        lambda: emu.assert_not_delivered(typo),
    ):
        with pytest.raises(DeliveryAssertionError) as caught:
            check()
        message = str(caught.value)
        assert f"{typo} was never the target of any schedule or rule in this test" in message
        assert f"Did you mean {QUEUE}?" in message
        assert message.index(QUEUE) < message.index(FUNCTION)


def test_a_dead_letter_queue_is_not_a_target(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    with pytest.raises(DeliveryAssertionError, match="dead letters are not deliveries"):
        emu.assert_not_delivered(DLQ)
    with pytest.raises(DeliveryAssertionError, match="assert_dead_lettered"):
        emu.assert_delivered(DLQ)


def test_assert_not_dead_lettered(emu: Emulator, client: Any) -> None:
    create(client, "ok", expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    emu.assert_not_dead_lettered(DLQ)
    emu.assert_not_dead_lettered()
    emu.target(FUNCTION).fail(retryable=False)
    create(client, "bad", expression=AT, target={"Arn": FUNCTION, "DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    with pytest.raises(DeliveryAssertionError, match=r"Expected no dead letter in .*dlq.*found 1"):
        emu.assert_not_dead_lettered(DLQ)
    with pytest.raises(DeliveryAssertionError, match="any dead-letter queue"):
        emu.assert_not_dead_lettered()
    emu.assert_not_dead_lettered(DLQ, schedule="ok")
    with pytest.raises(DeliveryAssertionError, match="never the dead-letter queue"):
        emu.assert_not_dead_lettered(DLQ + "x")
    with pytest.raises(DeliveryAssertionError, match="is a target, never a schedule's or rule"):
        emu.assert_dead_lettered(QUEUE)


def test_filters_by_schedule_group_and_payload_subset(emu: Emulator, client: Any) -> None:
    client.create_schedule_group(Name="billing")
    create(client, "a", expression=AT, target={"Input": '{"user": {"id": 1, "name": "ada"}}'})
    create(client, "b", expression=AT, GroupName="billing", target={"Input": '{"user": {"id": 2}}'})
    emu.clock.tick()
    assert len(emu.assert_delivered(QUEUE, count=1, schedule="a")) == 1
    assert len(emu.assert_delivered(QUEUE, count=1, group="billing")) == 1
    (only,) = emu.assert_delivered(QUEUE, payload_contains={"user": {"name": "ada"}})
    assert only.schedule_name == "a"
    emu.assert_not_delivered(QUEUE, payload_contains={"user": {"id": 3}})
    # payload= stays an exact match: a subset of the payload is not equal to it.
    emu.assert_not_delivered(QUEUE, payload={"user": {"id": 1}})
    with pytest.raises(DeliveryAssertionError, match="with a payload containing"):
        emu.assert_delivered(QUEUE, payload_contains={"user": {"id": 9}})
    with pytest.raises(LookupError):
        emu.assert_delivered(QUEUE, schedule="nope")


def test_a_wrong_count_on_an_hourly_schedule_fails_in_a_few_lines(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", target={"Input": "x" * 500})
    emu.clock.advance(days=2)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_delivered(QUEUE, count=24)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"Expected 24 deliveries to {QUEUE}, found 49."
    assert len(lines) <= 25
    assert any("… 37 more …" in line for line in lines)
    # Payloads are cut to 80 characters.
    assert max(len(line) for line in lines) < 200


def test_describe_attempts_is_short_too(emu: Emulator, client: Any) -> None:
    create(client, "hourly")
    emu.clock.advance(days=2)
    assert len(emu.describe_attempts().splitlines()) <= 25


def test_no_attempts_is_said_once(emu: Emulator, client: Any) -> None:
    assert emu.describe_attempts() == "attempts: none"
    create(client, expression="at(2026-03-01T12:00:00)")
    emu.clock.advance(hours=1)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_delivered(QUEUE)
    lines = str(caught.value).splitlines()
    assert [line for line in lines if "none" in line and "attempts" in line] == ["attempts: none"]


@pytest.mark.parametrize(("targets", "hidden"), [(5, None), (6, "  … 2 more")])
def test_a_single_line_is_shown_rather_than_counted(
    emu: Emulator, client: Any, targets: int, hidden: str | None
) -> None:
    for n in range(targets):
        create(client, f"s{n}", expression=AT, target={"Arn": f"{QUEUE}-{n}"})
    emu.clock.tick()
    lines = emu.describe_attempts().splitlines()
    counted = lines[1 : lines.index(f"attempts ({targets}):")]
    assert not any("… 1 more" in line for line in lines)
    if hidden is None:
        assert len(counted) == targets
    else:
        assert counted[-1] == hidden and len(counted) == 5
