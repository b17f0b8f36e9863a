"""The ``schedemu`` command: ``schedemu serve`` runs the emulator as a standalone process.

It serves the Scheduler API and the control API (``/_schedemu/``) on one port, logs one
line per delivery attempt, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from pytest_schedemu._version import __version__

logger = logging.getLogger("pytest_schedemu.serve")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedemu", description="An AWS EventBridge Scheduler emulator."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    serve = commands.add_parser(
        "serve",
        help="run the emulator as a process",
        description="Serve the Scheduler API and the /_schedemu/ control API.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    serve.add_argument("--port", type=int, default=4566, help="port to bind (4566)")
    serve.add_argument(
        "--clock",
        choices=("real", "virtual"),
        default="real",
        help="real: deliver as wall-clock time passes; virtual: only when told (real)",
    )
    serve.add_argument(
        "--tick-interval",
        type=float,
        default=10.0,
        help="longest sleep of the real-time dispatcher, seconds (10)",
    )
    serve.add_argument("--start", help="start of a virtual clock (ISO 8601; default now)")
    serve.add_argument(
        "--delivery",
        choices=("record", "boto3"),
        default="record",
        help="record: keep attempts in memory; boto3: send them to the target services",
    )
    serve.add_argument("--delivery-endpoint-url", help="endpoint for boto3 delivery")
    serve.add_argument("--seed", type=int, default=0, help="seed of derived ids and offsets")
    serve.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="logging level (INFO)",
    )
    return parser


def _log_attempt(attempt: Any) -> None:
    if attempt.succeeded:
        outcome = "ok"
    else:
        kind = "retryable" if attempt.retryable else "permanent"
        outcome = f"{kind} code={attempt.error_code}"
    logger.info(
        "attempt schedule=%s target=%s scheduled=%s attempt=%d outcome=%s",
        attempt.schedule_arn,
        attempt.target_arn,
        attempt.scheduled_time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        attempt.attempt_number,
        outcome,
    )


def serve(args: argparse.Namespace) -> int:
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.errors import ServerStartError

    logging.basicConfig(
        level=args.log_level,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    if args.clock == "real" and args.start:
        print("schedemu: --start needs --clock virtual", file=sys.stderr)
        return 2
    try:
        emulator = Emulator(
            host=args.host,
            port=args.port,
            clock=args.clock,
            tick_interval=args.tick_interval,
            start=args.start,
            delivery=args.delivery,
            delivery_endpoint_url=args.delivery_endpoint_url,
            seed=args.seed,
            log_requests=args.log_level == "DEBUG",
        )
        emulator.history.listeners.append(_log_attempt)
        emulator.start()
    except (ServerStartError, ValueError) as error:
        print(f"schedemu: {error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    print(f"schedemu {__version__}: Scheduler API on {emulator.endpoint_url}", flush=True)
    print(f"schedemu: control API on {emulator.endpoint_url}/_schedemu/", flush=True)
    try:
        # Waiting in short steps keeps the main thread able to run signal handlers.
        while not stop.wait(0.2):
            pass
    finally:
        emulator.stop()
    print("schedemu: stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    return 2  # pragma: no cover - argparse rejects other commands
