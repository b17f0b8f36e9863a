"""Timeline rendering: ~1,000 and ~100,000 recorded attempts, to SVG and to an HTML page.

The records come from a real emulator run: schedules created through boto3 (in process),
a Lambda target that fails with throttling for a while (retries, dead letters to an SQS
queue), an SQS queue that goes missing for an hour (permanent failures, dropped
occurrences), a New York cron across the start of daylight saving time, a rate schedule
with a flexible window, and a schedule deleted after seven hours. Only the rendering is
timed.

The first render of a run also computes the attempt records' lazily built fields (their
instants), which the emulator leaves for the first reader; it is reported on its own,
and the targets are checked against the median of the runs after it. The "file" rows time
``emu.timeline(path)`` whole, as the pytest plugin calls it for a failing test: gathering
the records from the emulator, rendering the page and writing it.

Targets: 1,000 attempts <= 50 ms; 100,000 attempts <= 1 s; every picture < 2 MB.

Run: python benchmarks/bench_timeline.py [--sizes 1000 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.timeline import TimelineData, render_timeline_html, render_timeline_svg

START = datetime(2026, 3, 7, 12, 0, tzinfo=timezone.utc)
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:jobs"
LOST_QUEUE = "arn:aws:sqs:us-east-1:123456789012:exports"
DLQ = "arn:aws:sqs:us-east-1:123456789012:dlq"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:charge"
TARGETS = {1000: 50e-3, 100000: 1.0}
MAX_BYTES = 2_000_000
FILE_TIMINGS: dict[int, tuple[float, float, float, int]] = {}


def scenario(attempts: int, write_to: Path | None = None, repeats: int = 0) -> TimelineData:
    """About ``attempts`` attempts: one virtual day up to 10,000, two days beyond.

    With ``write_to``, ``emu.timeline()`` is first timed ``repeats`` + 1 times there (the
    timings are left in ``FILE_TIMINGS``).
    """
    small = attempts <= 10_000
    days = 1 if small else 2
    # (expression, attempts per day) of the busy schedules, and the others' expressions.
    busy_rate, per_day = ("rate(10 minutes)", 144) if small else ("rate(1 minute)", 1440)
    charge, export, sync, legacy = (
        ("rate(30 minutes)", "rate(1 hour)", "rate(1 hour)", "rate(1 hour)")
        if small
        else ("rate(5 minutes)", "rate(15 minutes)", "rate(10 minutes)", "rate(20 minutes)")
    )
    others = 150 if small else 1200
    busy = max(1, round((attempts - others) / (per_day * days)))
    with Emulator(start=START, transport="inprocess", max_attempts_per_advance=None) as emu:
        client = emu.client()

        def create(name: str, expression: str, arn: str, **extra: Any) -> None:
            target = {"Arn": arn, "RoleArn": ROLE, "Input": f'{{"job": "{name}"}}'}
            target.update(extra.pop("target", {}))
            client.create_schedule(
                Name=name,
                ScheduleExpression=expression,
                FlexibleTimeWindow=extra.pop("window", {"Mode": "OFF"}),
                Target=target,
                **extra,
            )

        for index in range(busy):
            create(f"busy-{index:03d}", busy_rate, QUEUE)
        create(
            "charge",
            charge,
            FUNCTION,
            target={"RetryPolicy": {"MaximumRetryAttempts": 3}, "DeadLetterConfig": {"Arn": DLQ}},
        )
        create("export", export, LOST_QUEUE)
        create(
            "morning",
            "cron(0 9 * * ? *)",
            QUEUE,
            ScheduleExpressionTimezone="America/New_York",
        )
        create("sync", sync, QUEUE, window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15})
        create("legacy", legacy, QUEUE)

        emu.target(FUNCTION).fail(times=40, error_code="ThrottlingException")
        emu.clock.advance(hours=6)
        emu.target(LOST_QUEUE).missing()
        emu.clock.advance(hours=1)
        emu.target(LOST_QUEUE).recover()
        client.delete_schedule(Name="legacy")
        emu.clock.advance(timedelta(days=days) - timedelta(hours=7))

        if write_to is not None:
            FILE_TIMINGS[attempts] = timed(
                lambda _: str(emu.timeline(write_to).stat().st_size), None, repeats
            )
        arns = {a.schedule_arn for a in emu.attempts()}
        executions = [e for arn in sorted(arns) for e in emu.executions(arn)]
        return TimelineData(
            emu.schedules(), executions, emu.activity(), emu.dead_letters(), emu.clock.now()
        )


def timed(render: Callable[[Any], str], data: Any, repeats: int) -> tuple[float, float, float, int]:
    """(first run, median and best of the runs after it, bytes of the output; for a render
    that writes a file, the text of its size)."""
    gc.collect()
    started = time.perf_counter()
    output = render(data)
    first = time.perf_counter() - started
    samples = []
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        render(data)
        samples.append(time.perf_counter() - started)
    size = int(output) if output.isdigit() else len(output.encode("utf-8"))
    return first, statistics.median(samples), min(samples), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print(
        f"{'attempts':>9} {'output':>6} {'first ms':>9} {'median ms':>10} {'best ms':>8} "
        f"{'bytes':>10}  median vs targets"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-timeline-"))
    for size in args.sizes:
        data = scenario(size, folder / f"{size}.html", args.repeats)
        count = sum(len(e.attempts) for e in data.executions)
        target = TARGETS.get(size)
        for name, render in (("svg", render_timeline_svg), ("html", render_timeline_html)):
            first, median, best, size_bytes = timed(render, data, args.repeats)
            verdict = f"size {size_bytes / MAX_BYTES:.2f}x of 2 MB"
            if target is not None:
                verdict = f"time {median / target:.2f}x of {target * 1000:.0f} ms, " + verdict
            print(
                f"{count:>9} {name:>6} {first * 1000:>9.1f} {median * 1000:>10.1f} "
                f"{best * 1000:>8.1f} "
                f"{size_bytes:>10,}  {verdict}"
            )
        first, median, best, size_bytes = FILE_TIMINGS[size]
        verdict = f"size {size_bytes / MAX_BYTES:.2f}x of 2 MB"
        if target is not None:
            verdict = f"time {median / target:.2f}x of {target * 1000:.0f} ms, " + verdict
        print(
            f"{count:>9} {'file':>6} {first * 1000:>9.1f} {median * 1000:>10.1f} "
            f"{best * 1000:>8.1f} {size_bytes:>10,}  {verdict}"
        )
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
