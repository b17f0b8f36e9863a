"""Per-test cost of the ``schedemu`` fixture, measured through real pytest runs.

A generated suite of N tests of one flavour runs in a fresh ``python -m pytest`` process,
for N = 5 and N = 1005; the per-test cost is the slope, (time(1005) - time(5)) / 1000, so
the start-up of pytest, of the plugin and of the session's emulator cancels out. The time is
the run's CPU time (user + system, every thread), which a shared machine's load disturbs far
less than the wall-clock time. Each run is repeated, in rounds that interleave the flavours,
and the least kept.

Flavours, side by side:
  empty       def test(): pass
  client      a test using ``scheduler_client`` that makes one call
  app         a test whose application module built its own ``boto3.client("scheduler")``
              at import time (served by the interception) and makes one call
  canned      the floor: a module-level client whose ``before-send`` hook answers with a
              canned response (botocore's own work for one call, no emulator at all)
  moto        moto's ``mock_aws`` entered per test, a client, one call

The target: a schedemu test's cost over an empty test is at most 1.25x the canned call's,
both for ``scheduler_client`` and for the application's module-level client.

Run: python benchmarks/bench_fixture.py [--repeats 3] [--sizes 5 1005]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

BODIES = {
    "empty": """
def test_{i}():
    pass
""",
    "client": """
def test_{i}(scheduler_client):
    scheduler_client.list_schedules()
""",
    "app": """
def test_{i}(schedemu):
    app.CLIENT.list_schedules()
""",
    "canned": """
def test_{i}():
    canned.CLIENT.list_schedules()
""",
    "moto": """
def test_{i}():
    with mock_aws():
        boto3.client("scheduler", region_name="us-east-1").list_schedules()
""",
}
HEADERS = {
    "empty": "",
    "client": "",
    "app": "import app\n",
    "canned": "import canned\n",
    "moto": "import boto3\nfrom moto import mock_aws\n",
}
APP = """import boto3

# The common module-level client: built at import, with whatever endpoint the machine has.
CLIENT = boto3.client("scheduler", region_name="us-east-1")
"""

CANNED = """import io

import boto3
from botocore.awsrequest import AWSResponse

CLIENT = boto3.client("scheduler", region_name="us-east-1")


class _Raw(io.BytesIO):
    def stream(self, **_):
        yield self.getvalue()


def _answer(request, **_):
    return AWSResponse(
        request.url, 200, {"Content-Type": "application/json"}, _Raw(b'{"Schedules": []}')
    )


CLIENT.meta.events.register("before-send.scheduler.ListSchedules", _answer)
"""


def run_suite(
    folder: Path, flavour: str, count: int, instructions: bool, *, name: str = ""
) -> float:
    """The CPU time (user + system, all threads) of one pytest run of the suite, in seconds:
    on a shared machine it moves far less with the neighbours' load than the wall-clock time
    does. With ``instructions``, the instructions the run executed instead (valgrind), which
    the load does not move at all."""
    suite = folder / f"test_{flavour}_{name or count}.py"
    suite.write_text(HEADERS[flavour] + "".join(BODIES[flavour].format(i=i) for i in range(count)))
    counter = (
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] if instructions else []
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(
        [
            *counter,
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-o",
            "addopts=",
            str(suite),
        ],
        cwd=folder,
        check=True,
        capture_output=True,
        env={
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "PATH": "/usr/bin:/bin",
            # The caller's path after the suite's: a checkout's package, not the installed one.
            "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]),
            "PYTHONHASHSEED": "0",
        },
    )
    if instructions:
        # The largest count is pytest's own process (its short-lived children report too).
        return max(int(n) for n in re.findall(rb"Collected : (\d+)", run.stderr))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _spread(values: list[float], form: str) -> str:
    return (
        f"{format(statistics.median(values), form)} "
        f"({format(min(values), form)}-{format(max(values), form)}): "
        + " ".join(format(value, form) for value in values)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs=2, default=[5, 1005])
    parser.add_argument(
        "--skip-moto", action="store_true", help="leave out moto, the slowest flavour by far"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count executed instructions under valgrind instead of CPU time (deterministic; "
        "slow: use --repeats 1 --sizes 5 505 --skip-moto)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="with --instructions, how many counted runs at once",
    )
    args = parser.parse_args()
    small, large = args.sizes
    flavours = [f for f in BODIES if not (args.skip_moto and f == "moto")]
    times: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        (folder / "app.py").write_text(APP)
        (folder / "canned.py").write_text(CANNED)
        # One unmeasured run of each flavour first: the first process to import a module
        # whose bytecode cache is missing or stale (a fresh checkout, an edited file) compiles
        # it, and that run's count would hold a second of compiling.
        for flavour in flavours:
            run_suite(folder, flavour, 1, False, name="warm")
        runs = [
            (flavour, size)
            for _ in range(args.repeats)
            # Rounds interleave the flavours, so a noisy stretch of the machine falls on all.
            for flavour in flavours
            for size in (small, large)
        ]
        # Counted instructions do not depend on the load, so those runs may share the cores.
        with ThreadPoolExecutor(args.jobs if args.instructions else 1) as pool:
            counts = pool.map(lambda run: run_suite(folder, *run, args.instructions), runs)
            for run, count in zip(runs, counts):
                times.setdefault(run, []).append(count)
    scale, unit = (1e-6, "M instructions") if args.instructions else (1e3, "CPU ms")

    def slope(flavour: str, pick: Callable[[list[float]], float]) -> float:
        return (pick(times[flavour, large]) - pick(times[flavour, small])) / (large - small) * scale

    slopes = {flavour: slope(flavour, min) for flavour in flavours}
    print(f"{unit} per test (slope between {small} and {large} tests, best of {args.repeats})")
    for flavour, per_test in slopes.items():
        print(f"  {flavour:<8} {per_test:8.3f}")
    empty = slopes["empty"]
    floor = max(slopes["canned"] - empty, 1e-6)
    print(f"canned: {floor:.3f} {unit} over an empty test (botocore's own call, no emulator)")
    for flavour in ("client", "app"):
        over = slopes[flavour] - empty
        print(
            f"{flavour}: {over:.3f} {unit} over an empty test = {over / floor:.2f}x the canned "
            "call (target <= 1.25x)"
        )
    if args.repeats > 1:
        # Each round on its own too: the least of each flavour may come from different
        # rounds, and an empty test's count moves a little from run to run.
        rounds = [
            {flavour: slope(flavour, lambda runs, i=i: runs[i]) for flavour in flavours}
            for i in range(args.repeats)
        ]
        print("per round (median, least-most):")
        for flavour in ("empty", "canned", "client", "app"):
            print(f"  {flavour:<8} {_spread([r[flavour] for r in rounds], '.3f')} {unit}")
        for flavour in ("client", "app"):
            ratios = [
                (r[flavour] - r["empty"]) / max(r["canned"] - r["empty"], 1e-6) for r in rounds
            ]
            print(f"  {flavour:<8} {_spread(ratios, '.3f')}x the canned call, over an empty test")
    if "moto" not in slopes:
        return
    ours = max(slopes["client"] - empty, 1e-6)
    print(
        f"moto / schedemu (client, over empty) = {(slopes['moto'] - empty) / ours:.0f}x "
        "(target >= 50x)"
    )


if __name__ == "__main__":
    main()
