"""Start and stop, over and over: nothing may be left behind, and stop() stays fast."""

from __future__ import annotations

import gc
import http.client
import os
import statistics
import threading
import time

import pytest

from pytest_schedemu import Emulator

pytestmark = pytest.mark.stress

CYCLES = 1000


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def settle() -> tuple[int, int]:
    gc.collect()
    return threading.active_count(), open_descriptors()


def test_a_thousand_emulator_cycles_leak_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    threads_before, fds_before = settle()
    stops = []
    for cycle in range(CYCLES):
        emu = Emulator(start="2026-03-01T00:00:00Z").start()
        port = int(emu.endpoint_url.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/schedule-groups")
        assert connection.getresponse().read()
        if cycle % 50 == 0:
            client = emu.client()
            client.list_schedules()  # a kept-alive botocore connection at stop time
        began = time.perf_counter()
        emu.stop()
        stops.append(time.perf_counter() - began)
        connection.close()
        if cycle % 50 == 0:
            client.close()
    threads_after, fds_after = settle()
    p99 = sorted(stops)[int(len(stops) * 0.99) - 1]
    with capsys.disabled():
        print(
            f"\nlifecycle: {CYCLES} Emulator start/stop cycles; stop() median "
            f"{statistics.median(stops) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, max "
            f"{max(stops) * 1e3:.1f} ms; threads {threads_before}->{threads_after}, "
            f"descriptors {fds_before}->{fds_after}"
        )
    assert threads_after == threads_before
    assert fds_after <= fds_before
    assert p99 < 0.1


def test_a_thousand_fixture_cycles_leak_nothing(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.parametrize("index", range({CYCLES}))
        def test_cycle(schedemu, scheduler_client, index):
            scheduler_client.create_schedule_group(Name=f"g{{index}}")
            assert len(scheduler_client.list_schedule_groups()["ScheduleGroups"]) == 2
        """
    )
    threads_before, fds_before = settle()
    began = time.perf_counter()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    elapsed = time.perf_counter() - began
    result.assert_outcomes(passed=CYCLES)
    threads_after, fds_after = settle()
    with capsys.disabled():
        print(
            f"\nlifecycle: {CYCLES} tests through the schedemu fixture in {elapsed:.1f} s; "
            f"threads {threads_before}->{threads_after}, descriptors {fds_before}->{fds_after}"
        )
    assert threads_after == threads_before
    assert fds_after <= fds_before
