"""The emulator's own records, as they are, draw the picture."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.timeline import TimelineData, render_timeline_html, render_timeline_svg
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE

from .records import find, lane, parse, title


@pytest.fixture(scope="module")
def run() -> Iterator[TimelineData]:
    with Emulator(start="2026-03-07T12:00:00Z", transport="inprocess") as emu:
        client = emu.client()
        client.create_schedule(
            Name="charge",
            ScheduleExpression="rate(6 hours)",
            FlexibleTimeWindow={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 30},
            Target={
                "Arn": FUNCTION,
                "RoleArn": ROLE,
                "Input": '{"invoice": 7}',
                "RetryPolicy": {"MaximumRetryAttempts": 2},
                "DeadLetterConfig": {"Arn": DLQ},
            },
        )
        client.create_schedule(
            Name="morning",
            ScheduleExpression="cron(0 9 * * ? *)",
            ScheduleExpressionTimezone="America/New_York",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        emu.target(FUNCTION).fail(times=3, error_code="ThrottlingException")
        emu.clock.advance(days=2)
        executions = [e for s in emu.schedules() for e in emu.executions(s.arn)]
        yield TimelineData(
            emu.schedules(), executions, emu.activity(), emu.dead_letters(), emu.clock.now()
        )


def test_every_real_attempt_is_drawn_alone_or_in_a_bin(run: TimelineData) -> None:
    root = parse(render_timeline_svg(run))
    charge = lane(root, run.schedules[0].arn)
    binned = sum(int(title(b).split(" attempt")[0].split()[-1]) for b in find(charge, "bin"))
    attempts = [a for e in run.executions for a in e.attempts if "charge" in a.schedule_arn]
    assert len(find(charge, "attempt")) + binned == len(attempts) == 3 + 7


def test_zoomed_in_the_retries_part_and_the_dead_letter_rings_the_last(
    run: TimelineData,
) -> None:
    first = run.executions[0].scheduled_time
    zoomed = run.filtered(schedule="charge", since=first, until=first + timedelta(hours=1))
    marks = find(lane(parse(render_timeline_svg(zoomed)), run.schedules[0].arn), "attempt")
    assert [m.get("class") for m in marks] == [
        "attempt failed-retryable",
        "attempt failed-retryable",
        "attempt failed-retryable ends-dead-lettered",
    ]
    ringed = marks[-1]
    assert DLQ in title(ringed)
    assert "Attempt 3" in title(ringed) and '"invoice": 7' in title(ringed)


def test_real_flexible_offsets_are_drawn(run: TimelineData) -> None:
    root = parse(render_timeline_svg(run))
    charge = lane(root, run.schedules[0].arn)
    offsets = [e for e in run.executions if e.first_attempt_due != e.scheduled_time]
    assert offsets
    assert len(find(charge, "flex-offset")) == len(offsets)


def test_the_new_york_lane_shows_its_mornings_at_nine_local(run: TimelineData) -> None:
    root = parse(render_timeline_html(run).split("\n", 1)[1])
    morning = lane(root, run.schedules[1].arn)
    words = [title(m) for m in find(morning, "attempt")]
    assert words and all("09:00:00 E" in w for w in words)
