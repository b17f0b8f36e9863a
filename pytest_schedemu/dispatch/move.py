"""One move of the virtual clock: everything due up to its target, played in order, by a
sync or an async caller alike.

A move is one series of steps (``Move.steps``). While nothing can observe the order of
deliveries, the stretch is played a slice at a time in bulk (``bulk``); from the first
slice that cannot be, item by item: each step pops the next due item under the store's
lock, moves the clock to its instant, does what the item says, and hands over the attempt
it makes, if any, to be delivered and settled. ``Move.play`` drives the steps in the
caller's thread, as ``clock.advance`` does; ``Move.play_async`` drives the same steps from
a running event loop, as ``clock.advance_async`` does, so the two can never disagree on
what is played, in which order, with which records, errors and cap.

An async move awaits after each step (``asyncio.sleep(0)``), so every task of the running
loop that is ready (an application task woken by what a handler put on its queue) takes a
turn while the clock stands at that item's instant; and it awaits a coroutine handler in
that loop rather than in the emulator's own. It stays deterministic: the loop runs ready
tasks first come, first served, and a task woken by an item is ready before the move takes
its next turn, so each task sees the same items in the same order on every run. Only what
waits on the wall clock or on real I/O (``asyncio.sleep(1)``, a socket) may take its turn
later, as it would anywhere.

An async move plays in bulk under the sync move's conditions, checked again before each
slice: no attempt calls a target (no handler, nothing steered, a delivery that sends no
request) and nothing follows the clock. Then no code outside the emulator runs during the
slice, so nothing the move does wakes a task: the turns item-by-item play would give after
each item would find no task woken by that item. The turn comes after each slice instead,
so a long move still lets the loop breathe; a task that was ready anyway sees the clock at
the slice's end, as during a sync move it sees only the move's end. A handler registered
(or a target steered) by such a task stops bulk play from the next slice on.
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
from collections import Counter
from collections.abc import Coroutine, Generator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_schedemu.delivery.backends import OK, Outcome
from pytest_schedemu.delivery.handlers import (
    CoroutineCall,
    HandlerCall,
    Unanswered,
    failed_attempt,
)
from pytest_schedemu.dispatch import bulk
from pytest_schedemu.dispatch.kept import KeptAttempts
from pytest_schedemu.dispatch.occurrences import Job
from pytest_schedemu.dispatch.queue import TIMED
from pytest_schedemu.dispatch.settlement import record_success
from pytest_schedemu.errors import DispatchLimitExceeded, HandlerError
from pytest_schedemu.formats.times import floor_epoch, to_epoch
from pytest_schedemu.model.rules import rule_target_label
from pytest_schedemu.records import MoveAttempts

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.dispatcher import Dispatcher


class Move:
    """Playing what falls due up to ``target``: its steps, and what it made so far."""

    def __init__(self, dispatcher: Dispatcher, target: datetime, *, collect: bool) -> None:
        self.dispatcher = dispatcher
        self.target = target
        self.limit = math.floor(to_epoch(target))
        dispatcher.clock_epoch = floor_epoch(dispatcher.now())
        settings = dispatcher.settings.current
        self.cap = settings.max_attempts_per_advance
        # What a move returns is bounded like the history: its newest ``max_records``; the
        # rest are only counted, so a move holds no more than it keeps.
        self.made = KeptAttempts(
            settings.max_records, collect, lambda: dispatcher.history.dropped_records
        )
        self.durable = dispatcher.store.journal is not None
        self._settle_attempt = dispatcher.settlement.settle

    # -- the drivers -------------------------------------------------------------------------

    def play(self) -> MoveAttempts:
        """Play the move in the caller's thread; return the attempts it made."""
        dispatcher, settle, deliver = self.dispatcher, self.settle, self.dispatcher.deliver
        for job in self.steps():
            if job is None:
                continue
            if dispatcher.calls_targets:
                try:
                    # A coroutine handler is awaited in the emulator's own event loop.
                    outcome = deliver(job)
                except BaseException as error:
                    self._stopped(job, error)
                    raise
            else:
                outcome = OK
            settle(job, outcome)
        return self.made.result()

    async def play_async(self) -> MoveAttempts:
        """Play the move, giving the running loop's ready tasks a turn after each step."""
        dispatcher, settle = self.dispatcher, self.settle
        for job in self.steps():
            if job is not None:
                settle(job, await self.delivered_async(job) if dispatcher.calls_targets else OK)
            await asyncio.sleep(0)
        return self.made.result()

    # -- the steps ---------------------------------------------------------------------------

    def steps(self) -> Generator[Job | None, None, None]:
        """Each step of the move: the attempt an item makes, to be delivered and settled
        before the next step, or None (an item that makes none, a slice played in bulk).
        When it ends, the clock stands at the target."""
        if self._worth_bulk() and (yield from self._slices()):
            return
        dispatcher = self.dispatcher
        lock, limit, target = dispatcher.store.lock, self.limit, self.target
        next_due, pop, process = (
            dispatcher.planner.next_due,
            dispatcher.planner.queue.pop,
            dispatcher.process,
        )
        while True:
            with lock:
                due = next_due()
                if due is None or due > limit:
                    # Reaching the target under the lock means no change can slip in
                    # stamped before it yet unplayed by this move.
                    dispatcher.set_clock(target)
                    return
                if due > dispatcher.clock_epoch:
                    dispatcher.advance_clock(due)
                due, item = pop()
                timed = item.subject if item.kind == TIMED else None
                job = None if timed is not None else process(due, item)
            if timed is not None:
                # Outside the lock, as a delivery is: it may run a stack's own code.
                with dispatcher.guard.delivering():
                    timed.run()
            yield job

    def settle(self, job: Job, outcome: Outcome) -> None:
        """Settle an attempt a step made, with its delivery's outcome."""
        made, dispatcher = self.made, self.dispatcher
        made.add(self._settle_attempt(job, outcome))
        made.collect_if_due()
        if self.durable:
            # A delivery with effects outside the process is made durable before the next
            # one, so a crash repeats at most the attempt in flight; recorded attempts are
            # seen by no one else until written, so they go in batches.
            dispatcher.store.commit(batch=not dispatcher.delivery.needs_request)
        if self.cap is not None and made.count > self.cap:
            raise self._runaway()

    async def delivered_async(self, job: Job) -> Outcome:
        """The outcome of an attempt's delivery; a coroutine handler is awaited in the
        running loop, a sync one's call made in the handler thread, each for at most
        ``delivery_timeout`` seconds."""
        dispatcher = self.dispatcher
        try:
            with dispatcher.guard.delivering():
                answer = dispatcher.call_target(job)
                if not isinstance(answer, HandlerCall):
                    return answer
                timeout = dispatcher.settings.current.delivery_timeout
                started = time.monotonic()
                try:
                    # The loop waits for a sync handler, as it would running it itself: no
                    # other task takes a turn in the middle of a delivery.
                    called = dispatcher.call_handler(answer, timeout)
                    if not isinstance(called, CoroutineCall):
                        return called
                    left = max(0.0, timeout - (time.monotonic() - started))
                    return await _within(called.outcome(), left)
                except Unanswered as unanswered:
                    return unanswered.outcome(timeout)
        except BaseException as error:
            self._stopped(job, error)
            raise

    def _stopped(self, job: Job, error: BaseException) -> None:
        if isinstance(error, HandlerError):
            # A bug in the test's handler: its attempt ends failed for good, and the move
            # stops at that instant to raise it in the test.
            self.dispatcher.settlement.settle(job, failed_attempt(error))
        else:
            # KeyboardInterrupt, SystemExit, a cancelled async move: let it through, but
            # keep the attempt, to be made again.
            self.dispatcher.interrupted(job)

    def _runaway(self) -> DispatchLimitExceeded:
        made, cap = self.made, self.cap
        busiest = Counter(attempt.producer_key for attempt in made.kept).most_common(5)
        # A rule target is named by its rule and its id: its records name no schedule.
        named = ((rule_target_label(key) or key, count) for key, count in busiest)
        listing = ", ".join(f"{name} ({count} attempts)" for name, count in named)
        return DispatchLimitExceeded(
            f"One clock operation made {made.count} attempts, more than "
            f"max_attempts_per_advance={cap}; the clock stopped at "
            f"{self.dispatcher.now().isoformat()}. Busiest schedules and rule targets: {listing}. "
            "Advance in smaller steps, or raise or disable (None) the limit."
        )

    # -- bulk play ---------------------------------------------------------------------------

    def _unobserved(self) -> bool:
        """Whether nothing can observe the order of the move's deliveries."""
        dispatcher = self.dispatcher
        return (
            dispatcher.bulk_min_span is not None
            and not dispatcher.calls_targets
            and not dispatcher.clock_observed()
        )

    def _worth_bulk(self) -> bool:
        """Whether to try bulk play: nothing observes the order, and the stretch from the
        first due item to the target is long enough."""
        dispatcher = self.dispatcher
        least = dispatcher.bulk_min_span
        if least is None or not self._unobserved():
            return False
        with dispatcher.store.lock:
            head = dispatcher.planner.next_due()
            return head is not None and self.limit - head >= least

    def _slices(self) -> Generator[None, None, bool]:
        """Play the stretch in bulk, a slice at a time, as far as it can, yielding after
        each; return whether it reached the target. Where a slice cannot be played in bulk,
        the clock stands at the end of the last one played, and item-by-item play carries
        on from there.

        What one slice holds is bounded (``bulk.most_attempts``). The first slice is an
        hour, so that an async move's loop gets a turn early; the second tries the whole
        rest of the stretch, which a day of tens of thousands of schedules is within the
        bound: one pass over the plans more, not one a slice. A longer rest is played in
        slices sized from the last one's rate (``bulk.next_span``); one whose rest would be
        shorter than twice it tries to take in the rest too.
        """
        dispatcher, made, limit = self.dispatcher, self.made, self.limit
        span: int | None = bulk.MIN_SPAN_SECONDS
        rated = bulk.MIN_SPAN_SECONDS
        tried_whole = False
        while True:
            before = made.count
            collecting = gc.isenabled()
            # A slice makes all its records at once and keeps them: collections during it
            # would only rescan them (a sync move runs without the collector throughout).
            gc.disable()
            try:
                played = self._play_slice(span)
            except bulk.TooMany:
                # The rest makes more than a slice may hold: nothing was played; slice it.
                span = rated
                continue
            finally:
                if collecting:
                    gc.enable()
            if played is None:
                return False
            if played != limit:
                dispatcher.store.commit(batch=True)
                made.collect_if_due()
            yield None
            if played == limit:
                return True
            if not self._unobserved():
                return False
            rated = bulk.next_span(rated, made.count - before, len(dispatcher.planner.queue))
            span = None if not tried_whole or limit - played < 2 * rated else rated
            tried_whole = True

    def _play_slice(self, span: int | None) -> int | None:
        """Play the next ``span`` seconds (None: the rest of the stretch, if that makes no
        more than ``bulk.most_attempts``) in bulk; where that slice ended, or None (nothing changed)
        when it cannot be played in bulk, or ``bulk.TOO_MANY`` (nothing changed) when the
        rest makes more."""
        dispatcher, made, limit, cap = self.dispatcher, self.made, self.limit, self.cap
        with dispatcher.store.lock:
            head = dispatcher.planner.next_due()
            start = dispatcher.clock_epoch
            end = limit if span is None or head is None else min(limit, max(head, start) + span)
            played = bulk.play_in_bulk(
                dispatcher.planner,
                limit=end,
                start=start,
                cap=None if cap is None else cap - made.count,
                seed=dispatcher.settings.current.seed,
                succeed=record_success,
                most=bulk.most_attempts(len(dispatcher.planner.queue)) if span is None else None,
            )
            if played is None:
                return None
            dispatcher.bulk_runs += 1
            dispatcher.history.add_attempts(played)
            if end == limit:
                dispatcher.set_clock(self.target)
            else:
                dispatcher.advance_clock(end)
        dispatcher.history.announce(played)
        made.extend(played)
        return end


async def _within(coroutine: Coroutine[Any, Any, Outcome], seconds: float) -> Outcome:
    """Await ``coroutine`` in this task, cancelling it after ``seconds`` (``Unanswered``).

    Not ``asyncio.wait_for``, which (before Python 3.12) awaits it in a task of its own: a
    task more would change when the loop's other tasks take their turns.
    """
    task = asyncio.current_task()
    assert task is not None  # an async move runs in a task
    expired: list[bool] = []

    def expire() -> None:
        expired.append(True)
        task.cancel()

    timer = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        return await coroutine
    except asyncio.CancelledError:
        if not expired:
            raise
        uncancel = getattr(task, "uncancel", None)  # Python 3.11+: the count of requests
        if uncancel is not None:
            uncancel()
        raise Unanswered() from None
    finally:
        timer.cancel()
