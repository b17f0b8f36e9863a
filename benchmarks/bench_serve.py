"""Service throughput: the emulator's server beside a bare Werkzeug app on the same server.

Both run on the emulator's own server class with the same settings (connection limit, idle
timeout, framing checks); 32 client threads send plain HTTP requests (a new connection
each, as Werkzeug's server closes it after every answer) for a few seconds per round, in
interleaved rounds:

  emulator   GET /schedule-groups (ListScheduleGroups) and GET /schedules/<name>
             (GetSchedule) answered by the Scheduler API
  bare       the same requests answered by a WSGI app with canned bodies

The clients are plain ``http.client`` rather than boto3 so that the server, not the client,
is what is measured. Prints requests per second and the ratio, of the medians and of each
round (median and range; target >= 0.9).

Run: python benchmarks/bench_serve.py [--rounds 5] [--seconds 3] [--threads 32]
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import threading
import time
from collections.abc import Iterable
from typing import Any, Callable

from pytest_schedemu import Emulator
from pytest_schedemu.wire.server import ServerThread

ROLE = "arn:aws:iam::123456789012:role/r"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:q"
GROUPS = b'{"ScheduleGroups": [{"Name": "default", "State": "ACTIVE"}]}'
SCHEDULE = b'{"Name": "s", "ScheduleExpression": "rate(5 minutes)", "State": "ENABLED"}'
AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=testing/20260301/us-east-1/scheduler/aws4_request, "
    "SignedHeaders=host, Signature=0"
)


def canned_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    body = GROUPS if environ["PATH_INFO"] == "/schedule-groups" else SCHEDULE
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]


def hammer(port: int, seconds: float, threads: int) -> float:
    """Requests per second answered 200 by the server on ``port``."""
    done = [0] * threads
    deadline = time.monotonic() + seconds

    def client(index: int) -> None:
        paths = ("/schedule-groups", "/schedules/s")
        while time.monotonic() < deadline:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request(
                "GET", paths[done[index] % 2], headers={"Authorization": AUTHORIZATION}
            )
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                done[index] += 1

    started = time.monotonic()
    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--threads", type=int, default=32)
    args = parser.parse_args()
    with Emulator(start="2026-03-01T08:00:00Z") as emu:
        emu.client().create_schedule(
            Name="s",
            ScheduleExpression="rate(5 minutes)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        emulator_port = int(emu.endpoint_url.rsplit(":", 1)[1])
        bare = ServerThread(canned_app)
        try:
            results: dict[str, list[float]] = {"emulator": [], "bare": []}
            hammer(emulator_port, 1, args.threads)  # warm-up
            hammer(bare.port, 1, args.threads)
            for round_index in range(args.rounds):
                order = [("emulator", emulator_port), ("bare", bare.port)]
                for name, port in order if round_index % 2 == 0 else order[::-1]:
                    results[name].append(hammer(port, args.seconds, args.threads))
        finally:
            bare.stop()
    medians = {name: statistics.median(values) for name, values in results.items()}
    # Each round's own ratio: the two ran back to back, under much the same load.
    per_round = [ours / bare for ours, bare in zip(results["emulator"], results["bare"])]
    print(
        f"requests/s, median of {args.rounds} rounds of {args.seconds:g} s, {args.threads} threads"
    )
    for name, value in medians.items():
        print(f"  {name:<9} {value:8.0f}")
    print(
        f"emulator / bare = {medians['emulator'] / medians['bare']:.2f}; per round "
        f"{statistics.median(per_round):.2f} ({min(per_round):.2f}-{max(per_round):.2f}) "
        "(target >= 0.9)"
    )


if __name__ == "__main__":
    main()
