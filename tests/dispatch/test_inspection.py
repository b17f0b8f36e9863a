"""attempts(), deliveries(), dead_letters(), executions(), reset() and determinism."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create


def test_filters(emu: Emulator, client: Any) -> None:
    client.create_schedule_group(Name="g")
    create(client, "a", expression="rate(1 hour)")
    create(client, "b", expression="rate(1 hour)", GroupName="g", target={"Arn": FUNCTION})
    emu.clock.advance(hours=1)
    assert len(emu.attempts()) == 4
    assert {a.schedule_name for a in emu.attempts(schedule="a")} == {"a"}
    assert {a.group_name for a in emu.attempts(group="g")} == {"g"}
    assert {a.target_arn for a in emu.deliveries(target_arn=FUNCTION)} == {FUNCTION}
    arn = "arn:aws:scheduler:us-east-1:123456789012:schedule/g/b"
    assert len(emu.attempts(schedule=arn)) == 2


def test_deliveries_are_successful_attempts_only(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail(times=1)
    create(client, expression="rate(1 hour)")
    emu.clock.advance(minutes=5)
    assert len(emu.attempts()) == 2
    assert [d.attempt_number for d in emu.deliveries()] == [2]


def test_executions_record_each_occurrence(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail(times=1)
    create(client, expression="rate(1 hour)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(hours=1)
    first, second = emu.executions("s1")
    assert first.status == "success"
    assert [a.attempt_number for a in first.attempts] == [1, 2]
    assert second.status == "success"
    assert first.event_id != second.event_id
    with pytest.raises(LookupError, match="group 'other'"):
        emu.executions("s1", group="other")


def test_dead_letter_filter_by_queue(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    other = "arn:aws:sqs:us-east-1:123456789012:other-dlq"
    create(
        client, "a", expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}}
    )
    create(
        client,
        "b",
        expression="at(2026-03-01T10:00:00)",
        target={"DeadLetterConfig": {"Arn": other}},
    )
    emu.clock.tick()
    assert len(emu.dead_letters()) == 2
    assert [d.queue_arn for d in emu.dead_letters(other)] == [other]


def test_reset_empties_everything(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, expression="rate(1 minute)")
    emu.clock.advance(minutes=3)
    emu.reset()
    assert emu.attempts() == []
    with pytest.raises(LookupError, match="'s1' ever existed"):
        emu.executions("s1")
    assert client.list_schedules()["Schedules"] == []
    # Pending retries and failure rules went with the reset.
    create(client, expression="at(2026-03-01T10:03:00)")
    emu.clock.advance(hours=1)
    assert [a.succeeded for a in emu.attempts()] == [True]


def scenario() -> list[Any]:
    with Emulator(start="2026-03-01T10:00:00Z", transport="inprocess") as emu:
        client = emu.client()
        emu.target(QUEUE).fail(times=7)
        for index in range(5):
            create(
                client,
                f"s{index}",
                expression=f"rate({index + 1} minutes)",
                window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 10},
                target={
                    "DeadLetterConfig": {"Arn": DLQ},
                    "RetryPolicy": {"MaximumRetryAttempts": 2},
                },
            )
        emu.clock.advance(hours=2)
        return [
            (
                a.schedule_arn,
                a.scheduled_time,
                a.attempted_at,
                a.attempt_number,
                a.event_id,
                a.execution_id,
                a.input,
                a.succeeded,
            )
            for a in emu.attempts()
        ] + [(d.body, sorted(d.attributes.items())) for d in emu.dead_letters()]


def test_the_same_scenario_twice_gives_identical_records() -> None:
    assert scenario() == scenario()


def test_max_records_bounds_attempts_and_executions() -> None:
    with Emulator(start="2026-03-01T10:00:00Z", transport="inprocess", max_records=100) as emu:
        create(emu.client(), expression="rate(1 minute)")
        for _ in range(10):
            emu.clock.advance(minutes=100)
        attempts = emu.attempts()
        executions = emu.executions("s1")
        assert 95 <= len(attempts) <= 100
        assert 95 <= len(executions) <= 100
        dropped = emu.dropped_records
        assert dropped.attempts == 1001 - len(attempts)
        assert dropped.executions == 1001 - len(executions)
        assert dropped == dropped.attempts + dropped.executions
        # The newest are kept, in order.
        assert attempts[-1].scheduled_time == emu.clock.now()
        assert executions[-1].scheduled_time == emu.clock.now()


def test_records_are_unbounded_below_the_default_cap(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 minute)")
    emu.clock.advance(days=2)
    assert len(emu.attempts()) == 2 * 1440 + 1
    assert emu.dropped_records == 0


def test_a_universal_target_is_steered_and_inspected_in_any_partition() -> None:
    with Emulator(start="2026-03-01T10:00:00Z", transport="inprocess") as emu:
        china = emu.client(region_name="cn-north-1")
        create(
            china,
            expression="at(2026-03-01T10:00:00)",
            target={"Arn": "arn:aws-cn:scheduler:::aws-sdk:sqs:sendMessage", "Input": "{}"},
        )
        steered = emu.target("sqs:sendMessage").fail(times=1)
        emu.clock.tick()
        assert steered.call_count == 1
        assert steered.last.error_code == "InternalServerError"
