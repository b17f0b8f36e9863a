"""Async moves: the dispatcher's run, one work item at a time, in a running event loop.

``clock.advance_async`` (and ``move_to_async``, ``tick_async``) plays what falls due as
``Dispatcher.run_until`` does, in the same order, with the same records and the same
errors, but awaits after each work item (``asyncio.sleep(0)``), so every task of the
running loop that is ready (an application task woken by what a handler put on its queue)
takes a turn while the clock stands at that item's instant; and it awaits a coroutine
handler in that loop rather than in the emulator's own.

It stays deterministic: the loop runs ready tasks first come, first served, and a task
woken by an item is ready before the move takes its next turn, so each task sees the same
items in the same order on every run. Only what waits on the wall clock or on real I/O
(``asyncio.sleep(1)``, a socket) may take its turn later, as it would anywhere.

It is the dispatcher's own loop in another form, kept apart so that a sync move pays
nothing for it (no await, no per-item call): it uses the dispatcher's internals as a method
of it would. Bulk play is not used: its point is to skip the per-item turns that an async
move exists to give.
"""

from __future__ import annotations

import asyncio
import math
from datetime import datetime

from pytest_schedemu.delivery.backends import OK, Outcome
from pytest_schedemu.delivery.handlers import CoroutineCall, failed_attempt
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.kept import KeptAttempts
from pytest_schedemu.dispatch.occurrences import Job
from pytest_schedemu.errors import HandlerError
from pytest_schedemu.formats.times import floor_epoch, to_epoch
from pytest_schedemu.records import MoveAttempts


async def run_until_async(dispatcher: Dispatcher, target: datetime) -> MoveAttempts:
    """``dispatcher.run_until(target)``, yielding to the running loop after each item."""
    try:
        return await _run_until(dispatcher, target)
    finally:
        dispatcher.store.commit()


async def _run_until(dispatcher: Dispatcher, target: datetime) -> MoveAttempts:
    limit = math.floor(to_epoch(target))
    dispatcher.clock_epoch = floor_epoch(dispatcher.now())
    settings = dispatcher.settings.current
    cap = settings.max_attempts_per_advance
    # The collector stays on: the loop's other tasks run between items.
    made = KeptAttempts(settings.max_records, False, lambda: dispatcher.history.dropped_records)
    planner, lock = dispatcher.planner, dispatcher.store.lock
    durable = dispatcher.store.journal is not None
    while True:
        with lock:
            due = planner.next_due()
            if due is None or due > limit:
                dispatcher._set_clock(target)
                return made.result()
            dispatcher._advance_clock(due)
            job = dispatcher.process(*planner.queue.pop())
        if job is not None:
            made.add(dispatcher.settlement.settle(job, await _outcome(dispatcher, job)))
            if durable:
                dispatcher.store.commit(batch=not dispatcher.delivery.needs_request)
            if cap is not None and made.count > cap:
                raise dispatcher._runaway(made.kept, made.count, cap)
        await asyncio.sleep(0)


async def _outcome(dispatcher: Dispatcher, job: Job) -> Outcome:
    if not dispatcher.calls_targets:
        return OK
    try:
        with dispatcher.guard.delivering():
            outcome = dispatcher._deliver(job)
            if isinstance(outcome, CoroutineCall):
                return await outcome.outcome()
            return outcome
    except HandlerError as error:
        # As in a sync move: failed for good, and the move stops at the attempt's instant.
        dispatcher.settlement.settle(job, failed_attempt(error))
        raise
    except BaseException:
        # The move's task was cancelled (or interrupted): the attempt is made again.
        dispatcher.interrupted(job)
        raise
