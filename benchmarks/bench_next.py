"""advance_to_next against move_to the same instants, over 10,000 schedules.

A step of ``advance_to_next`` asks the queue for the next due instant and moves there, so
it must cost no more than ``move_to`` to that instant. Two populations of 10,000 schedules:

  * crowded: the rate and cron mix of ``bench_dispatch.py``, thousands of occurrences at
    each step (the cost is the occurrences');
  * spread: 10,000 at() schedules a second apart, one occurrence per step (the cost is the
    step's own).

One emulator steps with ``advance_to_next``; a second, identical one then moves with
``move_to`` to where that step ended, step by step. Each step is timed alone; the medians
and their ratio (next / move_to) are printed. The bar: a ratio of 1.0 or less,
within noise.

Run: python benchmarks/bench_next.py [--schedules 10000] [--steps 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import timedelta
from typing import Callable

from bench_dispatch import ROLE, START, TARGETS, populate

from pytest_schedemu import Emulator
from pytest_schedemu.api.operations import Call


def spread(emu: Emulator, count: int) -> None:
    call = Call(emu.account_id, emu.region, emu.clock.now())
    create = emu._app.operations.create_schedule
    validate = emu._app.validator["CreateSchedule"].validate
    for index in range(count):
        moment = START + timedelta(minutes=1, seconds=index)
        params = {
            "Name": f"a{index}",
            "ScheduleExpression": f"at({moment.strftime('%Y-%m-%dT%H:%M:%S')})",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": TARGETS[index % 2], "RoleArn": ROLE},
        }
        create(call, validate(params))


def timed(step: Callable[[], object]) -> float:
    began = time.perf_counter()
    step()
    return time.perf_counter() - began


def compare(fill: Callable[[Emulator, int], None], count: int, steps: int) -> tuple[float, float]:
    """The median seconds of a step by advance_to_next and by move_to the same instant."""
    stepping = Emulator(start=START, max_records=1000)
    moving = Emulator(start=START, max_records=1000)
    try:
        fill(stepping, count)
        fill(moving, count)
        by_next, by_move = [], []
        # Step by step, one emulator then the other, so both meet the same conditions
        # (caches, the collector's state, the machine's load).
        for _ in range(steps):
            by_next.append(timed(stepping.clock.advance_to_next))
            by_move.append(timed(lambda: moving.clock.move_to(stepping.clock.now())))
        assert len(moving.attempts()) == len(stepping.attempts())
        return statistics.median(by_next), statistics.median(by_move)
    finally:
        stepping.stop()
        moving.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    populations = {"crowded": populate, "spread": spread}
    print(f"{options.schedules:,} schedules, {options.steps} steps, {options.repeats} repeats")
    print(f"{'population':<10} {'next (ms)':>10} {'move_to (ms)':>13} {'ratio':>7}")
    for name, fill in populations.items():
        # Crowded steps each play thousands of occurrences: a day's worth is enough.
        steps = min(options.steps, 48) if name == "crowded" else options.steps
        runs = [compare(fill, options.schedules, steps) for _ in range(options.repeats)]
        by_next = statistics.median(run[0] for run in runs)
        by_move = statistics.median(run[1] for run in runs)
        print(
            f"{name:<10} {by_next * 1000:>10.3f} {by_move * 1000:>13.3f} {by_next / by_move:>7.3f}"
        )


if __name__ == "__main__":
    main()
