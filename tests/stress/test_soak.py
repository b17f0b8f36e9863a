"""A service soak: ``schedemu serve`` as its own process, 32 client threads of mixed CRUD and
a clock mover for a minute, then a consistency check.

Each worker owns its names, so what the service must hold at the end is known exactly
from the answers it gave: every acknowledged create, update and delete, and nothing else.
The process is watched all along: requests per second, latency, RSS, threads and file
descriptors; no answer may be a 5xx.
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.constants import QUEUE, ROLE
from tests.serve.test_serve import Served

WORKERS = 32
SECONDS = float(os.environ.get("SCHEDEMU_SOAK_SECONDS", "60"))
# The load, and time to start the service and check what it holds afterwards.
pytestmark = [pytest.mark.stress, pytest.mark.timeout(SECONDS + 240)]


def process_figures(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)

    def kib(name: str) -> int:
        return int(fields[name].split()[0]) // 1024

    return {
        "rss": kib("VmRSS"),
        "peak": kib("VmHWM"),
        "threads": int(fields["Threads"]),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
    }


class Worker(threading.Thread):
    def __init__(self, index: int, url: str, stop: threading.Event) -> None:
        super().__init__(name=f"soak-{index}", daemon=True)
        self.index = index
        self.stop_event = stop
        self.random = random.Random(index)
        self.client = boto3.client(
            "scheduler",
            endpoint_url=url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(retries={"total_max_attempts": 1}, max_pool_connections=2),
        )
        #: What this worker's names must hold: name -> expression, from acknowledged calls.
        self.expected: dict[str, str] = {}
        self.latencies: list[float] = []
        self.server_errors: list[str] = []
        self.calls = 0

    def call(self, operation: str, **params: Any) -> bool:
        started = time.perf_counter()
        try:
            getattr(self.client, operation)(**params)
            ok = True
        except ClientError as error:
            status = error.response["ResponseMetadata"]["HTTPStatusCode"]
            if status >= 500:
                self.server_errors.append(f"{operation}: {error}")
            ok = False
        self.latencies.append(time.perf_counter() - started)
        self.calls += 1
        return ok

    def run(self) -> None:
        names = [f"w{self.index}-{n}" for n in range(6)]
        while not self.stop_event.is_set():
            name = self.random.choice(names)
            choice = self.random.random()
            expression = f"rate({self.random.choice((1, 5, 60))} minutes)"
            target = {"Arn": QUEUE, "RoleArn": ROLE}
            window = {"Mode": "OFF"}
            if choice < 0.35:
                if self.call(
                    "create_schedule",
                    Name=name,
                    ScheduleExpression=expression,
                    FlexibleTimeWindow=window,
                    Target=target,
                ):
                    self.expected[name] = expression
            elif choice < 0.55:
                if self.call(
                    "update_schedule",
                    Name=name,
                    ScheduleExpression=expression,
                    FlexibleTimeWindow=window,
                    Target=target,
                ):
                    self.expected[name] = expression
            elif choice < 0.75:
                if self.call("delete_schedule", Name=name):
                    self.expected.pop(name, None)
            elif choice < 0.9:
                self.call("get_schedule", Name=name)
            else:
                self.call("list_schedules", NamePrefix=f"w{self.index}-")
        self.client.close()


def test_the_service_holds_under_a_minute_of_load() -> None:
    # Warnings only: nothing reads the process's stderr until it stops.
    served = Served(
        "--clock", "virtual", "--start", "2026-03-01T00:00:00Z", "--log-level", "WARNING"
    )
    pid = served.process.pid
    try:
        start = process_figures(pid)
        peak = dict(start)
        stop = threading.Event()
        workers = [Worker(i, served.url, stop) for i in range(WORKERS)]
        moves: list[int] = []

        def move_clock() -> None:
            while not stop.is_set():
                answer = served.control("POST", "clock/advance?limit=10", {"minutes": 5})
                moves.append(answer.get("status", 200))
                time.sleep(0.05)

        mover = threading.Thread(target=move_clock, daemon=True)
        began = time.monotonic()
        for worker in workers:
            worker.start()
        mover.start()
        while time.monotonic() - began < SECONDS:
            time.sleep(1)
            now = process_figures(pid)
            peak = {key: max(peak[key], now[key]) for key in peak}
        stop.set()
        for worker in workers:
            worker.join(30)
        mover.join(30)
        elapsed = time.monotonic() - began
        end = process_figures(pid)

        listed: dict[str, str] = {}
        reader = served.client()
        for page in reader.get_paginator("list_schedules").paginate():
            for summary in page["Schedules"]:
                got = reader.get_schedule(Name=summary["Name"])
                listed[summary["Name"]] = got["ScheduleExpression"]
        reader.close()
        expected = {name: e for worker in workers for name, e in worker.expected.items()}
        inconsistencies = {
            name
            for name in expected.keys() | listed.keys()
            if expected.get(name) != listed.get(name)
        }
        latencies = sorted(t for worker in workers for t in worker.latencies)
        calls = sum(worker.calls for worker in workers)
        server_errors = [e for worker in workers for e in worker.server_errors]
        print(
            f"\nservice soak: {calls} requests in {elapsed:.0f} s ({calls / elapsed:.0f}/s) "
            f"from {WORKERS} threads, {len(moves)} clock moves; latency p50 "
            f"{statistics.median(latencies) * 1e3:.1f} ms, p99 "
            f"{latencies[int(len(latencies) * 0.99)] * 1e3:.1f} ms; RSS start "
            f"{start['rss']} MiB, peak {peak['peak']} MiB, end {end['rss']} MiB; threads "
            f"{start['threads']}->{peak['threads']}->{end['threads']}; fds "
            f"{start['fds']}->{peak['fds']}->{end['fds']}; 5xx {len(server_errors)}; "
            f"inconsistencies {len(inconsistencies)}"
        )
        assert server_errors == []
        assert set(moves) == {200}
        assert inconsistencies == set()
        assert calls / elapsed > 50
        # No thread or descriptor is left behind by the connections that came and went.
        assert end["threads"] <= start["threads"] + 4
        assert end["fds"] <= start["fds"] + 4
    finally:
        code, _, err = served.stop()
    assert code == 0, err
