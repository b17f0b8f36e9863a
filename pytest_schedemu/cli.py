"""The ``schedemu`` command: ``schedemu serve`` runs the emulator as a standalone process.

It serves the Scheduler API and the control API (``/_schedemu/``) on one port, logs one
line per delivery attempt, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_schedemu._version import __version__
from pytest_schedemu.option_values import parse_bool
from pytest_schedemu.settings import Option, options
from pytest_schedemu.times import ztime

logger = logging.getLogger("pytest_schedemu.serve")


def _add_setting(parser: argparse.ArgumentParser, option: Option) -> None:
    default = option.serve_default if option.serve_default is not None else option.default
    shown = "none" if default is None else ("{}" if default == {} else default)
    help_text = (
        f"{option.help} (default: {shown}; environment: {option.environment_variable})"
    ).replace("%", "%%")
    if option.parse is parse_bool:
        parser.add_argument(
            option.flag, nargs="?", const=True, type=parse_bool, default=None, help=help_text
        )
    else:
        metavar = "FILE" if option.name == "credentials" else option.name.upper()
        parser.add_argument(
            option.flag, type=option.parse, default=None, metavar=metavar, help=help_text
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedemu", description="An AWS EventBridge Scheduler emulator."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    serve = commands.add_parser(
        "serve",
        help="run the emulator as a process",
        description=(
            "Serve the Scheduler API and the /_schedemu/ control API. Every option may also "
            "come from its environment variable; a flag wins over the environment."
        ),
    )
    for option in options().values():
        _add_setting(serve, option)
    serve.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="logging level (default: INFO)",
    )
    return parser


def serve_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """The Emulator settings of ``schedemu serve``: flags, then environment, then defaults."""
    chosen: dict[str, Any] = {}
    for name, option in options().items():
        value = getattr(args, name)
        if value is None and option.environment_variable in environ:
            text = environ[option.environment_variable]
            try:
                value = option.parse(text)
            except (OSError, TypeError, ValueError) as error:
                raise ValueError(
                    f"Unsupported {option.environment_variable}={text!r}: {error}"
                ) from None
        if value is None:
            value = option.serve_default
        if value is not None:
            chosen[name] = value
    return chosen


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
        ztime(attempt.scheduled_time),
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
    try:
        settings = serve_settings(args, os.environ)
        if args.log_level == "DEBUG":
            settings.setdefault("log_requests", True)
        emulator = Emulator(**settings)
        emulator.add_attempt_listener(_log_attempt)
        emulator.start()
    except (ServerStartError, ValueError) as error:
        print(f"schedemu: {error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def request_stop(signum: int, frame: Any) -> None:
        if stop.is_set():
            # A second signal: the user does not want to wait for deliveries.
            print("schedemu: stopped at once", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    print(f"schedemu {__version__}: Scheduler API on {emulator.endpoint_url}", flush=True)
    print(f"schedemu: control API on {emulator.endpoint_url}/_schedemu/", flush=True)
    if emulator.settings.verify_signatures:
        print("schedemu: dashboard disabled (signatures are verified)", flush=True)
    else:
        print(f"schedemu: dashboard on {emulator.endpoint_url}/_schedemu/ui", flush=True)
    try:
        # Waiting in short steps keeps the main thread able to run signal handlers.
        while not stop.wait(0.2):
            pass
        print(
            "schedemu: stopping (deliveries under way get "
            f"{emulator.settings.shutdown_timeout:g} s; a second signal stops at once)",
            file=sys.stderr,
            flush=True,
        )
    finally:
        emulator.stop()
    print("schedemu: stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    return 2  # pragma: no cover - argparse rejects other commands
