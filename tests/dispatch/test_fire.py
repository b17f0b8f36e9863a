"""emu.fire(): one occurrence of a schedule now, out of its schedule."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import ClockError, Emulator, HandlerError
from tests.constants import DLQ, QUEUE, T0
from tests.helpers import create

INPUT = json.dumps(
    {"at": "<aws.scheduler.scheduled-time>", "try": "<aws.scheduler.attempt-number>"}
)


def test_fire_delivers_now_with_the_context_of_this_instant(emu: Emulator, client: Any) -> None:
    create(client, "daily", "cron(0 9 * * ? *)", target={"Input": INPUT})
    emu.clock.advance(minutes=5, seconds=30)
    attempt = emu.fire("daily")
    assert attempt.succeeded and attempt.fired
    assert attempt.payload == {"at": "2026-03-01T10:05:30Z", "try": "1"}
    assert attempt.attempted_at == T0 + timedelta(minutes=5, seconds=30)
    assert emu.deliveries() == [attempt]


def test_fire_moves_nothing_and_leaves_the_schedules_own_occurrences(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)")
    emu.clock.advance(minutes=10)
    before = emu.next_occurrence("hourly")
    emu.fire("hourly")
    assert emu.clock.now() == T0 + timedelta(minutes=10)
    assert emu.next_occurrence("hourly") == before
    emu.clock.advance(hours=1)
    assert [a.fired for a in emu.deliveries()] == [False, True, False]


def test_a_fired_occurrence_has_ids_of_its_own_at_a_scheduled_instant(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)")
    (scheduled,) = emu.clock.tick()
    first = emu.fire("hourly")
    second = emu.fire("hourly")
    assert scheduled.scheduled_time == first.scheduled_time == second.scheduled_time
    assert len({scheduled.event_id, first.event_id, second.event_id}) == 3
    assert len({scheduled.execution_id, first.execution_id, second.execution_id}) == 3
    # Listed among the executions, marked.
    assert [e.fired for e in emu.executions("hourly")] == [False, True, True]


def test_fired_ids_are_the_same_on_every_run(client: Any, emu: Emulator) -> None:
    create(client, "hourly", "rate(1 hour)")
    ids = (emu.fire("hourly").event_id, emu.fire("hourly").execution_id)
    with Emulator(start=T0) as other:
        create(other.client(), "hourly", "rate(1 hour)")
        assert (other.fire("hourly").event_id, other.fire("hourly").execution_id) == ids


def test_a_failed_fire_retries_on_the_clock_and_sends_its_dead_letter(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).fail()
    create(
        client,
        "monthly",
        "cron(0 0 1 * ? *)",
        target={"RetryPolicy": {"MaximumRetryAttempts": 2}, "DeadLetterConfig": {"Arn": DLQ}},
    )
    emu.clock.advance(hours=1)
    first = emu.fire("monthly")
    assert not first.succeeded
    (retry, *_) = emu.pending()
    assert (retry.kind, retry.attempt_number, retry.fired) == ("retry", 2, True)
    emu.clock.run_until_idle(within=timedelta(hours=1))
    assert [a.attempt_number for a in emu.attempts("monthly")] == [1, 2, 3]
    (letter,) = emu.dead_letters(DLQ)
    assert letter.attributes["EXECUTION_ID"] == emu.attempts("monthly")[-1].execution_id
    assert letter.scheduled_time == T0 + timedelta(hours=1)


def test_a_disabled_schedule_fires_when_asked(emu: Emulator, client: Any) -> None:
    create(client, "paused", "rate(1 hour)", State="DISABLED")
    assert emu.fire("paused").succeeded
    assert emu.pending() == []  # still disabled: nothing of its own is planned


def test_fire_finds_a_schedule_by_group_or_arn(emu: Emulator, client: Any) -> None:
    client.create_schedule_group(Name="team")
    arn = create(client, "job", "rate(1 day)", GroupName="team")
    assert emu.fire("job", group="team").schedule_arn == arn
    assert emu.fire(arn).schedule_arn == arn


def test_fire_refuses_unknown_and_deleted_schedules(emu: Emulator, client: Any) -> None:
    create(client, "daily", "rate(1 day)")
    with pytest.raises(LookupError, match=r"No schedule 'dialy' ever existed.*daily"):
        emu.fire("dialy")
    with pytest.raises(LookupError, match="No schedule group 'nope'"):
        emu.fire("daily", group="nope")
    client.delete_schedule(Name="daily")
    with pytest.raises(LookupError, match="does not exist now"):
        emu.fire("daily")


def test_a_handler_bug_during_a_fire_is_raised_to_the_test(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).handle(lambda attempt: 1 / 0)
    create(client, "daily", "rate(1 day)", State="DISABLED")
    with pytest.raises(HandlerError, match="ZeroDivisionError"):
        emu.fire("daily")
    (attempt,) = emu.attempts()
    assert attempt.error_code == "HandlerError" and attempt.fired


def test_the_timeline_draws_a_fired_attempt(emu: Emulator, client: Any) -> None:
    create(client, "daily", "rate(1 day)", State="DISABLED")
    emu.fire("daily")
    page = emu.timeline().read_text()
    assert "Attempt 1" in page and "fired by the test" in page


def test_fire_is_refused_by_a_real_time_clock() -> None:
    with Emulator(clock="real", transport="inprocess") as real:
        create(real.client(), "daily", "rate(1 day)")
        with pytest.raises(ClockError, match="virtual clock"):
            real.fire("daily")
