"""Async moves: ``advance_async``, ``move_to_async`` and ``tick_async`` play what the sync
moves play, and let the running loop's tasks run between work items."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator, HandlerError
from pytest_schedemu.errors import ClockError
from tests.constants import FUNCTION, QUEUE, T0
from tests.helpers import create


def _story(emu: Emulator) -> None:
    client = emu.client()
    create(client, "hourly", expression="rate(1 hour)")
    create(client, "daily", expression="cron(30 10 * * ? *)", target={"Arn": FUNCTION})
    emu.target(FUNCTION).fail(times=2)


def _made(attempts: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (
            a.schedule_name,
            a.scheduled_time,
            a.attempted_at,
            a.attempt_number,
            a.succeeded,
            a.event_id,
            a.execution_id,
        )
        for a in attempts
    ]


def test_an_async_move_makes_and_returns_what_the_sync_move_does() -> None:
    with Emulator(start=T0) as sync_emu, Emulator(start=T0) as async_emu:
        _story(sync_emu)
        _story(async_emu)
        made_in_sync = sync_emu.clock.advance(hours=3)
        made_async = asyncio.run(async_emu.clock.advance_async(hours=3))
        assert _made(made_async) == _made(made_in_sync)
        assert made_async.attempts_made == made_in_sync.attempts_made
        assert _made(async_emu.attempts()) == _made(sync_emu.attempts())
        assert async_emu.clock.now() == sync_emu.clock.now() == T0 + timedelta(hours=3)


def test_an_application_task_takes_a_turn_after_each_work_item(emu: Emulator, client: Any) -> None:
    create(client, "first", expression="rate(1 hour)")
    create(client, "second", expression="rate(1 hour)")

    async def scenario() -> list[tuple[str, datetime, int]]:
        delivered: asyncio.Queue[Any] = asyncio.Queue()
        seen: list[tuple[str, datetime, int]] = []

        async def application() -> None:
            while True:
                attempt = await delivered.get()
                # What the application sees when its turn comes: the clock still at the
                # attempt's instant, and no later attempt made yet.
                seen.append((attempt.schedule_name, emu.clock.now(), len(emu.attempts())))

        async def handler(attempt: Any) -> None:
            await delivered.put(attempt)

        emu.target(QUEUE).handle(handler)
        task = asyncio.create_task(application())
        await emu.clock.advance_async(hours=1)
        task.cancel()
        return seen

    later = T0 + timedelta(hours=1)
    assert asyncio.run(scenario()) == [
        ("first", T0, 1),
        ("second", T0, 2),
        ("first", later, 3),
        ("second", later, 4),
    ]


def test_a_coroutine_handler_of_an_async_move_is_awaited_in_the_running_loop(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="rate(1 hour)")
    handled: list[asyncio.AbstractEventLoop] = []

    async def handler(attempt: Any) -> None:
        handled.append(asyncio.get_running_loop())

    async def scenario() -> asyncio.AbstractEventLoop:
        await emu.clock.advance_async(hours=1)
        return asyncio.get_running_loop()

    emu.target(QUEUE).handle(handler)
    loop = asyncio.run(scenario())
    assert handled == [loop, loop]


def test_a_handler_returning_an_awaitable_has_it_awaited(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")

    async def scenario() -> int:
        delivered: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)
        emu.target(QUEUE).handle(lambda attempt: delivered.put(attempt))
        await emu.clock.tick_async()
        return delivered.qsize()

    assert asyncio.run(scenario()) == 1


def test_move_to_async_and_tick_async_play_up_to_their_instant(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")

    async def scenario() -> tuple[int, int]:
        moved = await emu.clock.move_to_async("2026-03-01T12:30:00Z")
        ticked = await emu.clock.tick_async()
        return len(moved), len(ticked)

    assert asyncio.run(scenario()) == (3, 0)
    assert emu.clock.now() == T0 + timedelta(hours=2, minutes=30)
    with pytest.raises(ValueError, match="Cannot move the clock back"):
        asyncio.run(emu.clock.move_to_async(T0))
    with pytest.raises(ValueError, match="negative amount"):
        asyncio.run(emu.clock.advance_async(hours=-1))


def test_no_other_task_may_move_the_clock_while_an_async_move_runs(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="rate(1 hour)")
    refused: list[str] = []

    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)

    async def meddler() -> None:
        for move in (lambda: emu.clock.advance(hours=5), emu.reset):
            try:
                move()
            except ClockError as error:
                refused.append(str(error))
        try:
            await emu.clock.advance_async(hours=5)
        except ClockError as error:
            refused.append(str(error))

    async def scenario() -> None:
        emu.target(QUEUE).handle(handler)
        task = asyncio.create_task(meddler())
        await emu.clock.advance_async(hours=1)
        await task

    asyncio.run(scenario())
    assert len(refused) == 3
    assert all(message.startswith("Cannot move the clock (or reset") for message in refused)
    assert emu.clock.now() == T0 + timedelta(hours=1)
    assert len(emu.attempts()) == 2
    # Once the move is over, the clock is free again.
    asyncio.run(emu.clock.advance_async(hours=1))
    emu.clock.advance(hours=1)
    assert len(emu.attempts()) == 4


def test_a_bug_in_a_handler_stops_an_async_move_at_its_instant(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")

    async def handler(attempt: Any) -> None:
        if attempt.scheduled_time > T0:
            raise KeyError("missing")

    emu.target(QUEUE).handle(handler)
    with pytest.raises(HandlerError, match=r"raised KeyError: 'missing' \(attempt 1"):
        asyncio.run(emu.clock.advance_async(hours=3))
    assert emu.clock.now() == T0 + timedelta(hours=1)
    assert [attempt.error_code for attempt in emu.attempts()] == [None, "HandlerError"]


def test_a_cancelled_async_move_makes_its_attempt_again_on_the_next_move(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="at(2026-03-01T10:00:00)")
    calls: list[int] = []

    async def handler(attempt: Any) -> None:
        calls.append(attempt.attempt_number)
        if len(calls) == 1:
            await asyncio.Event().wait()  # never set: the move is cancelled meanwhile

    async def scenario() -> None:
        move = asyncio.create_task(emu.clock.advance_async(minutes=1))
        while not calls:
            await asyncio.sleep(0)
        move.cancel()
        with pytest.raises(asyncio.CancelledError):
            await move

    emu.target(QUEUE).handle(handler)
    asyncio.run(scenario())
    assert emu.attempts() == []
    assert emu.clock.now() == T0
    emu.clock.tick()
    assert calls == [1, 1]
    assert [attempt.succeeded for attempt in emu.attempts()] == [True]


def test_a_real_clock_refuses_async_moves() -> None:
    with Emulator(clock="real") as emu:
        with pytest.raises(ClockError, match="real time"):
            asyncio.run(emu.clock.advance_async(hours=1))
        with pytest.raises(ClockError, match="real time"):
            asyncio.run(emu.clock.move_to_async("2030-01-01T00:00:00Z"))
        assert asyncio.run(emu.clock.tick_async()) == []


# -- the moves by events, from async code ----------------------------------------------------


def _ladder(emu: Emulator) -> None:
    client = emu.client()
    emu.target(QUEUE).fail(times=3)
    create(client, "hourly", expression="rate(1 hour)", target={"Arn": FUNCTION})
    create(client, "once", expression="at(2026-03-01T10:00:00)")


def test_each_move_by_events_from_async_code_ends_where_its_sync_twin_ends() -> None:
    with Emulator(start=T0) as sync_emu, Emulator(start=T0) as async_emu:
        _ladder(sync_emu)
        _ladder(async_emu)
        for sync_move, async_move in (
            (lambda: sync_emu.clock.advance_to_next(3), async_emu.clock.advance_to_next_async(3)),
            (
                lambda: sync_emu.clock.run_until_idle(within=timedelta(days=1)),
                async_emu.clock.run_until_idle_async(within=timedelta(days=1)),
            ),
        ):
            made_in_sync, made_async = sync_move(), asyncio.run(async_move)
            assert _made(made_async) == _made(made_in_sync)
            assert async_emu.clock.now() == sync_emu.clock.now()
        assert len(async_emu.deliveries(QUEUE)) == 1  # the fourth try delivered
        assert async_emu.pending()[0].kind == "occurrence"  # only the hourly one is left


def test_run_until_async_lets_a_task_make_the_predicate_true(emu: Emulator, client: Any) -> None:
    create(client, "hourly", expression="rate(1 hour)")

    async def scenario() -> datetime:
        seen: list[Any] = []

        async def application() -> None:
            while True:
                await asyncio.sleep(0)
                if len(emu.attempts()) >= 3 and not seen:
                    seen.append(emu.clock.now())

        task = asyncio.create_task(application())
        await emu.clock.run_until_async(lambda: bool(seen), within=timedelta(days=1))
        task.cancel()
        return seen[0]

    # The task notices the third attempt on its turn, and the move stops right there.
    assert asyncio.run(scenario()) == emu.clock.now() == T0 + timedelta(hours=2)


def test_a_real_clock_refuses_the_moves_by_events_from_async_code() -> None:
    with Emulator(clock="real") as emu:
        for move in (
            emu.clock.advance_to_next_async(),
            emu.clock.run_until_async(lambda: True, within=1),
            emu.clock.run_until_idle_async(within=1),
        ):
            with pytest.raises(ClockError, match="real time"):
                asyncio.run(move)
