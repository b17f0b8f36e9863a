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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from pytest_schedemu.formats.times import Instant, to_utc
from pytest_schedemu.model.resources import DEFAULT_ACCOUNT_ID, DEFAULT_REGION
from pytest_schedemu.settings import values
from pytest_schedemu.settings.values import parse_bool

PAST_AT_POLICIES = ("fire", "skip", "reject")
FLEXIBLE_OFFSET_MODES = ("hash", "zero")
TRANSPORTS = ("http", "inprocess")
CLOCKS = ("virtual", "real")
DEFAULT_SQS_QUEUE_URL_TEMPLATE = "https://sqs.{region}.{dns_suffix}/{account}/{name}"

#: Fixed for the emulator's life (they shape its server or its clock).
SERVER = "server"
#: May differ from test to test: the plugin's marker, ini and command-line options set
#: them, and every ``reset`` restores them to the emulator's own values.
TEST = "test"


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


@dataclass
class Settings:
    """Every option of the emulator, validated; shared by its parts."""

    #: Held as an aware UTC datetime once validated.
    start: Instant | None = _setting(
        None,
        "start of the virtual clock (ISO 8601 with an offset; default: the wall-clock now)",
        check=values.start,
    )
    region: str = _setting(DEFAULT_REGION, "default region", check=values.text)
    account_id: str = _setting(DEFAULT_ACCOUNT_ID, "default account id", check=values.account)
    seed: int = _setting(
        0, "seed of flexible-window offsets and execution ids", parse=int, check=values.any_integer
    )
    transport: str = _setting(
        "inprocess",
        "how clients from client() reach the emulator: inprocess (no socket) or http",
        check=values.one_of(TRANSPORTS),
    )
    past_at: str = _setting(
        "fire",
        "an at() schedule created after its time: fire (at once), skip, or reject",
        check=values.one_of(PAST_AT_POLICIES),
    )
    flexible_offsets: str = _setting(
        "hash",
        "flexible-window offsets: hash (spread deterministically) or zero",
        check=values.one_of(FLEXIBLE_OFFSET_MODES),
    )
    group_deletion_delay: float = _setting(
        0,
        "virtual seconds a deleted group stays DELETING",
        parse=float,
        check=values.seconds(False),
    )
    max_schedules: int = _setting(
        10_000_000, "schedules per account and region", parse=int, check=values.integer(0)
    )
    max_schedule_groups: int = _setting(
        500, "schedule groups per account and region", parse=int, check=values.integer(1)
    )
    max_attempts_per_advance: int | None = _setting(
        5_000_000,
        "attempts one clock move may make before it stops (none: no limit)",
        parse=values.optional(int),
        check=values.integer(1, optional=True),
    )
    max_records: int | None = _setting(
        10_000_000,
        "records of each kind kept; beyond, the oldest go (none: no limit)",
        parse=values.optional(int),
        check=values.integer(1, optional=True),
    )
    max_idempotency_tokens: int = _setting(
        10_000,
        "ClientTokens remembered per emulator, the newest; older ones are forgotten",
        parse=int,
        check=values.integer(1),
    )
    max_dead_letter_bytes: int = _setting(
        1_048_576,
        "largest dead-letter message, body and attributes (SQS's limit; a queue may set less)",
        parse=int,
        check=values.integer(1024, 1_048_576),
    )
    sqs_queue_url_template: str = _setting(
        DEFAULT_SQS_QUEUE_URL_TEMPLATE,
        "URL of an SQS queue, from {region}, {dns_suffix}, {account} and {name}",
        check=values.queue_url_template,
    )
    delivery: Any = _setting(
        "record",
        "record: keep attempts in memory; boto3: send them to the target services",
        check=values.delivery,
    )
    delivery_endpoint_url: str | None = _setting(
        None, "endpoint of the target services for boto3 delivery", check=values.optional_text
    )
    host: str = _setting("127.0.0.1", "address to bind", scope=SERVER, check=values.text)
    port: int = _setting(
        0,
        "port to bind (0: a free one)",
        scope=SERVER,
        parse=int,
        check=values.integer(0, 65535),
        serve_default=4566,
    )
    clock: str = _setting(
        "virtual",
        "virtual: time moves only when told; real: deliver as wall-clock time passes",
        scope=SERVER,
        check=values.one_of(CLOCKS),
        serve_default="real",
    )
    tick_interval: float = _setting(
        10.0,
        "longest sleep of the real-time dispatcher, seconds",
        scope=SERVER,
        parse=float,
        check=values.seconds(True),
    )
    delivery_timeout: float = _setting(
        30.0,
        "seconds an attempt may take before it fails, retryably (real time, boto3 delivery)",
        parse=float,
        check=values.seconds(True),
    )
    shutdown_timeout: float = _setting(
        10.0,
        "seconds deliveries under way get to finish when the emulator stops",
        scope=SERVER,
        parse=float,
        check=values.seconds(False),
    )
    delivery_workers: int = _setting(
        8, "threads delivering in real time", scope=SERVER, parse=int, check=values.integer(1)
    )
    max_connections: int = _setting(
        256,
        "connections served at once; more wait in the listen backlog",
        scope=SERVER,
        parse=int,
        check=values.integer(1),
    )
    connection_timeout: float = _setting(
        60.0,
        "seconds a connection may stay idle, or stall mid-request, before it is closed",
        scope=SERVER,
        parse=float,
        check=values.seconds(True),
    )
    log_requests: bool = _setting(
        False, "log every HTTP request", scope=SERVER, parse=parse_bool, check=values.boolean
    )
    state: str | None = _setting(
        None,
        "SQLite file keeping the state across restarts",
        scope=SERVER,
        check=values.optional_text,
    )
    verify_signatures: bool = _setting(
        False,
        "check SigV4 signatures against the credentials",
        scope=SERVER,
        parse=parse_bool,
        check=values.boolean,
    )
    credentials: dict[str, str] = _setting(
        None,
        "access key id -> secret key, for verify_signatures (a JSON file, or lines AKID:SECRET)",
        scope=SERVER,
        parse=values.credentials_file,
        check=values.credential_table,
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
        self.adopt(dataclasses.replace(self, **changes))

    def adopt(self, candidate: Settings) -> None:
        """Take every value of ``candidate``, a validated ``Settings``."""
        self.__dict__.update(candidate.__dict__)

    def restored(self, own: Mapping[str, Any], changes: Mapping[str, Any]) -> Settings:
        """The settings that return to ``own`` (the test-scoped values an emulator was made
        with) except for ``changes``; validated, for ``adopt``; nothing changed yet.

        A None in ``changes`` for a setting that cannot be None means the value in ``own``.
        """
        unknown = sorted(set(changes) - set(own) - {"start"})
        if unknown:
            raise TypeError(f"Unsupported settings {unknown}: use {sorted(own)}")
        given = {k: v for k, v in changes.items() if v is not None or accepts_none(k)}
        return dataclasses.replace(self, **{**own, **given, "start": self.start})

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
