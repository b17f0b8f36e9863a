"""Event ids and execution ids of their own: each incarnation of a schedule, a namesake
created again included, gives its invocations ids no other invocation has, the same on
every run with the same seed and after a restart (§5.6, ``docs/design.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, START
from tests.helpers import create

#: A schedule whose only occurrence is the instant the clock starts at.
NOW = "at(2026-03-01T10:00:00)"
DEAD_LETTERS = {"DeadLetterConfig": {"Arn": DLQ}, "RetryPolicy": {"MaximumRetryAttempts": 0}}


def fire_twice_at_one_instant(emu: Emulator) -> list[Any]:
    """The attempts of a schedule and of its namesake, deleted and created again at the
    instant its occurrence fired: the namesake's occurrence fires too, being new."""
    client = emu.client()
    emu.target(QUEUE).fail(retryable=False)
    create(client, expression=NOW, target=DEAD_LETTERS)
    emu.clock.advance(seconds=0)
    client.delete_schedule(Name="s1")
    create(client, expression=NOW, target=DEAD_LETTERS)
    emu.clock.advance(seconds=0)
    attempts = emu.attempts(schedule="s1")
    assert len(attempts) == 2
    return attempts


def test_a_namesake_created_again_at_the_same_instant_has_ids_of_its_own(emu: Emulator) -> None:
    first, second = fire_twice_at_one_instant(emu)
    assert first.scheduled_time == second.scheduled_time
    assert first.event_id != second.event_id
    assert first.execution_id != second.execution_id
    assert second.payload["id"] == second.event_id


def test_its_dead_letter_carries_its_own_execution_id(emu: Emulator) -> None:
    attempts = fire_twice_at_one_instant(emu)
    letters = emu.dead_letters()
    assert [letter.attributes["EXECUTION_ID"] for letter in letters] == [
        attempt.execution_id for attempt in attempts
    ]
    assert len({letter.attributes["EXECUTION_ID"] for letter in letters}) == 2


def ids(seed: int) -> list[tuple[str, str]]:
    with Emulator(start=START, seed=seed, transport="inprocess") as emu:
        return [(a.event_id, a.execution_id) for a in fire_twice_at_one_instant(emu)]


def test_the_same_seed_gives_the_same_ids_in_two_emulators() -> None:
    assert ids(3) == ids(3)


def test_another_seed_keeps_the_event_ids_and_changes_the_execution_ids() -> None:
    (event_3, execution_3), _ = ids(3)
    (event_4, execution_4), _ = ids(4)
    assert event_3 == event_4
    assert execution_3 != execution_4


def test_a_restart_keeps_every_id(tmp_path: Path) -> None:
    path = str(tmp_path / "state.db")
    options: dict[str, Any] = {"start": START, "seed": 3, "transport": "inprocess"}
    emu = Emulator(state=path, **options).start()
    try:
        first, second = fire_twice_at_one_instant(emu)
        create(emu.client(), "hourly", target={"Arn": FUNCTION})
        emu.target(FUNCTION).fail(times=1)
        # The hourly schedule's first occurrence fails, and is retrying across the restart.
        emu.clock.advance(seconds=30)
        before = [(a.event_id, a.execution_id) for a in emu.attempts()]
        executions = [e.event_id for e in emu.executions("s1") + emu.executions("hourly")]
    finally:
        emu.stop()
    with Emulator(state=path, **options) as restarted:
        assert [(a.event_id, a.execution_id) for a in restarted.attempts()] == before
        assert [
            e.event_id for e in restarted.executions("s1") + restarted.executions("hourly")
        ] == executions
        restarted.clock.advance(minutes=2)
        failed, retried = restarted.attempts(schedule="hourly")
    assert (failed.attempt_number, retried.attempt_number) == (1, 2)
    assert failed.event_id == retried.event_id
    assert first.event_id != second.event_id
