"""Memory per live schedule: what N schedules cost an emulator, and its state file.

The schedules are what an application makes: cron expressions in a handful of time zones
(``ScheduleExpressionTimezone``), a small JSON ``Input`` of its own per schedule, one of a
few target ARNs and role ARNs, and boto3's automatic ``ClientToken``. Three figures, each
measured in a fresh child process so that one cannot warm the next:

* **tracemalloc**: the bytes Python allocated and kept, the snapshot after creating the
  schedules against the one before (``gc.collect()`` first), per schedule;
* **peak RSS**: the growth of the process's peak resident set (``resource.getrusage``)
  while creating them, per schedule; it adds the allocator's slack to the figure above;
* **state file**: an emulator with ``state=PATH`` creates them and stops; the file's
  growth over an empty state's, per schedule.

Two ways in, both the public API's request path:

* ``client`` (the default up to 100,000 schedules): ``emu.client()``'s boto3 client, which
  fills ``ClientToken`` itself;
* ``wsgi`` (the default beyond): the request boto3 would send for the same call, a uuid4
  ``ClientToken`` in its body, handed to the emulator's application in process (the
  in-process transport's ``call_wsgi``) without botocore's per-call cost, so that a million
  schedules take minutes rather than most of an hour. What is stored is the same.

Run: python benchmarks/bench_memory.py [--count 20000] [--path client|wsgi]
     [--measure tracemalloc rss state] [--top 25]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
GOAL_BYTES = 1500
ZONES = ("America/New_York", "Europe/London", "Asia/Tokyo", "Australia/Sydney", "UTC")
EXPRESSIONS = (
    "cron(0 9 ? * MON-FRI *)",
    "cron(30 6 * * ? *)",
    "cron(0 */4 * * ? *)",
    "cron(15 12 1 * ? *)",
    "cron(0 18 ? * SUN *)",
    "cron(45 7 L * ? *)",
)
TARGETS = (
    "arn:aws:sqs:us-east-1:123456789012:reminders",
    "arn:aws:lambda:us-east-1:123456789012:function:send-reminder",
    "arn:aws:sns:us-east-1:123456789012:notifications",
)
ROLES = (
    "arn:aws:iam::123456789012:role/scheduler-reminders",
    "arn:aws:iam::123456789012:role/scheduler-notifications",
)
#: Schedules made before the first measurement: the caches and tables every schedule
#: shares fill then, as they would in any service that has been running a while.
WARM_UP = 200


def request(index: int) -> dict[str, Any]:
    """The CreateSchedule parameters of schedule ``index`` (ClientToken aside)."""
    return {
        "Name": f"reminder-{index:08d}",
        "ScheduleExpression": EXPRESSIONS[index % len(EXPRESSIONS)],
        "ScheduleExpressionTimezone": ZONES[index % len(ZONES)],
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {
            "Arn": TARGETS[index % len(TARGETS)],
            "RoleArn": ROLES[index % len(ROLES)],
            "Input": json.dumps({"customer": index, "kind": "renewal", "channel": "email"}),
        },
    }


def creator(emu: Emulator, path: str) -> Callable[[int], None]:
    """A function that creates schedule ``index`` by ``path``."""
    if path == "client":
        client = emu.client()
        return lambda index: client.create_schedule(**request(index))

    from pytest_schedemu.protocol.signing import unsigned_authorization
    from pytest_schedemu.wire.transport import call_wsgi

    app = emu._app  # the application the in-process transport and the server both run
    base = f"https://scheduler.{emu.region}.amazonaws.com/schedules/"
    headers = [
        ("Content-Type", "application/json"),
        ("Authorization", unsigned_authorization("AKIAEXAMPLE", emu.region, "scheduler")),
    ]

    def create(index: int) -> None:
        params = request(index)
        name = params.pop("Name")
        params["ClientToken"] = str(uuid.uuid4())
        status, _, body = call_wsgi(app, "POST", base + name, headers, json.dumps(params).encode())
        if status != 200:
            raise RuntimeError(f"CreateSchedule answered {status}: {body!r}")

    return create


def create_all(emu: Emulator, path: str, first: int, count: int) -> float:
    create = creator(emu, path)
    started = time.perf_counter()
    for index in range(first, first + count):
        create(index)
    return time.perf_counter() - started


# -- the measurements, each run in a child process ------------------------------------------


def measure_tracemalloc(count: int, path: str, top: int) -> dict[str, Any]:
    with Emulator(start=START, transport="inprocess") as emu:
        create_all(emu, path, 0, WARM_UP)
        gc.collect()
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        seconds = create_all(emu, path, WARM_UP, count)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        stats = after.compare_to(before, "lineno")
        total = sum(stat.size_diff for stat in stats)
        lines = [
            f"{stat.size_diff / count:9.1f} B {stat.count_diff / count:6.2f} blocks  "
            f"{_short(stat.traceback[0].filename)}:{stat.traceback[0].lineno}"
            for stat in stats[:top]
        ]
        return {"bytes": total / count, "seconds": seconds, "lines": lines}


def measure_rss(count: int, path: str) -> dict[str, Any]:
    with Emulator(start=START, transport="inprocess") as emu:
        create_all(emu, path, 0, WARM_UP)
        gc.collect()
        before = _peak_rss()
        seconds = create_all(emu, path, WARM_UP, count)
        gc.collect()
        return {"bytes": (_peak_rss() - before) / count, "seconds": seconds, "peak": _peak_rss()}


def measure_state(count: int, path: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder, "empty.db")
        Emulator(start=START, transport="inprocess", state=str(empty)).stop()
        full = Path(folder, "full.db")
        emu = Emulator(start=START, transport="inprocess", state=str(full)).start()
        try:
            seconds = create_all(emu, path, 0, count)
        finally:
            emu.stop()
        size = _file_bytes(full)
        return {"bytes": (size - _file_bytes(empty)) / count, "seconds": seconds, "size": size}


def _file_bytes(path: Path) -> int:
    # A state file's journal files are part of what it keeps on disk, if any are left.
    return sum(
        os.path.getsize(f"{path}{suffix}")
        for suffix in ("", "-wal", "-shm", "-journal")
        if os.path.exists(f"{path}{suffix}")
    )


def _peak_rss() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux counts KiB


def _short(filename: str) -> str:
    marker = f"{os.sep}pytest_schedemu{os.sep}"
    if marker in filename:
        return "pytest_schedemu/" + filename.split(marker, 1)[1]
    return filename.rsplit(os.sep, 2)[-1] if "python" in filename else filename


def in_child(measure: str, count: int, path: str, top: int) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter, which sees the same ``sys.path``."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    command = [
        sys.executable,
        __file__,
        "--child",
        measure,
        "--count",
        str(count),
        "--path",
        path,
        "--top",
        str(top),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {measure} run failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


MEASURES: dict[str, Callable[..., dict[str, Any]]] = {
    "tracemalloc": lambda count, path, top: measure_tracemalloc(count, path, top),
    "rss": lambda count, path, top: measure_rss(count, path),
    "state": lambda count, path, top: measure_state(count, path),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20_000, help="schedules (default 20,000)")
    parser.add_argument(
        "--path",
        choices=("client", "wsgi"),
        help="client: emu.client(); wsgi: boto3's request handed to the app in process "
        "(default: client up to 100,000 schedules, wsgi beyond)",
    )
    parser.add_argument(
        "--measure", nargs="+", choices=tuple(MEASURES), default=list(MEASURES), metavar="WHAT"
    )
    parser.add_argument("--top", type=int, default=25, help="tracemalloc lines to print")
    parser.add_argument("--child", choices=tuple(MEASURES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    path = args.path or ("client" if args.count <= 100_000 else "wsgi")
    if args.child:
        print(json.dumps(MEASURES[args.child](args.count, path, args.top)))
        return

    print(f"{args.count:,} schedules created through {path}, each measure in its own process")
    for measure in args.measure:
        result = in_child(measure, args.count, path, args.top)
        per = result["bytes"]
        rate = args.count / result["seconds"]
        print(
            f"{measure:>12}: {per:8.0f} B per schedule = {per / GOAL_BYTES:.2f}x the "
            f"{GOAL_BYTES:,} B goal  (created in {result['seconds']:.1f} s, {rate:,.0f}/s)"
        )
        if measure == "rss":
            print(f"{'':>14}peak RSS {result['peak'] / 2**20:,.0f} MiB")
        if measure == "state":
            print(f"{'':>14}state file {result['size'] / 2**20:,.1f} MiB")
        for line in result.get("lines", ()):
            print(f"{'':>14}{line}")


if __name__ == "__main__":
    main()
