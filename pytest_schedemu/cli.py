"""The ``schedemu`` command: ``schedemu serve`` runs the emulator as a standalone process.

It serves the Scheduler API and the control API (``/_schedemu/``) on one port, logs one
line per delivery attempt, and stops cleanly on SIGINT or SIGTERM. ``schedemu state
export|import`` dump a state file (``--state``) as JSON and load one. ``schedemu next``
prints an expression's next instants and ``schedemu check`` validates one, as
EventBridge Scheduler would (the expressions engine's tool, ``expressions/tool.py``);
``schedemu check --stack PATH`` checks a stack without moving the clock (``Stack.check``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_schedemu._version import __version__
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.settings.option import Option
from pytest_schedemu.settings.options import EMULATOR_OPTIONS, Settings

logger = logging.getLogger("pytest_schedemu.serve")


def _add_setting(parser: argparse.ArgumentParser, option: Option) -> None:
    help_text = (
        f"{option.help} (default: {option.shown_default(serve=True)}; "
        f"environment: {option.environment_variable})"
    ).replace("%", "%%")
    parser.add_argument(
        option.flag,
        nargs=None if option.bare is None else "?",
        const=option.bare,
        type=option.parse or str,
        default=argparse.SUPPRESS,
        metavar=option.metavar or option.name.upper(),
        help=help_text,
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
    for option in EMULATOR_OPTIONS.values():
        _add_setting(serve, option)
    # The older spelling of --stacks, one path a flag: accepted for one more release, and
    # no longer listed, so that --help shows one way to load stacks.
    serve.add_argument(
        "--stack",
        dest="stack_alias",
        action="append",
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )
    serve.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="logging level (default: INFO)",
    )
    state = commands.add_parser(
        "state", help="export or import a state file as JSON", description=_STATE_HELP
    )
    actions = state.add_subparsers(dest="action", required=True, metavar="action")
    for action, verb in (("export", "write the state at PATH to"), ("import", "replace it by")):
        command = actions.add_parser(action, help=f"{verb} a JSON dump")
        command.add_argument("dump", metavar="DUMP.json", help="the dump file ('-': stdout/stdin)")
        command.add_argument(
            "--state",
            metavar="PATH",
            default=None,
            help="the state file (default: the environment's SCHEDEMU_STATE)",
        )
    _add_expression_commands(commands)
    return parser


def _add_expression_commands(commands: Any) -> None:
    upcoming = commands.add_parser(
        "next",
        help="print the next instants of an at/rate/cron expression",
        description=(
            "Print the next N instants at which EventBridge Scheduler fires EXPRESSION, one "
            "a line: in UTC, two spaces, then on the zone's wall clock with its offset and "
            "abbreviation. Exit 0; exit 2 with AWS's validation message on stderr for an "
            "invalid expression or zone."
        ),
    )
    checked = commands.add_parser(
        "check",
        help="validate an at/rate/cron expression, or check a stack's schedules and rules",
        description=(
            "With EXPRESSION: print 'valid' and exit 0, or AWS's validation message on "
            "stderr and exit 2. With --stack: list every schedule and rule target the stack "
            "makes, with its next three fire times on its own zone's clock and whether it "
            "can deliver, with the reason when not (the IAM its attempts would meet); exit "
            "1 when any cannot, 0 when all can, 2 with the error when the stack cannot be "
            "loaded. The emulator's settings come from their environment variables."
        ),
    )
    upcoming.add_argument("expression", metavar="EXPRESSION", help="e.g. 'cron(0 9 ? * MON *)'")
    checked.add_argument(
        "expression", metavar="EXPRESSION", nargs="?", help="e.g. 'cron(0 9 ? * MON *)'"
    )
    checked.add_argument(
        "--stack",
        metavar="PATH",
        default=None,
        help=(
            "a CloudFormation or SAM template, or a CDK assembly (PATH#StackName for one "
            "stack of several), checked instead of an expression"
        ),
    )
    _add_setting(checked, EMULATOR_OPTIONS["iam"])
    for command in (upcoming, checked):
        command.add_argument(
            "--tz", default="UTC", metavar="ZONE", help="the IANA time zone (default: UTC)"
        )
    upcoming.add_argument(
        "-n", type=int, default=10, metavar="N", help="how many instants (default: 10)"
    )
    for command in (upcoming, checked):
        command.add_argument(
            "--from",
            dest="start",
            default=None,
            metavar="INSTANT",
            help=(
                "ISO 8601 with an offset, e.g. 2026-03-01T08:00:00Z: the first instant may "
                "be this one (default: now)"
            ),
        )


_STATE_HELP = (
    "export: write the state held in a state file as JSON (also while schedemu serve runs). "
    "import: replace the state held in a state file (made if new) by a dump, all or nothing; "
    "the file must not be in use."
)


STACK_ALIAS_WARNING = (
    "schedemu: --stack is deprecated and will be removed in the next release: use "
    "--stacks PATH[,PATH...] (or SCHEDEMU_STACKS)"
)


def serve_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """The Emulator settings of ``schedemu serve``: flags, then environment, then defaults.

    A flag or variable given as ``none`` is a None (no limit), not the default."""
    chosen: dict[str, Any] = {}
    given = dict(vars(args))  # a setting's flag is there only when it was given
    alias = given.pop("stack_alias", None)
    if alias is not None:
        given["stacks"] = (*given.get("stacks", ()), *alias)
    for name, option in EMULATOR_OPTIONS.items():
        if name in given:
            chosen[name] = given[name]
        elif option.environment_variable in environ:
            text = environ[option.environment_variable]
            chosen[name] = option.read(text, option.environment_variable)
        elif option.serve_default is not None:
            chosen[name] = option.serve_default
    return chosen


def _log_attempt(attempt: Any) -> None:
    if attempt.succeeded:
        outcome = "ok"
    else:
        kind = "retryable" if attempt.retryable else "permanent"
        outcome = f"{kind} code={attempt.error_code}"
    logger.info(
        "attempt schedule=%s target=%s scheduled=%s attempt=%d outcome=%s",
        attempt.producer_key,
        attempt.target_arn,
        ztime(attempt.scheduled_time),
        attempt.attempt_number,
        outcome,
    )


def deliveries(settings: Settings) -> str:
    """Where the service's deliveries go, as its banner says."""
    if settings.delivery != "boto3":
        return "deliveries recorded, sent nowhere"
    if settings.delivers_to_aws:
        return "deliveries sent to real AWS with your credentials (--allow-aws-delivery)"
    return f"deliveries sent to {settings.delivery_endpoint_url}"


def serve(args: argparse.Namespace) -> int:
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.errors import ServerStartError, StateError

    logging.basicConfig(
        level=args.log_level,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    stop = threading.Event()

    def request_stop(signum: int, frame: Any) -> None:
        if stop.is_set():
            # A second signal: the user does not want to wait for deliveries.
            print("schedemu: stopped at once", file=sys.stderr, flush=True)
            os._exit(128 + signum)
        stop.set()

    # Before the server answers: a signal sent as soon as it does must stop it cleanly,
    # not kill it with Python's default handler before ours is in place.
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    if "stack_alias" in vars(args):
        print(STACK_ALIAS_WARNING, file=sys.stderr, flush=True)
    try:
        settings = serve_settings(args, os.environ)
        if args.log_level == "DEBUG":
            settings.setdefault("log_requests", True)
        emulator = Emulator(**settings)
        emulator.add_attempt_listener(_log_attempt)
        emulator.start()
    except (ServerStartError, StateError, ValueError) as error:
        print(f"schedemu: {error}", file=sys.stderr)
        return 1
    print(f"schedemu {__version__}: Scheduler API on {emulator.endpoint_url}", flush=True)
    print(f"schedemu: control API on {emulator.endpoint_url}/_schedemu/", flush=True)
    if emulator.settings.verify_signatures:
        print("schedemu: dashboard disabled (signatures are verified)", flush=True)
    else:
        print(f"schedemu: dashboard on {emulator.endpoint_url}/_schedemu/ui", flush=True)
    print(f"schedemu: {deliveries(emulator.settings)}", flush=True)
    if emulator.settings.state is not None:
        print(f"schedemu: state kept in {emulator.settings.state}", flush=True)
    for stack in emulator.stacks:
        made = {
            "group": len(stack.schedule_groups),
            "schedule": len(stack.schedules),
            "rule": len(stack.rules),
        }
        counted = ", ".join(f"{n} {what}{'' if n == 1 else 's'}" for what, n in made.items())
        print(f"schedemu: stack {stack.name} from {stack.source}: {counted}", flush=True)
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


def state(args: argparse.Namespace) -> int:
    from pytest_schedemu.commands.vetting import Vetting
    from pytest_schedemu.errors import StateError
    from pytest_schedemu.events_api.app import events_validator
    from pytest_schedemu.formats import jsontext
    from pytest_schedemu.persistence.dump import export_state, import_state
    from pytest_schedemu.scheduler_api.app import service_validator

    path = args.state or os.environ.get(EMULATOR_OPTIONS["state"].environment_variable)
    if not path:
        print("schedemu: give the state file: --state PATH (or SCHEDEMU_STATE)", file=sys.stderr)
        return 2
    try:
        if args.action == "export":
            document = export_state(path)
            text = json.dumps(document, indent=1) + "\n"
            if args.dump == "-":
                sys.stdout.write(text)
            else:
                with open(args.dump, "w", encoding="utf-8") as file:
                    file.write(text)
            counts = {name: len(rows) for name, rows in document["tables"].items()}
        else:
            if args.dump == "-":
                text = sys.stdin.read()
            else:
                with open(args.dump, encoding="utf-8") as file:
                    text = file.read()
            try:
                document = jsontext.loads(text)
            except ValueError as error:
                raise ValueError(f"The dump {args.dump} is not JSON: {error}") from None
            vetting = Vetting(service_validator(), events_validator())
            counts = import_state(document, path, vetting)
    except (OSError, ValueError, StateError) as error:
        print(f"schedemu: {error}", file=sys.stderr)
        return 1
    shown = ", ".join(f"{counts.get(name, 0)} {name}" for name in _COUNTED)
    where = f"from {path} to {args.dump}" if args.action == "export" else f"{args.dump} into {path}"
    print(f"schedemu: {args.action}ed {shown} ({where})", file=sys.stderr)
    return 0


_COUNTED = ("groups", "schedules", "rules", "occurrences", "attempts", "dead_letters", "activity")


def expression_command(args: argparse.Namespace) -> int:
    """``schedemu next`` and ``schedemu check``: 0, or 2 with the refusal on stderr."""
    from pytest_schedemu.expressions.tool import (
        occurrence_line,
        occurrences,
        validate_expression,
    )

    try:
        if args.command == "check":
            validate_expression(args.expression, args.tz)
            lines = ["valid"]
        else:
            instants = occurrences(args.expression, args.tz, start=args.start, n=args.n)
            lines = [occurrence_line(instant, args.tz) for instant in instants]
    except ValueError as error:
        print(f"schedemu: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


#: The settings a stack's check does not take from the environment: it loads the one stack
#: it is given, into a state of its own, on a clock that does not move.
_NOT_CHECKED = ("stacks", "state", "clock", "start")


def stack_check(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    """``schedemu check --stack PATH``: 0 when every schedule and rule target of the stack
    can deliver, 1 when one cannot, 2 when the stack cannot be loaded."""
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.errors import SchedemuError

    given = vars(args)
    path, _, name = args.stack.partition("#")
    emulator = None
    try:
        settings: dict[str, Any] = {} if args.start is None else {"start": args.start}
        for setting, option in EMULATOR_OPTIONS.items():
            if setting in _NOT_CHECKED:
                continue
            if setting in given:
                settings[setting] = given[setting]
            elif option.environment_variable in environ:
                variable = option.environment_variable
                settings[setting] = option.read(environ[variable], variable)
        emulator = Emulator(**settings)
        parameters = dict(emulator.settings.stack_parameters) or None
        stack = emulator.load_stack(path, parameters=parameters, stack_name=name or None)
        check = stack.check()
    except (SchedemuError, ValueError, LookupError, OSError) as error:
        print(f"schedemu: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    finally:
        if emulator is not None:
            emulator.stop()
    print(check)
    return 0 if check.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "check" and (args.stack is None) == (args.expression is None):
        parser.error("check takes an EXPRESSION or --stack PATH (one of them)")
    if args.command == "check" and args.stack is not None:
        return stack_check(args, os.environ)
    if args.command == "serve":
        return serve(args)
    if args.command == "state":
        return state(args)
    if args.command in ("next", "check"):
        return expression_command(args)
    return 2  # pragma: no cover - argparse rejects other commands
