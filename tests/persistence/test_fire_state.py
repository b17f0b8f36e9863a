"""``emu.fire`` and ``emu.fire_rule`` with a state file: a fired occurrence is kept apart
from a scheduled one at the same instant and from the other fires, and its retries survive a
crash."""

from __future__ import annotations

import contextlib
import sqlite3

from pytest_schedemu import Emulator
from tests.constants import FUNCTION, START
from tests.helpers import create
from tests.persistence.lives import Lives, records


def fire_beside_the_schedule(emu: Emulator) -> None:
    create(emu.client(), "hourly", "rate(1 hour)", target={"Arn": FUNCTION})
    emu.target(FUNCTION).fail(times=1)
    emu.clock.tick()  # the 10:00 occurrence fails once: it retries a minute later
    emu.fire("hourly")  # at 10:00 too, and retried on its own
    emu.fire("hourly")


def test_fired_occurrences_are_kept_apart_from_the_scheduled_one_at_their_instant(
    lives: Lives,
) -> None:
    emu = lives.open()
    fire_beside_the_schedule(emu)
    before = records(emu)
    emu = lives.restart()
    assert records(emu) == before
    executions = emu.executions("hourly")
    assert [(e.fired, e.status) for e in executions] == [
        (False, "retrying"),
        (True, "success"),
        (True, "success"),
    ]
    assert len({e.event_id for e in executions}) == 3
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        keys = database.execute("SELECT nominal, fired FROM occurrences ORDER BY seq").fetchall()
        assert [fired for _, fired in keys] == [0, 1, 2] and len({n for n, _ in keys}) == 1
    # A fire after the restart takes the next number, so ids no fire before it had.
    third = emu.fire("hourly")
    assert third.event_id not in {e.event_id for e in executions}
    emu.clock.advance(minutes=1)
    assert [(a.fired, a.attempt_number) for a in emu.attempts()][-2:] == [(True, 1), (False, 2)]


def test_a_fired_occurrences_retry_pending_at_a_crash_resumes(lives: Lives) -> None:
    with Emulator(start=START, transport="inprocess") as twin:
        create(twin.client(), "hourly", "rate(1 hour)", target={"Arn": FUNCTION})
        twin.clock.advance(minutes=30)
        twin.target(FUNCTION).fail(times=1)
        twin.fire("hourly")
        twin.clock.advance(minutes=40)
        expected = records(twin)
    emu = lives.open()
    create(emu.client(), "hourly", "rate(1 hour)", target={"Arn": FUNCTION})
    emu.clock.advance(minutes=30)
    emu.target(FUNCTION).fail(times=1)
    emu.fire("hourly")
    emu = lives.crash()
    (retry,) = [work for work in emu.pending() if work.kind == "retry"]
    assert (retry.fired, retry.attempt_number) == (True, 2)
    emu.clock.advance(minutes=40)
    assert records(emu) == expected


def test_a_fired_rule_and_its_count_of_fires_survive_a_restart(lives: Lives) -> None:
    emu = lives.open()
    events = emu.client("events")
    events.put_rule(Name="hourly", ScheduleExpression="rate(1 hour)")
    events.put_targets(
        Rule="hourly", Targets=[{"Id": "a", "Arn": FUNCTION}, {"Id": "b", "Arn": FUNCTION}]
    )
    first = emu.fire_rule("hourly")
    emu.fire_rule("hourly", "b")
    before = records(emu)
    emu = lives.restart()
    assert records(emu) == before
    executions = emu.executions(rule="hourly")
    assert [(e.target_id, e.fired) for e in executions] == [("a", True), ("b", True), ("b", True)]
    # The next fire takes a number no fire before the restart had, for both targets.
    again = emu.fire_rule("hourly")
    assert again[0].event_id == again[1].event_id
    assert again[0].event_id not in {e.event_id for e in executions}
    assert first[0].event_id == first[1].event_id
