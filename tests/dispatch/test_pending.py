"""emu.pending(): the work ahead of the clock, in the order it will be done."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator, PendingWork
from tests.constants import DLQ, FUNCTION, QUEUE, T0
from tests.helpers import create


def test_pending_lists_each_schedules_next_occurrence_in_due_order(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)", target={"Arn": FUNCTION})
    create(client, "soon", "at(2026-03-01T10:30:00)")
    hourly, soon = emu.pending()
    assert soon == PendingWork(
        due=T0 + timedelta(minutes=30),
        kind="occurrence",
        schedule_name="soon",
        group_name="default",
        schedule_arn="arn:aws:scheduler:us-east-1:123456789012:schedule/default/soon",
        target_arn=QUEUE,
        attempt_number=1,
        scheduled_time=T0 + timedelta(minutes=30),
    )
    # A recurring schedule shows its next occurrence only.
    assert (hourly.due, hourly.kind, hourly.target_arn) == (T0, "occurrence", FUNCTION)


def test_pending_shows_retries_with_their_attempt_numbers(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, "once", "at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    (retry,) = emu.pending()
    assert (retry.kind, retry.attempt_number, retry.due) == ("retry", 2, T0 + timedelta(minutes=1))
    assert retry.scheduled_time == T0


def test_a_flexible_window_shows_its_first_attempt_once_the_occurrence_falls_due(
    emu: Emulator, client: Any
) -> None:
    create(
        client,
        "flexible",
        "at(2026-03-01T10:00:00)",
        window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 10},
    )
    (occurrence,) = emu.pending()
    # Its attempt waits for the window, so the occurrence makes none when it falls due.
    assert (occurrence.kind, occurrence.attempt_number) == ("occurrence", None)
    emu.clock.tick()
    (first,) = emu.pending()
    assert (first.kind, first.attempt_number) == ("first_attempt", 1)
    assert T0 <= first.due < T0 + timedelta(minutes=10)


def test_pending_shows_a_group_removal(emu: Emulator, client: Any) -> None:
    emu.configure(group_deletion_delay=30)
    client.create_schedule_group(Name="team")
    create(client, "member", "rate(1 day)", GroupName="team")
    client.delete_schedule_group(Name="team")
    (removal,) = [w for w in emu.pending() if w.kind == "group_removal"]
    assert (removal.kind, removal.group_name, removal.due) == (
        "group_removal",
        "team",
        T0 + timedelta(seconds=30),
    )
    assert (removal.schedule_name, removal.target_arn, removal.attempt_number) == (None,) * 3


def test_pending_is_limited_and_refuses_a_negative_limit(emu: Emulator, client: Any) -> None:
    for number in range(5):
        create(client, f"s{number}", f"rate({number + 1} minutes)")
    emu.clock.advance(minutes=1)
    assert [w.schedule_name for w in emu.pending(limit=3)] == ["s0", "s1", "s2"]
    assert emu.pending(limit=0) == []
    with pytest.raises(ValueError, match="limit"):
        emu.pending(limit=-1)


def test_pending_order_is_the_order_the_clock_plays_it(emu: Emulator, client: Any) -> None:
    for name in ("c", "a", "b"):
        create(client, name, "rate(10 minutes)")
    listed = [w.schedule_name for w in emu.pending()]
    played = [a.schedule_name for a in emu.clock.advance_to_next()]
    assert listed == played
