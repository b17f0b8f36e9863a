"""Churn with nothing live leaves memory where it was: 100,000 schedules created and
deleted (far-future at(), so none ever fires) in a fresh process, whose RSS is read before
and after."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# 100,000 create and delete cycles in a process of their own: 80 s on a busy machine.
pytestmark = [pytest.mark.stress, pytest.mark.timeout(600)]

SCRIPT = textwrap.dedent(
    """
    import gc
    from pytest_schedemu import Emulator

    def rss():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096 / 2**20

    target = {"Arn": "arn:aws:sqs:us-east-1:123456789012:q",
              "RoleArn": "arn:aws:iam::123456789012:role/r"}
    with Emulator(start="2026-03-01T00:00:00Z") as emu:
        client = emu.client()

        def cycle(index):
            client.create_schedule(Name=f"s{index}", ScheduleExpression="at(2099-01-01T00:00:00)",
                                   FlexibleTimeWindow={"Mode": "OFF"}, Target=target)
            client.delete_schedule(Name=f"s{index}")

        for index in range(2000):  # caches and pools reach their size
            cycle(index)
        gc.collect()
        start = rss()
        for index in range(2000, 102000):
            cycle(index)
        gc.collect()
        planned = len(emu.debug.planned_schedules())
        print(start, rss(), emu.debug.queued_items(), planned, len(emu.schedules()))
    """
)


def test_a_hundred_thousand_cycles_leave_only_what_is_live() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=900
    )
    start, end, queued, plans, schedules = (float(v) for v in result.stdout.split())
    print(
        f"\nchurn: 100,000 create+delete cycles; RSS {start:.0f} -> {end:.0f} MiB "
        f"(+{end - start:.0f}); queue {queued:.0f} items, {plans:.0f} plans, "
        f"{schedules:.0f} schedules"
    )
    assert (plans, schedules) == (0, 0)
    assert queued <= 1100  # stale items are swept out past a constant
    assert end - start < 50
