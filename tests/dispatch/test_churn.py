"""Memory follows what is live: churn leaves no queue items, plans or tokens behind."""

from __future__ import annotations

from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.dispatch.planner import COMPACTION_THRESHOLD
from tests.helpers import create


def test_created_and_deleted_schedules_leave_the_queue_as_it_was(
    emu: Emulator, client: Any
) -> None:
    create(client, "live", expression="rate(1 hour)")
    for index in range(3 * COMPACTION_THRESHOLD):
        create(client, f"s{index}", expression="at(2099-01-01T00:00:00)")
        client.delete_schedule(Name=f"s{index}")
    assert [schedule.name for schedule in emu.debug.planned_schedules()] == ["live"]
    assert emu.debug.queued_items() <= COMPACTION_THRESHOLD + 1
    emu.clock.advance(hours=2)
    assert len(emu.deliveries(schedule="live")) == 3


def test_updates_leave_no_stale_work_behind(emu: Emulator, client: Any) -> None:
    create(client, "s", expression="rate(1 hour)")
    for minutes in range(3 * COMPACTION_THRESHOLD):
        client.update_schedule(
            Name="s",
            ScheduleExpression=f"rate({minutes + 1} minutes)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={
                "Arn": "arn:aws:sqs:us-east-1:123456789012:queue",
                "RoleArn": "arn:aws:iam::123456789012:role/r",
            },
        )
    assert emu.debug.queued_items() <= COMPACTION_THRESHOLD + 1
    assert len(emu.debug.planned_schedules()) == 1
