"""advance_to_next against advance to the same instants, over 10,000 schedules.

A step of ``advance_to_next`` asks the queue for the next due instant and moves there, so
it must cost no more than ``advance`` by the amount that reaches that instant (and, for
reference, ``move_to`` it). Two populations of 10,000 schedules:

  * crowded: the rate and cron mix of ``bench_dispatch.py``, thousands of occurrences at
    each step (the cost is the occurrences');
  * spread: 10,000 at() schedules a second apart, one occurrence per step (the cost is the
    step's own).

One emulator steps with ``advance_to_next``; a second, identical one then advances to
where that step ended, and a third moves there with ``move_to``, step by step. Each step is
timed alone; the medians and the ratios (next / advance, next / move_to) are printed. The
bar: next / advance of 1.0 or less, within noise.

Run: python benchmarks/bench_next.py [--schedules 10000] [--steps 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import timedelta
from functools import partial
from typing import Callable

from bench_dispatch import ROLE, START, TARGETS, populate

from pytest_schedemu import Emulator
from pytest_schedemu.commands.call import Call


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


def compare(
    fill: Callable[[Emulator, int], None], count: int, steps: int
) -> tuple[float, float, float]:
    """The median seconds of a step by advance_to_next, by advance and by move_to."""
    stepping, advancing, moving = (Emulator(start=START, max_records=1000) for _ in range(3))
    try:
        for emu in (stepping, advancing, moving):
            fill(emu, count)
        by_next, by_advance, by_move = [], [], []
        # Step by step, one emulator after the other, so all meet the same conditions
        # (caches, the collector's state, the machine's load).
        for _ in range(steps):
            by_next.append(timed(stepping.clock.advance_to_next))
            delta = stepping.clock.now() - advancing.clock.now()
            by_advance.append(timed(partial(advancing.clock.advance, delta)))
            target = stepping.clock.now()
            by_move.append(timed(partial(moving.clock.move_to, target)))
        assert len(moving.attempts()) == len(advancing.attempts()) == len(stepping.attempts())
        return (
            statistics.median(by_next),
            statistics.median(by_advance),
            statistics.median(by_move),
        )
    finally:
        for emu in (stepping, advancing, moving):
            emu.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    populations = {"crowded": populate, "spread": spread}
    print(f"{options.schedules:,} schedules, {options.steps} steps, {options.repeats} repeats")
    print(
        f"{'population':<10} {'next (ms)':>10} {'advance (ms)':>13} {'move_to (ms)':>13} "
        f"{'next/advance':>13} {'next/move_to':>13}"
    )
    for name, fill in populations.items():
        # Crowded steps each play thousands of occurrences: a day's worth is enough.
        steps = min(options.steps, 48) if name == "crowded" else options.steps
        runs = [compare(fill, options.schedules, steps) for _ in range(options.repeats)]
        by_next, by_advance, by_move = (statistics.median(run[i] for run in runs) for i in range(3))
        print(
            f"{name:<10} {by_next * 1000:>10.3f} {by_advance * 1000:>13.3f} "
            f"{by_move * 1000:>13.3f} {by_next / by_advance:>13.3f} {by_next / by_move:>13.3f}"
        )


if __name__ == "__main__":
    main()
