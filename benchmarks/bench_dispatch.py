"""Dispatch throughput: advance one virtual day over 1,000 / 10,000 / 100,000 schedules.

Schedules are a fixed mix of rate and cron expressions with SQS and Lambda targets, all
delivered by the default recording delivery, every record kept (``max_records=None``).
Schedules are created through the API's operations directly (no HTTP), since what is
measured is the advance, not the API; only ``clock.advance`` is timed.

Also measured:
  * the same day of as many rule targets (scheduled EventBridge rules, put through the
    events API's operations, the same expression mix, one target each), against the
    schedules' day, interleaved, per occurrence;
  * the same day four ways at one size: sync and async moves (``advance_async``), each in
    bulk and item by item, against the sync move in bulk;
  * an advance over a stretch with nothing due (one at() far away), for several lengths;
  * a month of a per-minute cron schedule end to end (43,200 recorded deliveries) against
    croniter alone enumerating the same 43,200 instants;
  * the same day with IAM enforced (the schedules' role declared, trusted by the Scheduler
    and allowed their targets' actions, so every attempt is allowed) against ``iam="off"``,
    interleaved, in bulk and item by item (target: enforced at most 1.10 x off).

Side by side (``--against REF``, a git commit, or ``--against-path DIR``, a copy of the
package's source): each day runs in a child process of its own, this tree's and the other
copy's taking turns (ours, theirs, ours, theirs...), so a slower stretch of a shared machine
weighs on both alike; per size, the median µs per occurrence of each and their ratio.

Run: python benchmarks/bench_dispatch.py [--sizes 1000 10000 100000] [--repeats 3]
         [--against 66b6961 | --against-path DIR] [--sections day rules ways stretch month]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator

try:
    from pytest_schedemu.commands.call import Call
except ImportError:  # a copy from before the command layer (66b6961 and earlier)
    from pytest_schedemu.api.operations import Call  # type: ignore[no-redef]

#: The source tree this script belongs to.
OURS = Path(__file__).resolve().parents[1]
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


def populate_rules(emu: Emulator, count: int) -> None:
    """``count`` scheduled rules of the same mix, one target each."""
    call = Call(emu.account_id, emu.region, emu.clock.now())
    events = emu._app.events
    put_rule, put_targets = (events.operations.handlers[name] for name in ("PutRule", "PutTargets"))
    validate_rule = events.validator["PutRule"].validate
    validate_targets = events.validator["PutTargets"].validate
    for index in range(count):
        expression, _ = MIX[index % len(MIX)]
        name = f"r{index}"
        put_rule(call, validate_rule({"Name": name, "ScheduleExpression": expression}))
        target = {"Id": "t", "Arn": TARGETS[index % 2]}
        put_targets(call, validate_targets({"Rule": name, "Targets": [target]}))


POPULATIONS = {"schedules": populate, "rules": populate_rules}


def one_day(count: int, kind: str = "schedules", *, advance: bool = True) -> dict[str, float]:
    # EventBridge's default quota is 300 rules a bus; a copy from before rules knows no such
    # setting.
    quota = {"max_rules": count} if kind == "rules" else {}
    with Emulator(
        start=START,
        transport="inprocess",
        max_attempts_per_advance=None,
        max_records=None,
        **quota,
    ) as emu:
        POPULATIONS[kind](emu, count)
        if not advance:
            return {"occurrences": 0, "seconds": 0.0}
        gc.collect()
        started = time.perf_counter()
        attempts = emu.clock.advance(timedelta(days=1) - timedelta(seconds=1))
        elapsed = time.perf_counter() - started
        occurrences = len(attempts)
        assert occurrences == len(emu.attempts()), (occurrences, len(emu.attempts()))
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
    with Emulator(
        start=START, transport="inprocess", max_attempts_per_advance=None, max_records=None
    ) as emu:
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


#: The schedules' role, as a stack would declare it: the Scheduler may assume it, and it
#: may send to the queue and invoke the function.
IAM_TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "scheduler.amazonaws.com"},
            "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"aws:SourceAccount": "123456789012"}},
        }
    ],
}
IAM_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": TARGETS[0]},
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": TARGETS[1]},
    ],
}


#: How a day is played: in bulk; item by item, asking nothing per attempt while nothing
#: is refused; and with a target steered, which makes every attempt a call and so asks
#: IAM's verdict of each (a cached one).
IAM_WAYS = ("in bulk", "item by item", "every attempt asked")


def one_day_with_iam(count: int, iam: str, way: str) -> float:
    with Emulator(
        start=START,
        transport="inprocess",
        max_attempts_per_advance=None,
        max_records=None,
        iam=iam,
    ) as emu:
        emu.iam.role(ROLE, trust=IAM_TRUST, policies=[IAM_POLICY])
        populate(emu, count)
        if way != "in bulk":
            emu.debug.play_in_bulk_from(None)
        if way == "every attempt asked":
            emu.target("arn:aws:sqs:us-east-1:123456789012:elsewhere").fail()
        gc.collect()
        started = time.perf_counter()
        attempts = emu.clock.advance(timedelta(days=1) - timedelta(seconds=1))
        elapsed = time.perf_counter() - started
        assert all(attempt.succeeded for attempt in attempts)
        return elapsed


def iam_side_by_side(size: int, repeats: int) -> None:
    print(f"\none virtual day over {size} schedules: IAM enforced against off (median of runs)")
    for way in IAM_WAYS:
        samples: dict[str, list[float]] = {"enforce": [], "off": []}
        for _ in range(repeats):
            # Interleaved, so a slower stretch of the machine weighs on both alike.
            for iam in samples:
                samples[iam].append(one_day_with_iam(size, iam, way))
        enforced, off = (statistics.median(samples[iam]) for iam in ("enforce", "off"))
        print(
            f"  {way:>19}: enforce {enforced:7.3f} s, off {off:7.3f} s, "
            f"ratio {enforced / off:.3f} (target <= 1.10)"
        )


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


# -- side by side, in child processes -----------------------------------------------------


def extracted(ref: str, into: str) -> Path:
    """The package's source at commit ``ref`` of this repository, extracted into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(OURS), "archive", ref], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return Path(into)


def day_in_child(root: Path, kind: str, size: int) -> dict[str, float]:
    """One day, measured in a fresh process that imports the package from ``root``."""
    environment = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, str(size)]
    done = subprocess.run(command, env=environment, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} with PYTHONPATH={root} failed:\n{done.stderr}")
    measured: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return measured


def per_occurrence(run: dict[str, float]) -> float:
    return run["seconds"] / run["occurrences"] * 1e6


def side_by_side(
    first: tuple[str, Path, str], second: tuple[str, Path, str], sizes: list[int], repeats: int
) -> None:
    """Each size's day in ``first`` and ``second`` (label, source root, population), taking
    turns, ``repeats`` times; the median µs per occurrence of each and their ratio."""
    (name_a, root_a, kind_a), (name_b, root_b, kind_b) = first, second
    print(
        f"{'size':>8} {name_a + ' µs/occ':>16} {name_b + ' µs/occ':>16} {'ratio':>7} "
        f"{'ratios (per round)':>24} {name_a + ' occ/s':>14} {name_b + ' occ/s':>14}"
    )
    for size in sizes:
        runs_a: list[dict[str, float]] = []
        runs_b: list[dict[str, float]] = []
        for _ in range(repeats):
            runs_a.append(day_in_child(root_a, kind_a, size))
            runs_b.append(day_in_child(root_b, kind_b, size))
        ours = statistics.median(per_occurrence(run) for run in runs_a)
        theirs = statistics.median(per_occurrence(run) for run in runs_b)
        rounds = " ".join(
            f"{per_occurrence(a) / per_occurrence(b):.2f}" for a, b in zip(runs_a, runs_b)
        )
        print(
            f"{size:>8} {ours:>16.2f} {theirs:>16.2f} {ours / theirs:>7.2f} {rounds:>24} "
            f"{1e6 / ours:>14.0f} {1e6 / theirs:>14.0f}"
            f"   ({int(runs_a[0]['occurrences'])} vs {int(runs_b[0]['occurrences'])} occurrences)"
        )


# -- in this process ----------------------------------------------------------------------


def days_here(sizes: list[int], repeats: int) -> None:
    print("one virtual day, recording delivery (median of runs)")
    print(f"{'schedules':>10} {'occurrences':>12} {'seconds':>9} {'occ/s':>10} {'µs/occ':>8}")
    per_size: dict[int, float] = {}
    for size in sizes:
        # Every size gets the same repeats: the first day at 100,000 schedules also pays
        # for the process's first touch of ~2 GB of fresh pages, which on a virtual
        # machine is seconds of page faults, not dispatch.
        runs: list[dict[str, Any]] = [one_day(size) for _ in range(repeats)]
        seconds = statistics.median(r["seconds"] for r in runs)
        occurrences = runs[0]["occurrences"]
        per_size[size] = seconds / occurrences * 1e6
        print(
            f"{size:>10} {occurrences:>12} {seconds:>9.2f} {occurrences / seconds:>10.0f} "
            f"{per_size[size]:>8.2f}"
        )
    ordered = sorted(per_size)
    if len(ordered) > 1:
        ratio = per_size[ordered[-1]] / per_size[ordered[0]]
        print(f"µs/occ at {ordered[-1]} / at {ordered[0]} = {ratio:.2f} (target <= 1.5)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB")


def ways(size: int, repeats: int) -> None:
    print(f"\none virtual day over {size} schedules, four ways (median of runs)")
    samples: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(repeats):
        # Interleaved, so a slower stretch of the machine weighs on every way alike.
        for way, (asynchronous, bulk) in WAYS.items():
            samples[way].append(one_day_by(size, asynchronous, bulk))
    baseline = statistics.median(samples["sync, bulk"])
    for way, times in samples.items():
        seconds = statistics.median(times)
        ratios = " ".join(f"{t / b:.2f}" for t, b in zip(times, samples["sync, bulk"]))
        print(
            f"  {way:>20}: {seconds:7.3f} s  ({seconds / baseline:5.2f} x sync in bulk;"
            f" per round {ratios})"
        )


def stretches() -> None:
    print("\nadvance over a stretch with nothing due (median of 200)")
    for days in (1, 365, 3650):
        print(f"  {days:>6} days: {empty_stretch(days) * 1e6:8.1f} µs")


def month() -> None:
    measured = month_of_minutes()
    print("\na month of cron(* * * * ? *): 43,200 recorded deliveries")
    print(f"  emulator end to end: {measured['emulator']:.3f} s")
    print(f"  croniter get_next x 43,200 alone: {measured['croniter']:.3f} s")
    ratio = measured["emulator"] / measured["croniter"]
    print(f"  ratio emulator/croniter = {ratio:.2f} (target < 1)")


SECTIONS = ("day", "rules", "ways", "stretch", "month", "iam")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ways-size", type=int, default=10000)
    parser.add_argument("--rules-sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    against = parser.add_mutually_exclusive_group()
    against.add_argument("--against", metavar="REF", help="a commit of this repository")
    against.add_argument("--against-path", metavar="DIR", help="a copy of the package's source")
    # One day in this process, printed as JSON: what the side-by-side runs measure.
    parser.add_argument("--child", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    parser.add_argument("--populate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        kind, size = args.child
        print(json.dumps(one_day(int(size), kind, advance=not args.populate_only)))
        return

    sections = set(args.sections)
    if "day" in sections:
        if args.against or args.against_path:
            with tempfile.TemporaryDirectory() as scratch:
                if args.against:
                    theirs, label = extracted(args.against, scratch), args.against
                else:
                    theirs = Path(args.against_path).resolve()
                    label = theirs.name
                print(f"one virtual day, side by side with {label} (child processes, taking turns)")
                side_by_side(
                    ("ours", OURS, "schedules"),
                    (label, theirs, "schedules"),
                    args.sizes,
                    args.repeats,
                )
        else:
            days_here(args.sizes, args.repeats)
    if "rules" in sections:
        print("\none virtual day: rule targets against as many schedules (child processes)")
        side_by_side(
            ("rules", OURS, "rules"),
            ("schedules", OURS, "schedules"),
            args.rules_sizes,
            args.repeats,
        )
    if "ways" in sections:
        ways(args.ways_size, args.repeats)
    if "stretch" in sections:
        stretches()
    if "month" in sections:
        month()
    if "iam" in sections:
        iam_side_by_side(args.ways_size, args.repeats)


if __name__ == "__main__":
    main()
