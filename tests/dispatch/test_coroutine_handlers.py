"""A coroutine handler (``async def``) is a handler like any other: awaited, its return
delivers, its DeliveryError fails the attempt, its bug fails the test."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_schedemu import DeliveryError, Emulator, HandlerError
from tests.constants import QUEUE, T0
from tests.helpers import create, wait_for

AT_ONCE = "at(2020-01-01T00:00:00)"  # in the past: fires at once with past_at="fire"


def test_a_coroutine_handler_that_returns_delivers_its_attempt(emu: Emulator, client: Any) -> None:
    awaited: list[datetime] = []

    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)
        awaited.append(attempt.scheduled_time)

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    made = emu.clock.advance(hours=2)
    assert awaited == [T0, T0 + timedelta(hours=1), T0 + timedelta(hours=2)]
    assert [attempt.succeeded for attempt in made] == [True, True, True]


def test_a_coroutine_handler_raising_delivery_error_fails_the_attempt_with_its_outcome(
    emu: Emulator, client: Any
) -> None:
    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)
        if attempt.attempt_number == 1:
            raise DeliveryError("ThrottlingException", "slow down", retryable=True)

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.advance(minutes=5)
    first, retry = emu.attempts()
    assert (first.error_code, first.error_message, first.retryable) == (
        "ThrottlingException",
        "slow down",
        True,
    )
    assert retry.succeeded and retry.attempt_number == 2


def test_a_bug_in_a_coroutine_handler_stops_the_move_with_handler_error(
    emu: Emulator, client: Any
) -> None:
    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)
        undefined_name  # type: ignore[name-defined]  # noqa: B018, F821

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    with pytest.raises(HandlerError) as caught:
        emu.clock.advance(hours=3)
    assert str(caught.value).startswith(
        f"The handler of {QUEUE} raised NameError: name 'undefined_name' is not defined "
        "(attempt 1 of schedule default/s1, scheduled at 2026-03-01T10:00:00Z)."
    )
    assert isinstance(caught.value.__cause__, NameError)
    # The traceback starts in the handler, not in the event loop that awaited it.
    handler_traceback = caught.value.handler_traceback
    assert "in handler\n    undefined_name" in handler_traceback
    assert "asyncio" not in handler_traceback
    assert emu.clock.now() == T0
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.retryable) == ("HandlerError", False)


def test_a_coroutine_handler_cannot_move_the_clock_from_inside_its_delivery(
    emu: Emulator, client: Any
) -> None:
    async def handler(attempt: Any) -> None:
        emu.clock.advance(hours=1)

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)")
    inside = r"raised \S*ClockError: Cannot move the clock from inside a delivery"
    with pytest.raises(HandlerError, match=inside):
        emu.clock.tick()


def test_coroutine_handlers_share_one_loop_so_what_they_keep_stays_usable(
    emu: Emulator, client: Any
) -> None:
    # A queue made in one delivery and used in the next works only in the same loop.
    kept: dict[str, Any] = {}
    loops: set[asyncio.AbstractEventLoop] = set()

    async def handler(attempt: Any) -> None:
        loops.add(asyncio.get_running_loop())
        queue = kept.setdefault("queue", asyncio.Queue())
        await queue.put(attempt.scheduled_time)

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    emu.clock.advance(hours=1)
    emu.clock.advance(hours=1)
    assert len(loops) == 1
    assert kept["queue"].qsize() == 3


def test_a_sync_move_from_async_code_awaits_the_handler_in_the_emulators_own_loop(
    emu: Emulator, client: Any
) -> None:
    handled: list[asyncio.AbstractEventLoop] = []

    async def handler(attempt: Any) -> None:
        handled.append(asyncio.get_running_loop())

    async def test_body() -> asyncio.AbstractEventLoop:
        emu.clock.advance(hours=1)
        return asyncio.get_running_loop()

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    test_loop = asyncio.run(test_body())
    assert len(handled) == 2
    assert test_loop not in handled


def test_stop_cancels_the_tasks_handlers_left_and_ends_the_loops_thread() -> None:
    ended: list[str] = []

    async def linger() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("cancelled")

    # asyncio holds tasks weakly: a task nobody references may be collected while pending
    # (and its coroutine closed), so a handler that starts one keeps it, as asyncio asks.
    started: list[asyncio.Task[None]] = []

    async def handler(attempt: Any) -> None:
        started.append(asyncio.get_running_loop().create_task(linger()))

    def handler_threads() -> set[threading.Thread]:
        return {thread for thread in threading.enumerate() if thread.name == "schedemu-handlers"}

    others = handler_threads()  # the session emulator's, if a test before started it
    with Emulator(start="2026-03-01T10:00:00Z") as emu:
        emu.target(QUEUE).handle(handler)
        create(emu.client(), expression="at(2026-03-01T10:00:00)")
        emu.clock.tick()
        assert len(handler_threads() - others) == 1
        assert ended == []
    assert ended == ["cancelled"]
    assert handler_threads() - others == set()


def test_a_real_time_delivery_awaits_a_coroutine_handler() -> None:
    handled: list[str] = []

    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)
        handled.append(attempt.schedule_name)

    with Emulator(clock="real", tick_interval=0.05) as emu:
        emu.target(QUEUE).handle(handler)
        create(emu.client(), expression=AT_ONCE)
        wait_for(emu.deliveries, "the delivery")
        assert handled == ["s1"]
        assert emu.handler_errors == []


def test_a_real_time_coroutine_handler_bug_is_kept_for_the_test() -> None:
    async def handler(attempt: Any) -> None:
        await asyncio.sleep(0)
        attempt.schedule_name.append("!")

    with Emulator(clock="real", tick_interval=0.05) as emu:
        emu.target(QUEUE).handle(handler)
        create(emu.client(), expression=AT_ONCE)
        wait_for(emu.attempts, "the attempt")
        wait_for(lambda: emu.handler_errors, "the kept bug")
        (kept,) = emu.handler_errors
        assert str(kept).startswith(f"The handler of {QUEUE} raised AttributeError")
        (attempt,) = emu.attempts()
        assert (attempt.error_code, attempt.retryable) == ("HandlerError", False)


# -- the deadline: a handler that does not answer within delivery_timeout --------------------


def handler_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name.startswith("schedemu-h")}


async def never_on_the_first_attempt(attempt: Any) -> None:
    if attempt.attempt_number == 1:
        await asyncio.Event().wait()  # never set


def assert_timed_out_then_retried(emu: Emulator, seconds: str) -> None:
    first, retry = emu.attempts()
    assert (first.error_code, first.retryable) == ("DeliveryTimeout", True)
    assert first.error_message == f"The handler did not answer within {seconds} seconds"
    assert retry.succeeded and retry.attempt_number == 2


def test_a_coroutine_handler_that_never_ends_fails_its_attempt_at_the_delivery_timeout(
    emu: Emulator, client: Any
) -> None:
    emu.configure(delivery_timeout=0.2)
    emu.target(QUEUE).handle(never_on_the_first_attempt)
    create(client, expression="at(2026-03-01T10:00:00)")
    started = time.monotonic()
    emu.clock.advance(minutes=5)
    assert time.monotonic() - started < 3
    # Not a bug of the test's: the attempt fails retryably, and the move carries on.
    assert_timed_out_then_retried(emu, "0.2")
    assert emu.handler_errors == []


def test_an_async_move_awaits_a_coroutine_handler_no_longer_than_the_delivery_timeout(
    emu: Emulator, client: Any
) -> None:
    emu.configure(delivery_timeout=0.2)
    emu.target(QUEUE).handle(never_on_the_first_attempt)
    create(client, expression="at(2026-03-01T10:00:00)")
    started = time.monotonic()
    asyncio.run(emu.clock.advance_async(minutes=5))
    assert time.monotonic() - started < 3
    assert_timed_out_then_retried(emu, "0.2")


def test_a_handler_blocking_the_emulators_loop_cannot_hold_the_move_or_the_stop() -> None:
    async def sleeper(attempt: Any) -> None:
        time.sleep(1.5)  # blocks the loop it is awaited in: nothing can interrupt it

    others = handler_threads()
    with Emulator(start=T0, delivery_timeout=0.2, shutdown_timeout=0.2) as emu:
        emu.target(QUEUE).handle(sleeper)
        create(emu.client(), expression="at(2026-03-01T10:00:00)")
        started = time.monotonic()
        emu.clock.tick()
        assert time.monotonic() - started < 1.2
        (attempt,) = emu.attempts()
        assert attempt.error_code == "DeliveryTimeout"
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 1.0
    # The loop's thread ends as soon as the blocking call returns; it waits for nothing else.
    wait_for(lambda: handler_threads() - others == set(), "the loop's thread to end", 5)


def test_stop_from_another_thread_ends_a_move_waiting_on_a_coroutine_handler() -> None:
    ended: list[BaseException | None] = []
    others = handler_threads()
    emu = Emulator(start=T0, shutdown_timeout=0.2).start()

    def move() -> None:
        try:
            emu.clock.tick()
        except BaseException as error:
            ended.append(error)
        else:
            ended.append(None)

    emu.target(QUEUE).handle(never_on_the_first_attempt)
    create(emu.client(), expression="at(2026-03-01T10:00:00)")
    mover = threading.Thread(target=move)
    mover.start()
    wait_for(lambda: emu.debug.delivering, "the delivery")
    started = time.monotonic()
    emu.stop()
    assert time.monotonic() - started < 1.5
    mover.join(5)
    assert not mover.is_alive()
    assert ended == [None]  # no bare CancelledError: the attempt ended, the move returned
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.retryable) == ("DeliveryTimeout", True)
    assert attempt.error_message == "The emulator stopped before the handler answered"
    assert handler_threads() - others == set()
