"""A real-time emulator back after an outage catches up as AWS would: what it missed fires
if still within the retry policy's MaximumEventAgeInSeconds, the rest is dropped.

The five-minute outage does not wait five minutes: the state is written by a virtual
emulator whose clock stands five and a half minutes behind the wall clock, then opened by a
real-time one. To the real-time emulator that is exactly a process that stopped five and a
half minutes ago; restoring does not care which kind of clock wrote the file.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.formats.times import wall_clock_now, ztime
from tests.constants import FUNCTION, QUEUE
from tests.helpers import create, wait_for

OUTAGE = timedelta(seconds=330)


def minutes(values: list[Any], since: Any) -> list[int]:
    return sorted(int((value - since).total_seconds()) // 60 for value in values)


def test_a_five_minute_outage_fires_what_is_young_enough_and_drops_the_rest(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "state.db")
    stopped = wall_clock_now() - OUTAGE
    with Emulator(start=stopped, transport="inprocess", state=path) as before:
        client = before.client()
        young = {"RetryPolicy": {"MaximumEventAgeInSeconds": 120}}
        create(client, "short-lived", "rate(1 minute)", target=young)
        create(client, "long-lived", "rate(1 minute)")
        create(client, "retrying", "rate(1 day)", target={"Arn": FUNCTION})
        create(
            client,
            "retrying-young",
            "rate(1 day)",
            target={"Arn": FUNCTION, "RetryPolicy": {"MaximumEventAgeInSeconds": 60}},
        )
        once = ztime(stopped + timedelta(minutes=2))[:-1]
        create(client, "once", f"at({once})", ActionAfterCompletion="DELETE", target=young)
        before.target(FUNCTION).fail(times=2)
        before.clock.tick()  # each schedule's first occurrence, at the instant it stopped
    assert [a.succeeded for a in before.attempts(target_arn=FUNCTION)] == [False, False]

    with Emulator(clock="real", tick_interval=0.05, transport="inprocess", state=path) as back:
        # Missed while down: minutes 1-5; the retries were due at minute 1.
        wait_for(lambda: len(back.attempts()) >= 2 + 2 + 5 + 2 + 1)
        time.sleep(0.2)
        attempts = {
            name: minutes([a.scheduled_time for a in back.attempts(schedule=name)], stopped)
            for name in ("short-lived", "long-lived", "retrying", "retrying-young")
        }
        dropped = {
            (a.schedule_arn.rsplit("/", 1)[1], int((a.scheduled_time - stopped).total_seconds()))
            for a in back.activity("dropped")
        }
        deleted = [a.schedule_arn for a in back.activity("auto_deleted")]
        schedules = sorted(s.name for s in back.schedules())
        retried = [a.attempt_number for a in back.attempts(schedule="retrying")]
    assert attempts == {
        "short-lived": [0, 4, 5],  # 1, 2 and 3 minutes late are more than 120 s old
        "long-lived": [0, 1, 2, 3, 4, 5],
        "retrying": [0, 0],  # the retry due at minute 1 is made once back
        "retrying-young": [0],  # its retry, 330 s after attempt 1, is older than 60 s
    }
    assert retried == [1, 2]
    assert dropped == {
        ("short-lived", 60),
        ("short-lived", 120),
        ("short-lived", 180),
        ("retrying-young", 0),
        ("once", 120),
    }
    assert deleted == ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/once"]
    assert schedules == ["long-lived", "retrying", "retrying-young", "short-lived"]


def test_a_real_time_restart_delivers_what_fell_due_while_down_exactly_once(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "state.db")
    with Emulator(clock="real", tick_interval=0.05, transport="inprocess", state=path) as emu:
        soon = ztime(wall_clock_now() + timedelta(seconds=3))[:-1]
        create(emu.client(), "soon", f"at({soon})")
        create(emu.client(), "now", f"at({ztime(wall_clock_now())[:-1]})")
        wait_for(lambda: len(emu.attempts(schedule="now")) == 1)
    # "soon" was not due while the first service ran: it falls due while nothing runs.
    assert [a.schedule_name for a in emu.attempts()] == ["now"]
    time.sleep(3.5)
    with Emulator(clock="real", tick_interval=0.05, transport="inprocess", state=path) as back:
        wait_for(lambda: len(back.attempts(schedule="soon")) == 1)
        time.sleep(0.3)
        assert [a.schedule_name for a in back.attempts()] == ["now", "soon"]
        assert back.activity("dropped") == []
        assert back.next_occurrence("soon") is None
    assert QUEUE in {a.target_arn for a in back.attempts()}
