"""Real-time serving: deliver what falls due as wall-clock time passes (``schedemu serve``).

One thread sleeps until the next due item (at most ``tick_interval`` seconds) and is woken
early by schedule changes. Deliveries run on a pool of daemon workers, so a slow target
delays nothing else, and an occurrence whose predecessor is still being delivered starts in
parallel. An attempt that takes longer than ``delivery_timeout`` fails, retryably, and its
worker moves on. A bug in a test's handler cannot be raised to the test from here: it is
kept (``delivery.handlers.HandlerErrors``) for the test's teardown, and logged.

A reset is a barrier: each job carries the history's generation when it was made, a job of
an earlier one is dropped untried and its outcome (the attempt, a retry, a dead letter, a
kept handler error) is forgotten, and the reset waits up to ``delivery_timeout`` for such
jobs under way to end, so none still calls a target once it returns.

Stopping is bounded: no new delivery starts, deliveries under way get ``shutdown_timeout``
seconds to finish, and every occurrence whose attempt did not finish (or never started) is
recorded as ``not_delivered`` activity. The workers are daemon threads, so a target that
never answers cannot hold the process.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import Counter
from typing import Optional

from pytest_schedemu.delivery.backends import OK, Outcome
from pytest_schedemu.delivery.handlers import TIMEOUT_CODE, failed_attempt
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Job
from pytest_schedemu.dispatch.producers import TimedWork
from pytest_schedemu.dispatch.queue import TIMED
from pytest_schedemu.errors import HandlerError, StateError
from pytest_schedemu.formats.times import to_epoch
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.timekeeping.clock import ClockWiring, VirtualClock

#: What the loop hands a worker: the history's generation, and an attempt or timed work.
_Handed = tuple[int, Optional[Job], Optional[TimedWork]]

logger = logging.getLogger("pytest_schedemu.dispatch")

#: Seconds after which an attempt whose delivery was interrupted is made again: the first
#: retry interval.
INTERRUPTED_DELAY = 60


class RealTimeService:
    """The thread that runs a dispatcher against the wall clock, and its delivery workers."""

    def __init__(self, dispatcher: Dispatcher, settings: LiveSettings) -> None:
        self._dispatcher = dispatcher
        self._settings = settings
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._workers: list[threading.Thread] = []
        # Each job (an attempt, or another wing's timed work) with the history's generation
        # when it was made.
        self._jobs: queue.Queue[_Handed | None] = queue.Queue()
        self._lock = threading.Lock()
        # Under the lock: jobs being delivered, jobs that will never be (stopping), and how
        # many jobs of each generation are queued or under way.
        self._running: set[_Handed] = set()
        self._abandoned: list[_Handed] = []
        self._stopping = False
        self._in_hand: Counter[int] = Counter()
        self._handed_back = threading.Condition(self._lock)

    @classmethod
    def drive(
        cls, wiring: ClockWiring, dispatcher: Dispatcher, settings: LiveSettings
    ) -> RealTimeService | None:
        """Attach the clock to ``dispatcher``: a virtual clock runs it when it moves; a real
        one gets a service (returned) that runs it as time passes."""
        wiring.attach(
            dispatcher.run_through, dispatcher.agenda, dispatcher.run_through_async, dispatcher.wake
        )
        if isinstance(wiring.clock, VirtualClock):
            return None
        return cls(dispatcher, settings)

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._stopping = False
        self._workers = [
            threading.Thread(target=self._work, name="schedemu-delivery", daemon=True)
            for _ in range(self._settings.current.delivery_workers)
        ]
        for worker in self._workers:
            worker.start()
        self._thread = threading.Thread(target=self._serve, name="schedemu-dispatcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Start no new delivery, give those under way ``shutdown_timeout`` seconds, and
        record what did not finish."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        self._dispatcher.wake()
        thread.join()
        with self._lock:
            self._stopping = True
        for _ in self._workers:
            self._jobs.put(None)
        deadline = time.monotonic() + self._settings.current.shutdown_timeout
        for worker in self._workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            unfinished = [*self._abandoned, *self._running]
            self._running.clear()
            self._abandoned.clear()
            self._in_hand.clear()
            self._handed_back.notify_all()
        while not self._jobs.empty():  # jobs no worker took before its sentinel
            handed = self._jobs.get_nowait()
            if handed is not None:
                unfinished.append(handed)
        for generation, job, _ in unfinished:
            if job is not None:  # timed work is another wing's, and says nothing
                self._not_delivered(job, generation)

    def waiting(self) -> int:
        """Deliveries handed to the workers that none has taken yet."""
        return self._jobs.qsize()

    def wait_for_earlier_deliveries(self) -> None:
        """Wait, at most ``delivery_timeout`` seconds, until no job made before the latest
        reset is queued or under way (their outcomes are forgotten either way)."""
        current = self._dispatcher.history.generation
        deadline = time.monotonic() + self._settings.current.delivery_timeout
        with self._handed_back:
            while any(generation < current for generation in self._in_hand):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._handed_back.wait(left)

    def _serve(self) -> None:
        dispatcher = self._dispatcher
        planner, wakeup, now = dispatcher.planner, dispatcher.wakeup, dispatcher.now
        interval = self._settings.current.tick_interval
        while not self._stop.is_set():
            with wakeup:
                current = to_epoch(now())
                dispatcher.clock_epoch = int(current // 1)
                due = planner.next_due()
                if due is None or due > current:
                    wait = interval if due is None else min(interval, due - current)
                    wakeup.wait(max(wait, 0.001))
                    continue
                due, item = planner.queue.pop()
                # Timed work may run a stack's own code: a worker runs it, not the lock.
                timed = item.subject if item.kind == TIMED else None
                job = None if timed is not None else dispatcher.process(due, item)
                generation = dispatcher.history.generation
                try:
                    dispatcher.store.commit()
                except StateError:
                    # The file refused the write, and the emulator went back to what the
                    # file holds, where this work is still to do: it is tried again later.
                    logger.exception("the state file refused a write; retrying")
                    wakeup.wait(interval)
                    continue
            if job is not None or timed is not None:
                with self._lock:
                    self._in_hand[generation] += 1
                self._jobs.put((generation, job, timed))

    def _work(self) -> None:
        while True:
            handed = self._jobs.get()
            if handed is None:
                return
            generation, job, timed = handed
            with self._lock:
                if self._stopping:
                    self._abandoned.append(handed)
                    continue
                self._running.add(handed)
            try:
                if not self._current(generation):
                    pass
                elif job is not None:
                    self._deliver(job, generation)
                elif timed is not None:
                    self._run_timed(timed)
            finally:
                with self._lock:
                    self._running.discard(handed)
                    left = self._in_hand.pop(generation, 0) - 1
                    if left > 0:
                        self._in_hand[generation] = left
                    self._handed_back.notify_all()
            self._dispatcher.wake()

    def _current(self, generation: int) -> bool:
        """Whether no reset came since a job of ``generation`` was made."""
        return generation == self._dispatcher.history.generation

    def _run_timed(self, work: TimedWork) -> None:
        try:
            with self._dispatcher.guard.delivering():
                work.run()
        except Exception:
            logger.exception("timed work %r failed inside the emulator", work)

    def _deliver(self, job: Job, generation: int) -> None:
        dispatcher = self._dispatcher
        try:
            outcome = self._outcome(job, generation)
            dispatcher.settlement.settle_unless_reset(job, outcome, generation)
            dispatcher.store.commit()
        except Exception:
            logger.exception("delivery of %s failed inside the emulator", job.occurrence.plan.arn)
        except BaseException:
            # A handler's SystemExit on a worker would end nothing but the attempt; it is
            # made again a retry interval later, not at once (and again, and again).
            logger.exception("delivery of %s was interrupted", job.occurrence.plan.arn)
            with dispatcher.store.lock:
                if self._current(generation):
                    dispatcher.interrupted(job, delay=INTERRUPTED_DELAY)

    def _outcome(self, job: Job, generation: int) -> Outcome:
        """The delivery's outcome, or a retryable timeout once ``delivery_timeout`` passes."""
        dispatcher = self._dispatcher
        if not dispatcher.calls_targets:
            return OK
        timeout = self._settings.current.delivery_timeout
        result: list[Outcome] = []
        failure: list[BaseException] = []

        def deliver() -> None:
            try:
                # This helper thread is the attempt's own, bounded below.
                result.append(dispatcher.deliver(job, in_this_thread=True))
            except HandlerError as error:
                # No test waits on this thread, so the bug is kept for one to see; kept here,
                # since a handler that raises after the timeout is no less a bug. A reset
                # (under the store's lock) since the job was made forgets it.
                with dispatcher.store.lock:
                    if self._current(generation):
                        dispatcher.controls.handler_errors.keep(error)
                result.append(failed_attempt(error))
            except BaseException as error:  # raised again in the worker
                failure.append(error)

        helper = threading.Thread(target=deliver, name="schedemu-attempt", daemon=True)
        helper.start()
        helper.join(timeout)
        if failure:
            raise failure[0]
        if result:
            return result[0]
        return Outcome.failure(
            TIMEOUT_CODE, f"The target did not answer within {timeout:g} seconds", True
        )

    def _not_delivered(self, job: Job, generation: int) -> None:
        occurrence = job.occurrence
        self._dispatcher.history.add_activity(
            occurrence.producer.activity(
                "not_delivered",
                self._dispatcher.now(),
                occurrence.nominal,
                f"attempt {job.number} did not finish before the emulator stopped",
            ),
            generation,
        )
