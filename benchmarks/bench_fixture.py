"""Per-test cost of the ``schedemu`` fixture, beside moto's ``mock_aws``.

The fixture's per-test work is replayed exactly as the plugin does it, against one
session emulator: reset (empty state, clock at the test's start), environment set and
restored, interception entered and left, the cached client, and, to match what the moto
side does, one API call.
moto's per-test cost is entering ``mock_aws``, creating a client, one call, exiting.

Run: python benchmarks/bench_fixture.py [--rounds 9] [--tests 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import boto3

from pytest_schedemu import Emulator
from pytest_schedemu.plugin import _restore_environment, _set_environment
from pytest_schedemu.times import wall_clock_now


def schedemu_test(emu: Emulator, call: bool) -> Callable[[], None]:
    def one_test() -> None:
        emu.reset(start=wall_clock_now(), region="us-east-1", account_id="123456789012", seed=0)
        emu.use_transport("http")
        saved = _set_environment(emu)
        with emu.intercept():
            client = emu.client()
            if call:
                client.list_schedules()
        _restore_environment(saved)

    return one_test


def moto_test() -> None:
    from moto import mock_aws

    with mock_aws():
        client = boto3.client(
            "scheduler",
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        client.list_schedules()


def sample(test: Callable[[], None], count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        test()
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--tests", type=int, default=200)
    args = parser.parse_args()
    with Emulator() as emu:
        cases = {
            "schedemu (reset + env + client)": schedemu_test(emu, call=False),
            "schedemu (+ one call)": schedemu_test(emu, call=True),
            "moto mock_aws (enter, client, one call, exit)": moto_test,
        }
        for test in cases.values():  # warm-up: model loading, the session's client
            sample(test, 5)
        results = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, test in cases.items():
                results[name] += sample(test, args.tests // args.rounds or 1)
    medians = {name: statistics.median(values) * 1e3 for name, values in results.items()}
    print("median ms per test")
    for name, value in medians.items():
        print(f"  {name:<48} {value:8.3f}")
    ours = medians["schedemu (+ one call)"]
    theirs = medians["moto mock_aws (enter, client, one call, exit)"]
    print(f"moto / schedemu (+ one call) = {theirs / ours:.1f}x (target >= 20x)")
    print(f"fixture alone: {medians['schedemu (reset + env + client)']:.3f} ms (target <= 1 ms)")


if __name__ == "__main__":
    main()
