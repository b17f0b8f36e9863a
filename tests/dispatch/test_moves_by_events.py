"""Moving the clock by what happens: advance_to_next, run_until and run_until_idle."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import ClockError, ClockTimeout, DeliveryError, Emulator, HandlerError
from tests.constants import DLQ, FUNCTION, QUEUE, T0
from tests.helpers import create


def at(offset: timedelta) -> str:
    return f"at({(T0 + offset).strftime('%Y-%m-%dT%H:%M:%S')})"


# -- advance_to_next -------------------------------------------------------------------------


def test_next_moves_to_the_next_occurrence_and_makes_its_attempt(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)")
    create(client, "later", at(timedelta(minutes=90)))
    first = emu.clock.advance_to_next()
    assert emu.clock.now() == T0
    assert [a.schedule_name for a in first] == ["hourly"]
    second = emu.clock.advance_to_next()
    assert emu.clock.now() == T0 + timedelta(hours=1)
    assert [a.schedule_name for a in second] == ["hourly"]
    third = emu.clock.advance_to_next()
    assert emu.clock.now() == T0 + timedelta(minutes=90)
    assert [a.schedule_name for a in third] == ["later"]


def test_next_steps_through_the_retries_of_a_failing_target(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(
        client,
        "once",
        at(timedelta(0)),
        target={"RetryPolicy": {"MaximumRetryAttempts": 3}, "DeadLetterConfig": {"Arn": DLQ}},
    )
    made = emu.clock.advance_to_next(4)
    assert [a.attempt_number for a in made] == [1, 2, 3, 4]
    # The retry ladder: 60, 120 and 240 seconds apart.
    assert emu.clock.now() == T0 + timedelta(seconds=60 + 120 + 240)
    assert made.attempts_made == 4


def test_next_stops_at_the_end_of_a_flexible_window(emu: Emulator, client: Any) -> None:
    create(
        client,
        "flexible",
        at(timedelta(0)),
        window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
    )
    assert emu.clock.advance_to_next() == []  # the occurrence falls due; its window opens
    (attempt,) = emu.clock.advance_to_next()
    assert emu.clock.now() == attempt.attempted_at
    assert T0 <= attempt.attempted_at < T0 + timedelta(minutes=15)


def test_next_with_nothing_pending_raises_and_stays(emu: Emulator) -> None:
    with pytest.raises(ClockError, match=r"Nothing is pending.*no step was made"):
        emu.clock.advance_to_next()
    assert emu.clock.now() == T0


def test_next_keeps_the_steps_it_made_before_running_out(emu: Emulator, client: Any) -> None:
    create(client, "once", at(timedelta(minutes=5)))
    with pytest.raises(ClockError, match="1 of 3 steps were made"):
        emu.clock.advance_to_next(3)
    assert emu.clock.now() == T0 + timedelta(minutes=5)
    assert len(emu.deliveries()) == 1


@pytest.mark.parametrize("n", [0, -1, 1.5, True])
def test_next_refuses_a_number_of_steps_that_is_not_a_positive_whole_number(
    emu: Emulator, n: Any
) -> None:
    with pytest.raises(ValueError, match="Unsupported number of steps"):
        emu.clock.advance_to_next(n)


def test_next_ends_where_a_move_to_the_same_instant_ends(client: Any, emu: Emulator) -> None:
    create(client, "a", "rate(7 minutes)")
    create(client, "b", "rate(11 minutes)")
    stepped = emu.clock.advance_to_next(5)
    instants = [a.attempted_at for a in stepped]
    with Emulator(start=T0) as other:
        create(other.client(), "a", "rate(7 minutes)")
        create(other.client(), "b", "rate(11 minutes)")
        moved = other.clock.move_to(emu.clock.now())
    assert [a.attempted_at for a in moved] == instants
    assert [a.event_id for a in moved] == [a.event_id for a in stepped]


# -- run_until -------------------------------------------------------------------------------


def test_run_until_stops_at_the_event_that_makes_the_predicate_true(
    emu: Emulator, client: Any
) -> None:
    create(client, "quarter", "rate(15 minutes)")
    made = emu.clock.run_until(lambda: len(emu.deliveries()) == 3, within=timedelta(days=1))
    assert emu.clock.now() == T0 + timedelta(minutes=30)
    assert len(made) == 3


def test_run_until_a_true_predicate_moves_nothing(emu: Emulator, client: Any) -> None:
    create(client, "quarter", "rate(15 minutes)")
    assert emu.clock.run_until(lambda: True, within=60) == []
    assert emu.clock.now() == T0


def test_run_until_names_a_lambda_within_and_the_clock_when_it_runs_out(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)")
    with pytest.raises(ClockTimeout) as raised:
        emu.clock.run_until(lambda: len(emu.deliveries()) > 5, within=timedelta(hours=2))
    message = str(raised.value)
    assert "len(emu.deliveries()) > 5" in message
    assert "within=datetime.timedelta(seconds=7200)" in message
    assert "2026-03-01T10:00:00+00:00 to 2026-03-01T12:00:00+00:00" in message
    assert "3 attempts" in message
    assert "the next work is due at 2026-03-01T13:00:00+00:00" in message
    # The clock went as far as within allowed, and no further.
    assert emu.clock.now() == T0 + timedelta(hours=2)
    assert isinstance(raised.value, AssertionError)


def test_run_until_names_a_function_by_its_name(emu: Emulator) -> None:
    def order_was_shipped() -> bool:
        return False

    with pytest.raises(
        ClockTimeout, match=r"order_was_shipped\(\) was still false .*nothing is pending"
    ):
        emu.clock.run_until(order_was_shipped, within=30)
    assert emu.clock.now() == T0 + timedelta(seconds=30)


def test_run_until_refuses_a_negative_or_odd_within(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="negative"):
        emu.clock.run_until(lambda: True, within=-1)
    with pytest.raises(TypeError, match="Unsupported within='1h'"):
        emu.clock.run_until(lambda: True, within="1h")  # type: ignore[arg-type]


# -- run_until_idle --------------------------------------------------------------------------


def test_idle_after_a_retry_ladder_and_its_dead_letter(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, "hourly", "rate(1 hour)", target={"Arn": FUNCTION})
    create(client, "once", at(timedelta(0)), target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.run_until_idle(within=timedelta(days=2))
    (letter,) = emu.dead_letters(DLQ)
    assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumEventAgeInSeconds"
    # It stops where the last one-time work was done: the last retry, which sent the letter.
    assert emu.clock.now() == letter.sent_at == T0 + timedelta(seconds=61380)
    # The recurring schedule played on the way, and is not waited for.
    assert len(emu.deliveries(FUNCTION)) == 18
    assert [w.kind for w in emu.pending()] == ["occurrence"]


def test_idle_waits_for_a_deletion_after_completion(emu: Emulator, client: Any) -> None:
    create(
        client,
        "ending",
        "rate(1 hour)",
        EndDate=T0 + timedelta(hours=2, minutes=30),
        ActionAfterCompletion="DELETE",
    )
    create(client, "once", at(timedelta(minutes=10)), ActionAfterCompletion="DELETE")
    emu.clock.run_until_idle(within=timedelta(days=1))
    assert emu.schedules() == []
    assert len(emu.activity("auto_deleted")) == 2
    # The recurring schedule's last occurrence, at noon, completed it.
    assert emu.clock.now() == T0 + timedelta(hours=2)
    assert emu.pending() == []


def test_idle_when_only_recurring_schedules_remain_moves_nothing(
    emu: Emulator, client: Any
) -> None:
    create(client, "hourly", "rate(1 hour)")
    assert emu.clock.run_until_idle(within=60) == []
    assert emu.clock.now() == T0


def test_idle_names_what_is_still_pending_when_within_runs_out(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, "once", at(timedelta(0)))
    with pytest.raises(ClockTimeout) as raised:
        emu.clock.run_until_idle(within=timedelta(minutes=5))
    message = str(raised.value)
    assert "within=datetime.timedelta(seconds=300)" in message
    assert "retry of default/once (attempt 4) at 2026-03-01T10:07:00+00:00" in message
    assert emu.clock.now() == T0 + timedelta(minutes=5)


def test_idle_stops_on_a_handler_error_at_its_attempt(emu: Emulator, client: Any) -> None:
    def broken(attempt: Any) -> None:
        if attempt.attempt_number == 1:
            raise DeliveryError("not now")
        raise KeyError("bug")

    emu.target(QUEUE).handle(broken)
    create(client, "once", at(timedelta(0)))
    with pytest.raises(HandlerError, match="KeyError"):
        emu.clock.run_until_idle(within=timedelta(days=1))
    assert emu.clock.now() == T0 + timedelta(minutes=1)


@pytest.mark.parametrize(
    "verb",
    [
        lambda clock: clock.advance_to_next(),
        lambda clock: clock.run_until(lambda: True, within=1),
        lambda clock: clock.run_until_idle(within=1),
    ],
    ids=["advance_to_next", "run_until", "run_until_idle"],
)
def test_a_real_time_clock_refuses_every_move_by_events(verb: Any) -> None:
    real = Emulator(clock="real")
    try:
        with pytest.raises(ClockError, match="real time"):
            verb(real.clock)
    finally:
        real.stop()
