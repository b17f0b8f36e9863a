"""Real-time serving: deliver what falls due as wall-clock time passes (``schedemu serve``).

One thread sleeps until the next due item (at most ``tick_interval`` seconds) and is woken
early by schedule changes; deliveries run on a pool, so a slow target delays nothing else,
and an occurrence whose predecessor is still being delivered starts in parallel.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from pytest_schedemu.clock import Clock, VirtualClock
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Job
from pytest_schedemu.settings import Settings
from pytest_schedemu.times import to_epoch

logger = logging.getLogger("pytest_schedemu.dispatch")


class RealTimeService:
    """The thread that runs a dispatcher against the wall clock."""

    def __init__(self, dispatcher: Dispatcher, *, tick_interval: float, workers: int) -> None:
        self._dispatcher = dispatcher
        self._tick_interval = tick_interval
        self._workers = workers
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def drive(
        cls, clock: Clock, dispatcher: Dispatcher, settings: Settings
    ) -> RealTimeService | None:
        """Attach ``clock`` to ``dispatcher``: a virtual clock runs it when it moves; a real
        one gets a service (returned) that runs it as time passes."""
        if isinstance(clock, VirtualClock):
            clock.attach(dispatcher.run_until)
            return None
        clock.attach(None, wake=dispatcher.wake)
        return cls(
            dispatcher, tick_interval=settings.tick_interval, workers=settings.delivery_workers
        )

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="schedemu-dispatcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        self._dispatcher.wake()
        thread.join()

    def _serve(self) -> None:
        dispatcher = self._dispatcher
        planner, wakeup, now = dispatcher.planner, dispatcher.wakeup, dispatcher.now
        with ThreadPoolExecutor(self._workers, thread_name_prefix="schedemu-delivery") as pool:
            while not self._stop.is_set():
                with wakeup:
                    current = to_epoch(now())
                    dispatcher.clock_epoch = int(current // 1)
                    due = planner.next_due()
                    if due is None or due > current:
                        interval = self._tick_interval
                        wait = interval if due is None else min(interval, due - current)
                        wakeup.wait(max(wait, 0.001))
                        continue
                    job = dispatcher.process(*planner.queue.pop())
                    dispatcher.store.commit()
                if job is not None:
                    pool.submit(self._run_job, job)

    def _run_job(self, job: Job) -> None:
        dispatcher = self._dispatcher
        try:
            dispatcher.settlement.settle(job, dispatcher.deliver(job))
            dispatcher.store.commit()
        except Exception:
            logger.exception("delivery of %s failed inside the emulator", job.occurrence.plan.arn)
        dispatcher.wake()
