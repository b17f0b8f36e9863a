"""Per-call cost of CreateSchedule / GetSchedule / DeleteSchedule through boto3.

Four backends are measured side by side in one process, in interleaved rounds:

  http       the emulator over its in-thread HTTP server
  http+state the same with a state file (``state=PATH``): every change written to SQLite
             before it is answered
  inprocess  the emulator through the in-process transport (no socket)
  inproc+state  the same with a state file
  intercept  an application's own client (signed, pointed at a closed port) served by the
             emulator's interception (``emu.intercept()``, as in a ``schedemu`` test)
  floor      a bare Werkzeug app answering canned responses on the same server: the cost
             of boto3 plus HTTP plus Werkzeug, with no emulation at all
  botocore   botocore's own floor: a client configured as the in-process one (unsigned)
             whose before-send handler returns canned answers, with no emulation at all
  moto       moto's mock_aws

Run: python benchmarks/bench_api.py [--rounds 15] [--calls 40]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import socket
import statistics
import tempfile
import time
from collections.abc import Iterable
from typing import Any, Callable

import boto3
from botocore.config import Config

from pytest_schedemu import Emulator
from pytest_schedemu.wire.server import ServerThread
from pytest_schedemu.wire.transport import RawBody

OPERATIONS = ("create", "get", "delete")
ROLE = "arn:aws:iam::123456789012:role/r"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:q"
ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s"


def canned_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    method = environ["REQUEST_METHOD"]
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    if method == "POST":
        body: dict[str, Any] = {"ScheduleArn": ARN}
    elif method == "GET":
        body = {
            "Arn": ARN,
            "Name": "s",
            "GroupName": "default",
            "ScheduleExpression": "rate(5 minutes)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "State": "ENABLED",
            "CreationDate": 1772352000.0,
            "LastModificationDate": 1772352000.0,
            "Target": {"Arn": QUEUE, "RoleArn": ROLE},
        }
    else:
        body = {}
    data = json.dumps(body).encode()
    start_response(
        "200 OK",
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("x-amzn-RequestId", "00000000-0000-4000-8000-000000000000"),
        ],
    )
    return [data]


def plain_client(endpoint_url: str) -> Any:
    return boto3.client(
        "scheduler",
        endpoint_url=endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )


def canned_answer(request: Any, **_: Any) -> Any:
    """A before-send handler answering what canned_app answers, without a server."""
    from botocore.awsrequest import AWSResponse

    captured: list[Any] = []
    environ = {"REQUEST_METHOD": request.method, "wsgi.input": io.BytesIO(), "CONTENT_LENGTH": "0"}
    body = b"".join(canned_app(environ, lambda status, headers: captured.extend(headers)))
    return AWSResponse(request.url, 200, dict(captured), RawBody(body))


def botocore_floor_client(emulator: Emulator) -> Any:
    client = emulator.client(config=Config(retries={"total_max_attempts": 1}))
    # Registered first, the canned answer runs before the in-process transport, whose work
    # is skipped: what remains is botocore's own cost of building a request and parsing.
    client.meta.events.register_first("before-send.scheduler", canned_answer)
    return client


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def one_round(client: Any, calls: int, prefix: str, samples: dict[str, list[float]]) -> None:
    clock = time.perf_counter
    for index in range(calls):
        name = f"{prefix}-{index}"
        started = clock()
        client.create_schedule(
            Name=name,
            ScheduleExpression="rate(5 minutes)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        created = clock()
        client.get_schedule(Name=name)
        got = clock()
        client.delete_schedule(Name=name)
        deleted = clock()
        samples["create"].append(created - started)
        samples["get"].append(got - created)
        samples["delete"].append(deleted - got)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()

    from moto import mock_aws

    folder = tempfile.TemporaryDirectory()
    http = Emulator(start="2026-03-01T08:00:00Z", transport="http").start()
    http_state = Emulator(
        start="2026-03-01T08:00:00Z", transport="http", state=f"{folder.name}/http.db"
    ).start()
    inprocess = Emulator(start="2026-03-01T08:00:00Z", transport="inprocess").start()
    inprocess_state = Emulator(
        start="2026-03-01T08:00:00Z", transport="inprocess", state=f"{folder.name}/inproc.db"
    ).start()
    intercepting = Emulator(start="2026-03-01T08:00:00Z").start()
    floor_server = ServerThread(canned_app)
    moto_mock = mock_aws()
    clients: dict[str, Callable[[], Any]] = {}
    try:
        http_client = http.client()
        http_state_client = http_state.client()
        inprocess_client = inprocess.client()
        inprocess_state_client = inprocess_state.client()
        floor_client = plain_client(floor_server.url)
        botocore_client = botocore_floor_client(inprocess)
        intercepted_client = plain_client(closed_port_url())

        def moto_client() -> Any:
            return boto3.client(
                "scheduler",
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
            )

        moto_mock.start()
        moto = moto_client()
        clients = {
            "http": lambda: http_client,
            "http+state": lambda: http_state_client,
            "inprocess": lambda: inprocess_client,
            "inproc+state": lambda: inprocess_state_client,
            "intercept": lambda: intercepted_client,
            "floor": lambda: floor_client,
            "botocore": lambda: botocore_client,
            "moto": lambda: moto,
        }
        # Interception is process-wide: on only for its own rounds, or it would serve all.
        contexts: dict[str, Callable[[], Any]] = {"intercept": intercepting.intercept}
        samples = {name: {op: [] for op in OPERATIONS} for name in clients}
        for name, get_client in clients.items():  # warm-up
            with contexts.get(name, contextlib.nullcontext)():
                warm = "warm-" + name.replace("+", "-")
                one_round(get_client(), 5, warm, {op: [] for op in OPERATIONS})
        for round_index in range(args.rounds):
            order = list(clients)
            order = order[round_index % len(order) :] + order[: round_index % len(order)]
            for name in order:
                with contexts.get(name, contextlib.nullcontext)():
                    one_round(clients[name](), args.calls, f"r{round_index}", samples[name])
    finally:
        moto_mock.stop()
        http.stop()
        http_state.stop()
        inprocess.stop()
        inprocess_state.stop()
        folder.cleanup()
        intercepting.stop()
        floor_server.stop()

    medians = {
        name: {op: statistics.median(values) * 1e6 for op, values in per_op.items()}
        for name, per_op in samples.items()
    }
    per_call = {
        name: statistics.median([v for values in per_op.values() for v in values]) * 1e6
        for name, per_op in samples.items()
    }
    print(f"median µs per call ({args.rounds} rounds x {args.calls} calls per operation)")
    print(f"{'backend':<13}" + "".join(f"{op:>10}" for op in OPERATIONS) + f"{'all':>10}")
    for name in clients:
        row = "".join(f"{medians[name][op]:>10.0f}" for op in OPERATIONS)
        print(f"{name:<13}{row}{per_call[name]:>10.0f}")
    print()
    print("ratios (per-call medians; lower is better)")
    for op in (*OPERATIONS, "all"):
        pick = (lambda n: per_call[n]) if op == "all" else (lambda n, op=op: medians[n][op])
        print(
            f"  {op:<7} inprocess/moto = {pick('inprocess') / pick('moto'):.2f}   "
            f"http/floor = {pick('http') / pick('floor'):.2f}   "
            f"intercept/inprocess = {pick('intercept') / pick('inprocess'):.2f}   "
            f"inprocess/botocore = {pick('inprocess') / pick('botocore'):.2f}   "
            f"http+state/http = {pick('http+state') / pick('http'):.2f}   "
            f"inproc+state/inprocess = {pick('inproc+state') / pick('inprocess'):.2f}"
        )
    print(
        "targets: inprocess/moto <= 0.70, http/floor <= 1.30, inprocess/botocore <= 1.20, "
        "http+state/http <= 1.50"
    )


if __name__ == "__main__":
    main()
