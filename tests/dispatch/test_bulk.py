"""Long stretches played in bulk give exactly what item-by-item dispatch gives."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_schedemu import Emulator
from tests.constants import FUNCTION, QUEUE, ROLE
from tests.helpers import examples

#: Eleven hours before New York's clocks go forward (8 March, 07:00 UTC): the stretches
#: played cross the gap.
EVE_OF_THE_CLOCK_CHANGE = datetime(2026, 3, 7, 20, 0, tzinfo=timezone.utc)

EXPRESSIONS = st.sampled_from(
    [
        "rate(1 minute)",
        "rate(7 minutes)",
        "rate(1 hour)",
        "rate(2 days)",
        "cron(*/5 * * * ? *)",
        "cron(30 2 * * ? *)",
        "cron(0 * * * ? *)",
        "cron(0 9 ? * MON-FRI *)",
        "cron(15 10 L * ? *)",
        "at(2026-03-08T02:30:00)",
        "at(2026-03-09T00:00:00)",
        "at(2020-01-01T00:00:00)",
    ]
)
SCHEDULE = st.fixed_dictionaries(
    {
        "expression": EXPRESSIONS,
        "zone": st.sampled_from(["UTC", "America/New_York", "Australia/Lord_Howe"]),
        "window": st.sampled_from([None, 1, 15, 240]),
        "state": st.sampled_from(["ENABLED", "ENABLED", "DISABLED"]),
        "start_after": st.sampled_from([None, 0, 3600, 86400]),
        "end_after": st.sampled_from([None, 7200, 172800]),
        "created_after": st.integers(0, 7200),
        "target": st.sampled_from([QUEUE, FUNCTION]),
    }
)
SCENARIO = st.tuples(
    st.lists(SCHEDULE, min_size=1, max_size=8),
    st.lists(st.integers(1, 4 * 86400), min_size=1, max_size=4),
)


def play(
    schedules: list[dict[str, Any]], steps: list[int], bulk: bool, asynchronous: bool = False
) -> Any:
    with Emulator(start=EVE_OF_THE_CLOCK_CHANGE, transport="inprocess") as emu:
        emu.debug.play_in_bulk_from(0 if bulk else None)
        client = emu.client()
        for index, spec in enumerate(sorted(schedules, key=lambda s: s["created_after"])):
            target = emu.clock.now().replace(tzinfo=timezone.utc)
            emu.clock.move_to(
                max(target, EVE_OF_THE_CLOCK_CHANGE + timedelta(seconds=spec["created_after"]))
            )
            now = emu.clock.now()
            args: dict[str, Any] = {
                "Name": f"s{index}",
                "ScheduleExpression": spec["expression"],
                "ScheduleExpressionTimezone": spec["zone"],
                "State": spec["state"],
                "FlexibleTimeWindow": {"Mode": "OFF"}
                if spec["window"] is None
                else {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": spec["window"]},
                "Target": {"Arn": spec["target"], "RoleArn": ROLE},
            }
            if spec["start_after"] is not None:
                args["StartDate"] = now + timedelta(seconds=spec["start_after"])
            if spec["end_after"] is not None:
                args["EndDate"] = now + timedelta(seconds=spec["end_after"] + 86400)
            client.create_schedule(**args)
        runs_before = emu.debug.bulk_runs
        for step in steps:
            if asynchronous:
                asyncio.run(emu.clock.advance_async(seconds=step))
            else:
                emu.clock.advance(seconds=step)
        runs = emu.debug.bulk_runs - runs_before
        records = [
            (
                a.schedule_arn,
                a.scheduled_time,
                a.attempted_at,
                a.attempt_number,
                a.event_id,
                a.execution_id,
                a.input,
                a.request_text,
            )
            for a in emu.attempts()
        ]
        executions = [
            (e.scheduled_time, e.status, e.first_attempt_due, len(e.attempts))
            for index in range(len(schedules))
            for e in emu.executions(f"s{index}")
        ]
        upcoming = [emu.next_occurrence(f"s{index}") for index in range(len(schedules))]
        # What is still queued must play out the same way too.
        emu.clock.advance(hours=6)
        after = [(a.schedule_arn, a.scheduled_time, a.attempted_at) for a in emu.attempts()]
        return records, executions, upcoming, after, runs


# Each example plays two multi-day scenarios, a second's work: a tenth of the profile's
# number of examples.
@settings(
    max_examples=examples(0.1),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(SCENARIO)
def test_bulk_and_item_by_item_agree(scenario: Any) -> None:
    schedules, steps = scenario
    *bulk, _ = play(schedules, steps, bulk=True)
    *stepwise, stepwise_runs = play(schedules, steps, bulk=False)
    assert stepwise_runs == 0
    assert bulk == stepwise


# An async move plays the same steps as a sync one, in bulk as far as they go.
@settings(
    max_examples=examples(0.03),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(SCENARIO)
def test_async_and_sync_moves_agree(scenario: Any) -> None:
    schedules, steps = scenario
    *made_async, async_runs = play(schedules, steps, bulk=True, asynchronous=True)
    *made_in_sync, sync_runs = play(schedules, steps, bulk=True)
    assert async_runs == sync_runs
    assert made_async == made_in_sync


def test_bulk_is_used_for_a_long_quiet_stretch() -> None:
    schedules = [
        {
            "expression": "rate(1 minute)",
            "zone": "UTC",
            "window": 15,
            "state": "ENABLED",
            "start_after": None,
            "end_after": None,
            "created_after": 0,
            "target": QUEUE,
        }
    ]
    *bulk, runs = play(schedules, [86400], bulk=True)
    *stepwise, _ = play(schedules, [86400], bulk=False)
    assert runs >= 1
    assert bulk == stepwise


def test_a_long_async_move_plays_in_bulk_what_item_by_item_play_makes() -> None:
    schedules = [
        {
            "expression": expression,
            "zone": "America/New_York",
            "window": window,
            "state": "ENABLED",
            "start_after": None,
            "end_after": None,
            "created_after": created_after,
            "target": QUEUE,
        }
        for expression, window, created_after in (
            ("rate(1 minute)", None, 0),
            ("cron(*/5 * * * ? *)", 15, 90),
            ("cron(30 2 * * ? *)", None, 600),
        )
    ]
    *in_bulk, runs = play(schedules, [3 * 86400], bulk=True, asynchronous=True)
    *stepwise, _ = play(schedules, [3 * 86400], bulk=False)
    assert runs > 1
    assert in_bulk == stepwise


def test_a_handler_a_task_registers_during_an_async_move_in_bulk_sees_every_later_attempt() -> None:
    with Emulator(start=EVE_OF_THE_CLOCK_CHANGE, transport="inprocess") as emu:
        emu.debug.play_in_bulk_from(0)
        emu.client().create_schedule(
            Name="s",
            ScheduleExpression="rate(1 minute)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        handled: list[datetime] = []

        async def application() -> None:
            # Its first turn comes after the move's first step, a slice played in bulk.
            emu.target(QUEUE).handle(lambda attempt: handled.append(attempt.scheduled_time))

        async def scenario() -> None:
            task = asyncio.create_task(application())
            await emu.clock.advance_async(days=1)
            await task

        asyncio.run(scenario())
        assert emu.debug.bulk_runs == 1
        made = [attempt.scheduled_time for attempt in emu.attempts()]
        assert len(made) == 24 * 60 + 1  # both ends of the day
        assert handled == made[-len(handled) :]
        assert 0 < len(handled) < len(made)


def test_failures_keep_the_stretch_item_by_item() -> None:
    with Emulator(start=EVE_OF_THE_CLOCK_CHANGE, transport="inprocess") as emu:
        emu.debug.play_in_bulk_from(0)
        emu.target(QUEUE).fail(times=1)
        emu.client().create_schedule(
            Name="s",
            ScheduleExpression="rate(1 hour)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        emu.clock.advance(days=1)
        assert emu.debug.bulk_runs == 0
        assert [a.attempt_number for a in emu.attempts()[:2]] == [1, 2]
