"""Worker threads that make a fixed number of calls each, in step with a thread that moves
the clock.

The run is paced by counts, not by the wall clock: before each step of the clock the workers
are released for their next calls, which they make while the clock moves, and the next step
waits until every one of them is made. So every step of virtual time is crossed by the same
number of calls whatever the machine's speed, and a run that ends has done exactly what it
set out to do. A run that stalls (a worker stuck, a deadlock) is stopped after ``within``
seconds of wall time and reported with its figures, as is a worker's unexpected exception.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

#: One call of a worker: makes it with the worker's own random numbers and says what it
#: did (a label counted in ``Pace.by_label``).
Call = Callable[[random.Random], str]


@dataclass
class Pace:
    """What a paced run set out to do, and what it did."""

    workers: int
    steps: int
    calls_per_step: int
    within: float
    steps_done: int = 0
    calls_done: int = 0
    elapsed: float = 0.0
    by_label: Counter[str] = field(default_factory=Counter)
    failures: list[BaseException] = field(default_factory=list)

    @property
    def calls_planned(self) -> int:
        return self.workers * self.steps * self.calls_per_step

    @property
    def rate(self) -> float:
        return self.calls_done / self.elapsed if self.elapsed else 0.0

    def figures(self) -> str:
        return (
            f"{self.calls_done:,} of {self.calls_planned:,} calls ({self.workers} workers, "
            f"{self.calls_per_step} each a step) and {self.steps_done:,} of {self.steps:,} "
            f"clock steps in {self.elapsed:.1f} s ({self.rate:.0f} calls/s)"
        )

    def check(self) -> None:
        """Fails unless every call and every step was made and no worker raised."""
        if self.failures:
            raise AssertionError(
                f"a worker raised after {self.figures()}: {self.failures[0]!r}"
            ) from self.failures[0]
        assert (self.calls_done, self.steps_done) == (self.calls_planned, self.steps), (
            f"the run did less than it set out to (it stops after {self.within:.0f} s): "
            f"{self.figures()}"
        )


def run_in_step(
    calls: Sequence[Call],
    move: Callable[[], None],
    *,
    steps: int,
    calls_per_step: int = 1,
    within: float = 240.0,
) -> Pace:
    """Runs one worker thread per entry of ``calls`` (seeded with its index) while this
    thread calls ``move()`` once a step; each worker makes ``calls_per_step`` calls a
    step, during that step's move. Returns the figures; ``Pace.check`` judges them."""
    pace = Pace(len(calls), steps, calls_per_step, within)
    progress = threading.Condition()
    released = 0  # the steps whose calls the workers may make
    stopped = False
    began = time.perf_counter()
    deadline = began + within

    def work(index: int, call: Call) -> None:
        rng = random.Random(index)
        for number in range(steps * calls_per_step):
            with progress:
                while released <= number // calls_per_step and not stopped:
                    progress.wait()
                if stopped:
                    return
            try:
                label = call(rng)
            except BaseException as error:
                stop(error)
                return
            with progress:
                pace.calls_done += 1
                pace.by_label[label] += 1
                progress.notify_all()

    def stop(error: BaseException | None = None) -> None:
        nonlocal stopped
        with progress:
            if error is not None:
                pace.failures.append(error)
            stopped = True
            progress.notify_all()

    threads = [
        threading.Thread(target=work, args=(index, call), name=f"paced-{index}", daemon=True)
        for index, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    try:
        for step in range(steps):
            with progress:
                if stopped:
                    break
                released = step + 1
                progress.notify_all()
            move()
            with progress:
                due = (step + 1) * calls_per_step * len(calls)
                while pace.calls_done < due and not stopped:
                    if not progress.wait(timeout=deadline - time.perf_counter()):
                        stopped = True
                        progress.notify_all()
                if stopped:
                    break
            pace.steps_done = step + 1
    except BaseException as error:
        stop(error)
        raise
    finally:
        stop()
        for thread in threads:
            thread.join(timeout=max(1.0, deadline - time.perf_counter()))
        pace.elapsed = time.perf_counter() - began
    return pace
