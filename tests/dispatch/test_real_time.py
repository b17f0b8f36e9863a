"""Real-time mode: a dispatcher thread delivers as wall-clock time passes."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import ClockError
from tests.constants import QUEUE, ROLE


def at_expression(when: datetime) -> str:
    return "at(" + when.strftime("%Y-%m-%dT%H:%M:%S") + ")"


def test_at_one_second_ahead_fires_within_two_seconds() -> None:
    with Emulator(clock="real", tick_interval=10) as emu:
        fire_at = (datetime.now(timezone.utc) + timedelta(seconds=1)).replace(microsecond=0)
        fire_at += timedelta(seconds=1)
        created = time.monotonic()
        emu.client().create_schedule(
            Name="soon",
            ScheduleExpression=at_expression(fire_at),
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        deadline = created + 4
        while not emu.deliveries() and time.monotonic() < deadline:
            time.sleep(0.02)
        (delivery,) = emu.deliveries()
        assert delivery.scheduled_time == fire_at
        lateness = (delivery.attempted_at - fire_at).total_seconds()
        assert 0 <= lateness < 2


def test_real_clock_cannot_be_moved() -> None:
    with Emulator(clock="real") as emu:
        with pytest.raises(ClockError, match="real time"):
            emu.clock.advance(hours=1)
        with pytest.raises(ClockError):
            emu.clock.move_to("2100-01-01T00:00:00Z")


def test_real_clock_refuses_a_start() -> None:
    with pytest.raises(ValueError, match="drop start"):
        Emulator(clock="real", start="2030-01-01T00:00:00Z")


def test_slow_target_does_not_delay_others_and_stop_joins_every_thread() -> None:
    release = threading.Event()
    fast_done = threading.Event()
    slow = "arn:aws:sqs:us-east-1:123456789012:slow"
    before = set(threading.enumerate())
    emu = Emulator(clock="real", tick_interval=0.5).start()
    try:
        emu.target(slow).handle(lambda attempt: release.wait(5))
        emu.target(QUEUE).handle(lambda attempt: fast_done.set())
        client = emu.client()
        past = "at(2020-01-01T00:00:00)"
        for name, arn in (("slow", slow), ("fast", QUEUE)):
            client.create_schedule(
                Name=name,
                ScheduleExpression=past,
                FlexibleTimeWindow={"Mode": "OFF"},
                Target={"Arn": arn, "RoleArn": ROLE},
            )
        assert fast_done.wait(3), "the fast target waited for the slow one"
        release.set()
    finally:
        release.set()
        emu.stop()
    leftover = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert leftover == []
