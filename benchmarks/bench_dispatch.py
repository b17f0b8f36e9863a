"""Dispatch throughput: advance one virtual day over 1,000 / 10,000 / 100,000 schedules.

Schedules are a fixed mix of rate and cron expressions with SQS and Lambda targets, all
delivered by the default recording delivery. Schedules are created through the API's
operations directly (no HTTP), since what is measured is the advance, not the API.

Also measured:
  * the same day four ways at one size: sync and async moves (``advance_async``), each in
    bulk and item by item, against the sync move in bulk;
  * an advance over a stretch with nothing due (one at() far away), for several lengths;
  * a month of a per-minute cron schedule end to end (43,200 recorded deliveries) against
    croniter alone enumerating the same 43,200 instants.

Run: python benchmarks/bench_dispatch.py [--sizes 1000 10000 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import statistics
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.commands.call import Call

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
ROLE = "arn:aws:iam::123456789012:role/r"
TARGETS = (
    "arn:aws:sqs:us-east-1:123456789012:jobs",
    "arn:aws:lambda:us-east-1:123456789012:function:work",
)
# (expression, occurrences in one day starting at midnight)
MIX = (
    ("rate(1 hour)", 24),
    ("rate(2 hours)", 12),
    ("cron(0/30 * * * ? *)", 48),
    ("cron(0 */6 * * ? *)", 4),
    ("cron(15 9 * * ? *)", 1),
    ("cron(0 8 ? * MON-FRI *)", 1),
)


def populate(emu: Emulator, count: int) -> None:
    call = Call(emu.account_id, emu.region, emu.clock.now())
    create = emu._app.operations.create_schedule
    validate = emu._app.validator["CreateSchedule"].validate
    for index in range(count):
        expression, _ = MIX[index % len(MIX)]
        params = {
            "Name": f"s{index}",
            "ScheduleExpression": expression,
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": TARGETS[index % 2], "RoleArn": ROLE},
        }
        create(call, validate(params))


def one_day(count: int) -> dict[str, float]:
    with Emulator(start=START, transport="inprocess", max_attempts_per_advance=None) as emu:
        populate(emu, count)
        gc.collect()
        started = time.perf_counter()
        attempts = emu.clock.advance(timedelta(days=1) - timedelta(seconds=1))
        elapsed = time.perf_counter() - started
        occurrences = len(attempts)
        assert occurrences == len(emu.deliveries())
        del attempts
    return {"occurrences": occurrences, "seconds": elapsed}


#: The four ways of playing one day: (async move, in bulk).
WAYS = {
    "sync, bulk": (False, True),
    "sync, item by item": (False, False),
    "async, bulk": (True, True),
    "async, item by item": (True, False),
}


def one_day_by(count: int, asynchronous: bool, bulk: bool) -> float:
    with Emulator(start=START, transport="inprocess", max_attempts_per_advance=None) as emu:
        populate(emu, count)
        if not bulk:
            emu.debug.play_in_bulk_from(None)
        span = timedelta(days=1) - timedelta(seconds=1)
        gc.collect()

        async def move() -> float:
            started = time.perf_counter()
            await emu.clock.advance_async(span)
            return time.perf_counter() - started

        if asynchronous:
            return asyncio.run(move())
        started = time.perf_counter()
        emu.clock.advance(span)
        return time.perf_counter() - started


def empty_stretch(days: int) -> float:
    with Emulator(start=START, transport="inprocess") as emu:
        client = emu.client()
        client.create_schedule(
            Name="far",
            ScheduleExpression="at(9000-01-01T00:00:00)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": TARGETS[0], "RoleArn": ROLE},
        )
        samples = []
        for _ in range(200):
            started = time.perf_counter()
            emu.clock.advance(days=days)
            samples.append(time.perf_counter() - started)
        return statistics.median(samples)


def month_of_minutes() -> dict[str, float]:
    from croniter import croniter

    with Emulator(start=START, transport="inprocess", max_attempts_per_advance=None) as emu:
        emu.client().create_schedule(
            Name="minutely",
            ScheduleExpression="cron(* * * * ? *)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": TARGETS[0], "RoleArn": ROLE},
        )
        started = time.perf_counter()
        attempts = emu.clock.advance(timedelta(days=30) - timedelta(minutes=1))
        ours = time.perf_counter() - started
        assert len(attempts) == 43200, len(attempts)
    iterator = croniter("* * * * *", START - timedelta(minutes=1))
    started = time.perf_counter()
    for _ in range(43200):
        iterator.get_next(datetime)
    theirs = time.perf_counter() - started
    return {"emulator": ours, "croniter": theirs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ways-size", type=int, default=10000)
    args = parser.parse_args()

    print("one virtual day, recording delivery (median of runs)")
    print(f"{'schedules':>10} {'occurrences':>12} {'seconds':>9} {'occ/s':>10} {'µs/occ':>8}")
    per_occurrence: dict[int, float] = {}
    for size in args.sizes:
        # Every size gets the same repeats: the first day at 100,000 schedules also pays
        # for the process's first touch of ~2 GB of fresh pages, which on a virtual
        # machine is seconds of page faults, not dispatch.
        runs: list[dict[str, Any]] = [one_day(size) for _ in range(args.repeats)]
        seconds = statistics.median(r["seconds"] for r in runs)
        occurrences = runs[0]["occurrences"]
        per_occurrence[size] = seconds / occurrences * 1e6
        print(
            f"{size:>10} {occurrences:>12} {seconds:>9.2f} {occurrences / seconds:>10.0f} "
            f"{per_occurrence[size]:>8.2f}"
        )
    sizes = sorted(per_occurrence)
    if len(sizes) > 1:
        ratio = per_occurrence[sizes[-1]] / per_occurrence[sizes[0]]
        print(f"µs/occ at {sizes[-1]} / at {sizes[0]} = {ratio:.2f} (target <= 1.5)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB")

    print(f"\none virtual day over {args.ways_size} schedules, four ways (median of runs)")
    samples: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(args.repeats):
        # Interleaved, so a slower stretch of the machine weighs on every way alike.
        for way, (asynchronous, bulk) in WAYS.items():
            samples[way].append(one_day_by(args.ways_size, asynchronous, bulk))
    baseline = statistics.median(samples["sync, bulk"])
    for way, times in samples.items():
        seconds = statistics.median(times)
        print(f"  {way:>20}: {seconds:7.3f} s  ({seconds / baseline:5.2f} x sync in bulk)")

    print("\nadvance over a stretch with nothing due (median of 200)")
    for days in (1, 365, 3650):
        print(f"  {days:>6} days: {empty_stretch(days) * 1e6:8.1f} µs")

    month = month_of_minutes()
    print("\na month of cron(* * * * ? *): 43,200 recorded deliveries")
    print(f"  emulator end to end: {month['emulator']:.3f} s")
    print(f"  croniter get_next x 43,200 alone: {month['croniter']:.3f} s")
    print(f"  ratio emulator/croniter = {month['emulator'] / month['croniter']:.2f} (target < 1)")


if __name__ == "__main__":
    main()
