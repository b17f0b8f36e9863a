"""A clock move keeps (and returns) the newest ``max_records`` of its attempts, counts all
it made, and answers both over the control API."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import DispatchLimitExceeded
from tests.constants import QUEUE, ROLE, START

#: Two days of a per-minute schedule: its first occurrence is at the start.
TWO_DAYS = 2 * 1440 + 1


def every_minute(emu: Emulator, name: str = "m", **target: Any) -> None:
    emu.client().create_schedule(
        Name=name,
        ScheduleExpression="rate(1 minute)",
        FlexibleTimeWindow=target.pop("window", {"Mode": "OFF"}),
        Target={"Arn": QUEUE, "RoleArn": ROLE, **target},
    )


@pytest.mark.parametrize("bulk", [True, False], ids=["in bulk", "item by item"])
def test_a_move_returns_the_newest_it_kept_and_counts_all_it_made(bulk: bool) -> None:
    with Emulator(start=START, max_records=100) as emu:
        if not bulk:
            emu.debug.play_in_bulk_from(None)
        every_minute(emu)
        made = emu.clock.advance(days=2)
        assert made.attempts_made == TWO_DAYS
        assert len(made) == 100
        # The history drops its oldest twentieth at once, so it may keep a few fewer.
        history = emu.attempts()
        assert made[-len(history) :] == history
        assert made[-1].scheduled_time.isoformat() == "2026-03-03T10:00:00+00:00"
        assert (emu.debug.bulk_runs > 0) is bulk


def test_a_long_move_in_bulk_matches_item_by_item_play_across_its_slices() -> None:
    # A flexible window leaves first attempts queued across the slices' boundaries.
    def play(bulk: bool) -> list[tuple[Any, ...]]:
        # Compares every attempt of 115,195: more than the default keeps.
        with Emulator(start=START, max_records=None) as emu:
            emu.debug.play_in_bulk_from(0 if bulk else None)
            every_minute(emu, "flexible", window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15})
            every_minute(emu, "plain")
            made = emu.clock.advance(days=40)
            assert made.attempts_made == len(made)
            assert (emu.debug.bulk_runs > 1) is bulk
            return [(a.schedule_name, a.scheduled_time, a.attempted_at) for a in made]

    assert play(bulk=True) == play(bulk=False)


def test_the_dispatch_limit_counts_every_attempt_made_in_bulk() -> None:
    with Emulator(start=START, max_records=10, max_attempts_per_advance=100_000) as emu:
        every_minute(emu)
        with pytest.raises(DispatchLimitExceeded, match="100001 attempts"):
            emu.clock.advance(days=365)


def test_the_control_api_answers_attempts_made_beside_those_kept() -> None:
    with Emulator(start=START, max_records=100, transport="http") as emu:
        every_minute(emu)
        request = urllib.request.Request(
            emu.endpoint_url + "/_schedemu/clock/advance?limit=5",
            data=b'{"days": 2}',
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            body = json.loads(response.read())
    assert body["attempts_made"] == TWO_DAYS
    assert body["attempt_count"] == 100
    assert len(body["attempts"]) == 5 and body["truncated"] is True
