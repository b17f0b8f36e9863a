"""Every option of the emulator, declared once: its default, its validation, its help.

``Settings`` is read by everything that needs an option: the ``Emulator`` takes its keyword
arguments into it, ``schedemu serve`` makes a flag and an environment variable of each
option, the pytest plugin an ini option, a command-line option and a marker keyword of each
option a test may change, and ``reset`` restores those from the emulator's own values.
The store, the API and the dispatcher read theirs from the one shared object, which only
``configure`` changes (all or nothing, under the emulator's locks).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from pytest_schedemu.model import DEFAULT_ACCOUNT_ID, DEFAULT_REGION
from pytest_schedemu.times import Instant, to_utc

PAST_AT_POLICIES = ("fire", "skip", "reject")
FLEXIBLE_OFFSET_MODES = ("hash", "zero")
TRANSPORTS = ("http", "inprocess")
CLOCKS = ("virtual", "real")
DELIVERIES = ("record", "boto3")
DEFAULT_SQS_QUEUE_URL_TEMPLATE = "https://sqs.{region}.{dns_suffix}/{account}/{name}"

#: Fixed for the emulator's life (they shape its server or its clock).
SERVER = "server"
#: May differ from test to test: the plugin's marker, ini and command-line options set
#: them, and every ``reset`` restores them to the emulator's own values.
TEST = "test"

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Option:
    """One setting as the command line, the environment and the ini file know it."""

    name: str
    default: Any
    help: str
    scope: str
    #: Reads the option from text (a flag, an environment variable, an ini value).
    parse: Callable[[str], Any]
    #: ``schedemu serve``'s own default, where a service wants another than a test does.
    serve_default: Any = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def environment_variable(self) -> str:
        return "SCHEDEMU_" + self.name.upper()


# -- text parsers for the command line, the environment and ini files ----------------------------


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"expected one of {_TRUE + _FALSE}, not {text!r}")


def _optional(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return None if text.strip().lower() in ("", "none", "null") else parse(text)

    return read


def _credentials_file(path: str) -> dict[str, str]:
    """A JSON object {access key id: secret key}, or lines ``AKID:SECRET``."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    if text.lstrip().startswith("{"):
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected a JSON object of access key id -> secret key")
        return {str(k): str(v) for k, v in value.items()}
    pairs = [line.strip().split(":", 1) for line in text.splitlines() if line.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"{path}: expected lines of ACCESS_KEY_ID:SECRET_KEY")
    return dict((k.strip(), v.strip()) for k, v in pairs)


# -- declaring options -------------------------------------------------------------------------


def _setting(
    default: Any,
    help: str,
    *,
    scope: str = TEST,
    parse: Callable[[str], Any] = str,
    check: Callable[[Any], str | None] | None = None,
    serve_default: Any = None,
    factory: Callable[[], Any] | None = None,
) -> Any:
    metadata = {
        "help": help,
        "scope": scope,
        "parse": parse,
        "check": check,
        "serve_default": serve_default,
    }
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda value: None if value in choices else f"use one of {choices}"


def _integer(minimum: int, maximum: int | None = None, optional: bool = False) -> Any:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        integer = isinstance(value, int) and not isinstance(value, bool)
        if integer and value >= minimum and (maximum is None or value <= maximum):
            return None
        upper = "" if maximum is None else f" and <= {maximum}"
        return f"expected an integer >= {minimum}{upper}" + (" or None" if optional else "")

    return check


def _seconds(minimum_exclusive: bool) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        finite = numeric and value == value and value != float("inf")
        if finite and (value > 0 or (value == 0 and not minimum_exclusive)):
            return None
        return "expected seconds > 0" if minimum_exclusive else "expected seconds >= 0"

    return check


def _any_integer(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool)
    return None if ok else "expected an integer"


def _account(value: Any) -> str | None:
    ok = isinstance(value, str) and len(value) == 12 and value.isdigit() and value.isascii()
    return None if ok else "expected 12 digits"


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) and value else "expected a non-empty string"


def _optional_text(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else "expected a string or None"


def _queue_url_template(value: Any) -> str | None:
    if not isinstance(value, str):
        return "expected a string with {region}, {dns_suffix}, {account} and {name} fields"
    try:
        value.format(region="r", dns_suffix="d", account="a", name="n")
    except (KeyError, IndexError, ValueError) as error:
        fields = "{region}, {dns_suffix}, {account}, {name}"
        return f"it cannot be formatted ({error!r}); use {fields}"
    return None


def _delivery(value: Any) -> str | None:
    if isinstance(value, str):
        return None if value in DELIVERIES else f"use one of {DELIVERIES} or a Delivery"
    needed = ("needs_request", "deliver", "send_dead_letter", "close")
    missing = [name for name in needed if not hasattr(value, name)]
    return f"a Delivery needs {missing}" if missing else None


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected True or False"


def _start(value: Any) -> str | None:
    if value is None:
        return None
    try:
        to_utc(value, what="start")
    except (TypeError, ValueError) as error:
        return str(error).split(": ", 1)[-1]
    return None


def _credential_table(value: Any) -> str | None:
    ok = isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )
    return None if ok else "expected a mapping of access key id -> secret key"


@dataclass
class Settings:
    """Every option of the emulator, validated; shared by its parts."""

    #: Held as an aware UTC datetime once validated.
    start: Instant | None = _setting(
        None,
        "start of the virtual clock (ISO 8601 with an offset; default: the wall-clock now)",
        check=_start,
    )
    region: str = _setting(DEFAULT_REGION, "default region", check=_text)
    account_id: str = _setting(DEFAULT_ACCOUNT_ID, "default account id", check=_account)
    seed: int = _setting(
        0, "seed of flexible-window offsets and execution ids", parse=int, check=_any_integer
    )
    transport: str = _setting(
        "http",
        "how the emulator's own clients reach it: http or inprocess",
        check=_one_of(TRANSPORTS),
    )
    past_at: str = _setting(
        "fire",
        "an at() schedule created after its time: fire (at once), skip, or reject",
        check=_one_of(PAST_AT_POLICIES),
    )
    flexible_offsets: str = _setting(
        "hash",
        "flexible-window offsets: hash (spread deterministically) or zero",
        check=_one_of(FLEXIBLE_OFFSET_MODES),
    )
    group_deletion_delay: float = _setting(
        0, "virtual seconds a deleted group stays DELETING", parse=float, check=_seconds(False)
    )
    max_schedules: int = _setting(
        10_000_000, "schedules per account and region", parse=int, check=_integer(0)
    )
    max_schedule_groups: int = _setting(
        500, "schedule groups per account and region", parse=int, check=_integer(1)
    )
    max_attempts_per_advance: int | None = _setting(
        5_000_000,
        "attempts one clock move may make before it stops (none: no limit)",
        parse=_optional(int),
        check=_integer(1, optional=True),
    )
    max_records: int | None = _setting(
        10_000_000,
        "records of each kind kept; beyond, the oldest go (none: no limit)",
        parse=_optional(int),
        check=_integer(1, optional=True),
    )
    sqs_queue_url_template: str = _setting(
        DEFAULT_SQS_QUEUE_URL_TEMPLATE,
        "URL of an SQS queue, from {region}, {dns_suffix}, {account} and {name}",
        check=_queue_url_template,
    )
    delivery: Any = _setting(
        "record",
        "record: keep attempts in memory; boto3: send them to the target services",
        check=_delivery,
    )
    delivery_endpoint_url: str | None = _setting(
        None, "endpoint of the target services for boto3 delivery", check=_optional_text
    )
    host: str = _setting("127.0.0.1", "address to bind", scope=SERVER, check=_text)
    port: int = _setting(
        0,
        "port to bind (0: a free one)",
        scope=SERVER,
        parse=int,
        check=_integer(0, 65535),
        serve_default=4566,
    )
    clock: str = _setting(
        "virtual",
        "virtual: time moves only when told; real: deliver as wall-clock time passes",
        scope=SERVER,
        check=_one_of(CLOCKS),
        serve_default="real",
    )
    tick_interval: float = _setting(
        10.0,
        "longest sleep of the real-time dispatcher, seconds",
        scope=SERVER,
        parse=float,
        check=_seconds(True),
    )
    delivery_workers: int = _setting(
        8, "threads delivering in real time", scope=SERVER, parse=int, check=_integer(1)
    )
    max_connections: int = _setting(
        256,
        "connections served at once; more wait in the listen backlog",
        scope=SERVER,
        parse=int,
        check=_integer(1),
    )
    connection_timeout: float = _setting(
        60.0,
        "seconds a connection may stay idle, or stall mid-request, before it is closed",
        scope=SERVER,
        parse=float,
        check=_seconds(True),
    )
    log_requests: bool = _setting(
        False, "log every HTTP request", scope=SERVER, parse=parse_bool, check=_boolean
    )
    state: str | None = _setting(
        None, "SQLite file keeping the state across restarts", scope=SERVER, check=_optional_text
    )
    verify_signatures: bool = _setting(
        False,
        "check SigV4 signatures against the credentials",
        scope=SERVER,
        parse=parse_bool,
        check=_boolean,
    )
    credentials: dict[str, str] = _setting(
        None,
        "access key id -> secret key, for verify_signatures (a JSON file, or lines AKID:SECRET)",
        scope=SERVER,
        parse=_credentials_file,
        check=_credential_table,
        factory=dict,
    )

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            check = item.metadata["check"]
            value = getattr(self, item.name)
            problem = None if check is None else check(value)
            if problem is not None:
                raise ValueError(f"Unsupported {item.name} {value!r}: {problem}")
        self.credentials = dict(self.credentials)
        if self.start is not None:
            self.start = to_utc(self.start, what="start")
        if self.clock == "real" and self.start is not None:
            raise ValueError("A real-time clock starts at the wall-clock now; drop start=")
        if self.verify_signatures and not self.credentials:
            raise ValueError(
                "verify_signatures=True needs credentials={access key id: secret key, ...}"
            )

    def configure(self, **changes: Any) -> None:
        """Change settings in place, all or none: a bad value raises and changes nothing."""
        candidate = dataclasses.replace(self, **changes)
        for name in changes:
            setattr(self, name, getattr(candidate, name))

    def restored(self, own: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
        """What ``configure`` needs to return to ``own`` (the test-scoped values an emulator
        was made with) except for ``changes``; validated, nothing changed yet.

        A None in ``changes`` for a setting that cannot be None means the value in ``own``.
        """
        unknown = sorted(set(changes) - set(own) - {"start"})
        if unknown:
            raise TypeError(f"Unsupported settings {unknown}: use {sorted(own)}")
        given = {k: v for k, v in changes.items() if v is not None or accepts_none(k)}
        values = {**own, **given, "start": self.start}
        dataclasses.replace(self, **values)  # validates
        return values

    def values(self, scope: str | None = None) -> dict[str, Any]:
        """The settings (of one scope) by name."""
        return {
            item.name: getattr(self, item.name)
            for item in dataclasses.fields(self)
            if scope is None or item.metadata["scope"] == scope
        }


def options() -> dict[str, Option]:
    """Every setting as an ``Option``, in declaration order."""
    return {
        item.name: Option(
            name=item.name,
            default=item.default if item.default is not dataclasses.MISSING else None,
            help=item.metadata["help"],
            scope=item.metadata["scope"],
            parse=item.metadata["parse"],
            serve_default=item.metadata["serve_default"],
        )
        for item in dataclasses.fields(Settings)
    }


def accepts_none(name: str) -> bool:
    """Whether None is a valid value of the setting ``name`` (e.g. ``max_records``)."""
    check = next(item for item in dataclasses.fields(Settings) if item.name == name).metadata[
        "check"
    ]
    return check is None or check(None) is None
