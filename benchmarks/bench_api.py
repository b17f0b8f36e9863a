"""Per-call cost of CreateSchedule / GetSchedule / DeleteSchedule through boto3.

The backends, measured side by side in one process:

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

The backends take turns call by call (one create/get/delete each, in an order that rotates),
so that a neighbour's load on a shared machine falls on all of them alike; each round's
medians give one ratio per comparison, and the ratios' median and range are printed.
``--instructions`` counts instead, under valgrind, the instructions of a create/get/delete
over HTTP (http against floor), split into the client's thread and the server's threads:
the load does not move them.

Run: python benchmarks/bench_api.py [--rounds 15] [--calls 40] [--backends http floor]
     python benchmarks/bench_api.py --instructions [--calls 100]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
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
START = "2026-03-01T08:00:00Z"
BACKENDS = (
    "http",
    "http+state",
    "inprocess",
    "inproc+state",
    "intercept",
    "floor",
    "botocore",
    "moto",
)
#: (numerator, denominator, the ratio's target or None)
COMPARISONS = (
    ("inprocess", "moto", 0.70),
    ("http", "floor", 1.20),
    ("intercept", "inprocess", 1.30),
    ("inprocess", "botocore", 1.20),
    ("http+state", "http", 1.50),
    ("inproc+state", "inprocess", None),
)


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


def one_cycle(client: Any, name: str) -> tuple[float, float, float]:
    """The seconds of a create, a get and a delete of the schedule ``name``."""
    clock = time.perf_counter
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
    return created - started, got - created, deleted - got


def open_backends(
    names: list[str], stack: contextlib.ExitStack
) -> tuple[dict[str, Any], dict[str, Callable[[], Any]]]:
    """A client for each backend of ``names``, and the context some backends' calls need;
    everything they hold is released by ``stack``."""
    folder = stack.enter_context(tempfile.TemporaryDirectory())

    def emulator(**options: Any) -> Emulator:
        started = Emulator(start=START, **options).start()
        stack.callback(started.stop)
        return started

    clients: dict[str, Any] = {}
    # Interception is process-wide: on only for its own calls, or it would serve all.
    contexts: dict[str, Callable[[], Any]] = {}
    inprocess: Emulator | None = None
    # moto's mock reaches every client made after it starts: it starts last.
    for name in sorted(names, key=lambda n: n == "moto"):
        if name == "http":
            clients[name] = emulator(transport="http").client()
        elif name == "http+state":
            clients[name] = emulator(transport="http", state=f"{folder}/http.db").client()
        elif name in ("inprocess", "botocore"):
            inprocess = inprocess or emulator(transport="inprocess")
            clients[name] = (
                inprocess.client() if name == "inprocess" else botocore_floor_client(inprocess)
            )
        elif name == "inproc+state":
            clients[name] = emulator(transport="inprocess", state=f"{folder}/inproc.db").client()
        elif name == "intercept":
            contexts[name] = emulator().intercept
            clients[name] = plain_client(closed_port_url())
        elif name == "floor":
            server = ServerThread(canned_app)
            stack.callback(server.stop)
            clients[name] = plain_client(server.url)
        else:
            from moto import mock_aws

            mock = mock_aws()
            mock.start()
            stack.callback(mock.stop)
            clients[name] = boto3.client(
                "scheduler",
                region_name="us-east-1",
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
            )
    return {name: clients[name] for name in names}, contexts


def measure(names: list[str], rounds: int, calls: int) -> None:
    with contextlib.ExitStack() as stack:
        clients, contexts = open_backends(names, stack)
        samples: dict[str, dict[str, list[float]]] = {
            name: {op: [] for op in OPERATIONS} for name in names
        }
        round_medians: list[dict[str, float]] = []
        for name in names:  # warm-up
            with contexts.get(name, contextlib.nullcontext)():
                for index in range(5):
                    one_cycle(clients[name], f"warm-{index}")
        for round_index in range(rounds):
            this_round: dict[str, list[float]] = {name: [] for name in names}
            for index in range(calls):
                # Call by call, each backend in turn, the first one rotating: a burst of
                # the neighbours' load falls on all of them alike.
                shift = (round_index + index) % len(names)
                for name in names[shift:] + names[:shift]:
                    with contexts.get(name, contextlib.nullcontext)():
                        times = one_cycle(clients[name], f"r{round_index}-{index}")
                    for op, seconds in zip(OPERATIONS, times):
                        samples[name][op].append(seconds)
                    this_round[name].extend(times)
            round_medians.append({name: statistics.median(v) for name, v in this_round.items()})

    medians = {
        name: {op: statistics.median(values) * 1e6 for op, values in per_op.items()}
        for name, per_op in samples.items()
    }
    per_call = {
        name: statistics.median([v for values in per_op.values() for v in values]) * 1e6
        for name, per_op in samples.items()
    }
    print(f"median µs per call ({rounds} rounds x {calls} calls per operation, interleaved)")
    print(f"{'backend':<13}" + "".join(f"{op:>10}" for op in OPERATIONS) + f"{'all':>10}")
    for name in names:
        row = "".join(f"{medians[name][op]:>10.0f}" for op in OPERATIONS)
        print(f"{name:<13}{row}{per_call[name]:>10.0f}")
    print()
    print("ratios (lower is better): per operation, of all calls' medians; per round, of each")
    print("round's medians (median and range of the rounds)")
    for numerator, denominator, target in COMPARISONS:
        if numerator not in samples or denominator not in samples:
            continue
        per_op = "  ".join(
            f"{op} {medians[numerator][op] / medians[denominator][op]:.2f}" for op in OPERATIONS
        )
        per_round = [medians_[numerator] / medians_[denominator] for medians_ in round_medians]
        goal = f"   target <= {target:.2f}" if target is not None else ""
        print(
            f"  {numerator + '/' + denominator:<23} {per_op}   all "
            f"{per_call[numerator] / per_call[denominator]:.2f}   rounds "
            f"{statistics.median(per_round):.2f} ({min(per_round):.2f}-{max(per_round):.2f})"
            f"{goal}"
        )


def count_child(backend: str, calls: int) -> None:
    """The counted run: ``calls`` create/get/delete cycles through ``backend``'s client."""
    with contextlib.ExitStack() as stack:
        clients, _ = open_backends([backend], stack)
        for index in range(5):
            one_cycle(clients[backend], f"warm-{index}")
        for index in range(calls):
            one_cycle(clients[backend], f"counted-{index}")


def counted_instructions(backend: str, calls: int) -> tuple[int, int]:
    """The instructions a counted run executed: in the client's thread, in the server's."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--separate-threads=yes",
                f"--callgrind-out-file={folder}/counts",
                sys.executable,
                __file__,
                "--count-child",
                backend,
                str(calls),
            ],
            check=True,
            capture_output=True,
        )
        # One file per thread: the first is the main thread, where the client calls; the
        # server's threads, its connections' among them, write the others.
        client = server = 0
        for path in sorted(Path(folder).glob("counts-*")):
            found = re.search(r"^totals: (\d+)", path.read_text(), re.MULTILINE)
            count = int(found.group(1)) if found else 0
            if path.name.endswith("-01"):
                client += count
            else:
                server += count
        return client, server


def count(calls: int) -> None:
    runs = [(backend, n) for backend in ("http", "floor") for n in (0, calls)]
    # Counted instructions do not depend on the load: the runs may share the cores.
    with ThreadPoolExecutor(2) as pool:
        totals = dict(zip(runs, pool.map(lambda run: counted_instructions(*run), runs)))
    per_call: dict[str, tuple[float, float]] = {}
    for backend in ("http", "floor"):
        counted, idle = totals[backend, calls], totals[backend, 0]
        per_call[backend] = ((counted[0] - idle[0]) / calls / 3, (counted[1] - idle[1]) / calls / 3)
    print(f"instructions per call (valgrind; {calls} create/get/delete cycles, less a run of none)")
    print(f"{'backend':<9}{'client':>12}{'server':>12}{'all':>12}")
    for backend, (client, server) in per_call.items():
        print(f"{backend:<9}{client:>12,.0f}{server:>12,.0f}{client + server:>12,.0f}")
    ours, floor = per_call["http"], per_call["floor"]
    print(f"http/floor: server {ours[1] / floor[1]:.2f}, all {sum(ours) / sum(floor):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument(
        "--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS), metavar="NAME"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the instructions of http and floor under valgrind instead of timing",
    )
    parser.add_argument("--count-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_child:
        count_child(args.count_child[0], int(args.count_child[1]))
    elif args.instructions:
        count(args.calls)
    else:
        measure(list(dict.fromkeys(args.backends)), args.rounds, args.calls)


if __name__ == "__main__":
    main()
