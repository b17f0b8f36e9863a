"""The options table: every option of the emulator and of the pytest plugin, declared once,
with its scope, default, parser, check and help.

``Settings`` declares the emulator's options: the ``Emulator`` takes its keyword arguments
into it and ``schedemu serve`` makes a flag and an environment variable of each.
``PluginOptions`` declares the plugin's own, per test, and ``RunOptions`` those it reads
once, as a run starts. ``OPTIONS`` is the table they make; the
plugin makes a marker keyword, an ini key and a command-line option of each row a test
may set, and ``layers.layered`` chooses a test's values from them. Nothing else states a
default: ``DEFAULTS`` is there for code that needs one.

A ``Settings`` is immutable: a change is a new one, validated as a whole, that its owner
(``live.LiveSettings``) puts in place of the old.
"""

from __future__ import annotations

import dataclasses
import os
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_schedemu.formats.times import Instant, to_utc
from pytest_schedemu.model.resources import DEFAULT_ACCOUNT_ID, DEFAULT_REGION
from pytest_schedemu.model.template_limits import (
    DEFAULT_MAX_TEMPLATE_BYTES,
    DEFAULT_MAX_TEMPLATE_DEPTH,
    DEFAULT_MAX_TEMPLATE_NODES,
)
from pytest_schedemu.settings import values
from pytest_schedemu.settings.mocked import moto_answers_botocore
from pytest_schedemu.settings.option import (
    MARKER,
    PLUGIN,
    RUN,
    SERVER,
    TEST,
    Option,
    declare,
    rows,
    validate,
)
from pytest_schedemu.settings.values import parse_bool

PAST_AT_POLICIES = ("fire", "skip", "reject")
FLEXIBLE_OFFSET_MODES = ("hash", "zero")
TRANSPORTS = ("http", "inprocess")
CLOCKS = ("virtual", "real")
#: How attempts meet IAM (docs/iam.md): what the emulator knows is evaluated; ``strict``
#: fails what it knows nothing of too, ``off`` evaluates nothing.
IAM_MODES = ("enforce", "strict", "off")
DEFAULT_SQS_QUEUE_URL_TEMPLATE = "https://sqs.{region}.{dns_suffix}/{account}/{name}"
#: SQS's limit for one message: the UTF-8 body plus every attribute's name, type and value.
#: The dead-letter limit's default, and its largest value.
MAX_MESSAGE_BYTES = 1_048_576


@dataclass(frozen=True)
class Settings:
    """Every option of the emulator, validated; read by its parts, never changed in place."""

    #: Held as an aware UTC datetime once validated.
    start: Instant | None = declare(
        None,
        "start of the virtual clock (ISO 8601 with an offset)",
        check=values.start,
        shown="the wall-clock now",
    )
    region: str = declare(DEFAULT_REGION, "default region", check=values.text)
    account_id: str = declare(DEFAULT_ACCOUNT_ID, "default account id", check=values.account)
    seed: int = declare(
        0, "seed of flexible-window offsets and execution ids", parse=int, check=values.any_integer
    )
    transport: str = declare(
        "inprocess",
        "how clients from client() reach the emulator: inprocess (no socket) or http",
        check=values.one_of(TRANSPORTS),
    )
    past_at: str = declare(
        "fire",
        "an at() schedule created after its time: fire (at once), skip, or reject",
        check=values.one_of(PAST_AT_POLICIES),
    )
    flexible_offsets: str = declare(
        "hash",
        "flexible-window offsets: hash (spread deterministically) or zero",
        check=values.one_of(FLEXIBLE_OFFSET_MODES),
    )
    iam: str = declare(
        "enforce",
        "IAM of the roles and resource policies the emulator knows: enforce (the unknown "
        "is allowed), strict (the unknown fails), or off",
        check=values.one_of(IAM_MODES),
    )
    group_deletion_delay: float = declare(
        0,
        "virtual seconds a deleted group stays DELETING",
        parse=float,
        check=values.seconds(False),
    )
    max_schedules: int = declare(
        10_000_000, "schedules per account and region", parse=int, check=values.integer(0)
    )
    max_schedule_groups: int = declare(
        500, "schedule groups per account and region", parse=int, check=values.integer(1)
    )
    max_rules: int = declare(
        300,
        "EventBridge rules per event bus, account and region",
        parse=int,
        check=values.integer(1),
    )
    max_attempts_per_advance: int | None = declare(
        5_000_000,
        "attempts one clock move may make before it stops (none: no limit)",
        parse=values.optional(int),
        check=values.integer(1, optional=True),
    )
    # A default that bounds a move's memory (a year of a per-minute schedule grows it by
    # under 250 MiB): a test asserting on more records than this is rare, and says so.
    max_records: int | None = declare(
        100_000,
        "records of each kind kept; beyond, the oldest go (none: no limit)",
        parse=values.optional(int),
        check=values.integer(1, optional=True),
    )
    max_idempotency_tokens: int = declare(
        10_000,
        "ClientTokens remembered per emulator, the newest; older ones are forgotten",
        parse=int,
        check=values.integer(1),
    )
    max_dead_letter_bytes: int = declare(
        MAX_MESSAGE_BYTES,
        "largest dead-letter message, body and attributes (SQS's limit; a queue may set less)",
        parse=int,
        check=values.integer(1024, MAX_MESSAGE_BYTES),
    )
    sqs_queue_url_template: str = declare(
        DEFAULT_SQS_QUEUE_URL_TEMPLATE,
        "URL of an SQS queue, from {region}, {dns_suffix}, {account} and {name}",
        check=values.queue_url_template,
    )
    delivery: Any = declare(
        "record",
        "record: keep attempts in memory; boto3: send them to the target services",
        check=values.delivery,
    )
    delivery_endpoint_url: str | None = declare(
        None, "endpoint of the target services for boto3 delivery", check=values.optional_text
    )
    allow_aws_delivery: bool = declare(
        False,
        "let boto3 delivery without delivery_endpoint_url call AWS itself, with your "
        "credentials (under moto's mock_aws it reaches moto, and needs no leave)",
        parse=parse_bool,
        check=values.boolean,
        bare="true",
    )
    stacks: tuple[str, ...] = declare(
        (),
        "stacks whose schedules are loaded at the start and after every reset: CloudFormation "
        "or SAM templates, CDK assemblies (cdk.out, or cdk.out#StackName), comma-separated",
        parse=values.path_list,
        check=values.stack_sources,
        shown="none",
        metavar="PATHS",
    )
    stack_parameters: Mapping[str, str] = declare(
        None,
        "template parameters of those stacks, NAME=VALUE,NAME=VALUE",
        parse=values.key_values,
        check=values.text_table,
        shown="none",
        metavar="PARAMETERS",
        factory=dict,
    )
    run_functions: bool = declare(
        False,
        "run the Python functions of those stacks in process when a schedule or a rule "
        "target invokes them (load_stack's run_functions= for a stack loaded by hand)",
        parse=parse_bool,
        check=values.boolean,
        bare="true",
    )
    # The bounds of a stack's template: far above any template CloudFormation deploys.
    max_template_bytes: int = declare(
        DEFAULT_MAX_TEMPLATE_BYTES,
        "largest stack template: bytes of its file, and of the text its functions make",
        parse=int,
        check=values.integer(1),
    )
    max_template_nodes: int = declare(
        DEFAULT_MAX_TEMPLATE_NODES,
        "most values in a stack template, YAML aliases expanded, and in what its functions answer",
        parse=int,
        check=values.integer(1),
    )
    max_template_depth: int = declare(
        DEFAULT_MAX_TEMPLATE_DEPTH,
        "deepest nesting of a stack template's values",
        parse=int,
        check=values.integer(1),
    )
    host: str = declare("127.0.0.1", "address to bind", scope=SERVER, check=values.text)
    allowed_hosts: tuple[str, ...] = declare(
        (),
        "hosts the HTTP server answers besides localhost, 127.0.0.1, [::1] and the bound "
        "address, comma-separated; a host without a port is answered on any (* for any host)",
        scope=SERVER,
        parse=values.host_list,
        check=values.host_names,
        shown="none",
        metavar="HOSTS",
    )
    port: int = declare(
        0,
        "port to bind (0: a free one)",
        scope=SERVER,
        parse=int,
        check=values.integer(0, 65535),
        serve_default=4566,
    )
    clock: str = declare(
        "virtual",
        "virtual: time moves only when told; real: deliver as wall-clock time passes",
        scope=SERVER,
        check=values.one_of(CLOCKS),
        serve_default="real",
    )
    tick_interval: float = declare(
        10.0,
        "longest sleep of the real-time dispatcher, seconds",
        scope=SERVER,
        parse=float,
        check=values.seconds(True),
    )
    delivery_timeout: float = declare(
        30.0,
        "seconds an attempt may take before it fails, retryably (DeliveryTimeout): a target "
        "handler's in any clock move, a real-time delivery's, a boto3 delivery's",
        parse=float,
        check=values.seconds(True),
    )
    shutdown_timeout: float = declare(
        10.0,
        "seconds deliveries under way get to finish when the emulator stops",
        scope=SERVER,
        parse=float,
        check=values.seconds(False),
    )
    delivery_workers: int = declare(
        8, "threads delivering in real time", scope=SERVER, parse=int, check=values.integer(1)
    )
    max_connections: int = declare(
        256,
        "connections served at once; more wait in the listen backlog",
        scope=SERVER,
        parse=int,
        check=values.integer(1),
    )
    connection_timeout: float = declare(
        60.0,
        "seconds a connection gets, from its acceptance, to send its whole request "
        "(headers and body) before it is closed",
        scope=SERVER,
        parse=float,
        check=values.seconds(True),
    )
    log_requests: bool = declare(
        False,
        "log every HTTP request",
        scope=SERVER,
        parse=parse_bool,
        check=values.boolean,
        bare="true",
    )
    state: str | None = declare(
        None,
        "SQLite file keeping the state across restarts",
        scope=SERVER,
        check=values.optional_text,
        metavar="PATH",
    )
    verify_signatures: bool = declare(
        False,
        "check SigV4 signatures against the credentials",
        scope=SERVER,
        parse=parse_bool,
        check=values.boolean,
        bare="true",
    )
    credentials: Mapping[str, str] = declare(
        None,
        "access key id -> secret key, for verify_signatures (a JSON file, or lines AKID:SECRET)",
        scope=SERVER,
        parse=values.credentials_file,
        check=values.credential_table,
        metavar="FILE",
        factory=dict,
    )

    def __post_init__(self) -> None:
        validate(EMULATOR_OPTIONS, self)
        # A copy nobody else holds, and read-only: the settings change only as a whole.
        credentials = types.MappingProxyType(dict(self.credentials))
        object.__setattr__(self, "credentials", credentials)
        object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))
        object.__setattr__(self, "stacks", tuple(str(path) for path in self.stacks))
        parameters = types.MappingProxyType(dict(self.stack_parameters))
        object.__setattr__(self, "stack_parameters", parameters)
        if self.start is not None:
            object.__setattr__(self, "start", to_utc(self.start, what="start"))
        if self.clock == "real" and self.start is not None:
            raise ValueError("A real-time clock starts at the wall-clock now; drop start=")
        if self.verify_signatures and not self.credentials:
            raise ValueError(
                "verify_signatures=True needs credentials={access key id: secret key, ...}"
            )
        if self.delivers_to_aws and not self.allow_aws_delivery and not moto_answers_botocore():
            # A schedule's universal target may name any AWS action: reaching AWS with the
            # developer's credentials must be a choice, never a default's side effect.
            raise ValueError(
                "delivery='boto3' without delivery_endpoint_url would call AWS itself with "
                "your credentials outside moto's mock_aws: give delivery_endpoint_url "
                "(--delivery-endpoint-url), or allow_aws_delivery=True (--allow-aws-delivery, "
                "SCHEDEMU_ALLOW_AWS_DELIVERY)"
            )

    @property
    def delivers_to_aws(self) -> bool:
        """Whether deliveries go to AWS itself (boto3 delivery, no endpoint of its own)."""
        return self.delivery == "boto3" and self.delivery_endpoint_url is None

    def changed(self, changes: Mapping[str, Any]) -> Settings:
        """These settings with ``changes`` to the ones a test may change (all but ``start``),
        validated as a whole; a bad name or value raises and nothing is made.

        A None for a setting that cannot be None means the value here.
        """
        given = self.differences(changes)
        # Every test resets to the emulator's own values: when nothing differs, these settings
        # (already validated) are the answer, and each test skips a validation of the table.
        return dataclasses.replace(self, **given) if given else self

    def differences(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """The part of ``changes`` (to settings a test may change) that ``changed`` would
        apply: the values that differ from these settings. A bad name raises ``TypeError``.
        """
        unknown = sorted(set(changes) - _CHANGEABLE)
        if unknown:
            raise TypeError(f"Unsupported settings {unknown}: use {sorted(_CHANGEABLE)}")
        return {
            name: value
            for name, value in changes.items()
            if (value is not None or EMULATOR_OPTIONS[name].accepts_none())
            and value != getattr(self, name)
        }

    def values(self, scope: str | None = None) -> dict[str, Any]:
        """The settings (of one scope) by name."""
        return {
            name: getattr(self, name)
            for name, option in EMULATOR_OPTIONS.items()
            if scope is None or option.scope == scope
        }


@dataclass(frozen=True)
class PluginOptions:
    """The pytest plugin's own options for one test."""

    #: The engine that freezes process time, or None.
    freeze: str | None = declare(
        None,
        "freeze process time in lockstep with the emulator clock: true (freezegun), "
        "time_machine, or false",
        scope=PLUGIN,
        parse=values.freeze_engine,
        check=values.freeze,
        shown="false",
        bare="true",
        metavar="ENGINE",
    )
    intercept: bool = declare(
        True,
        "serve every botocore scheduler client in the process from the emulator during "
        "schedemu tests: true or false",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    intercept_rules: bool = declare(
        True,
        "with intercept, serve the EventBridge rule operations (PutRule, PutTargets...) of "
        "every botocore events client from the emulator too; their other operations go to "
        "moto under mock_aws, or fail: true or false",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    allow_unused_targets: bool = declare(
        False,
        "let a test steer targets that no attempt uses",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    allow_drops: bool = declare(
        False,
        "let a test pass although occurrences were lost (ended failed with no dead letter "
        "sent) that it did not assert with assert_dropped",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    timeline: str = declare(
        values.FAILED,
        "write the timeline of schedemu tests as an HTML file named in the report: always, "
        "failed or never (true: always, false: never)",
        scope=PLUGIN,
        parse=values.timeline_mode,
        check=values.one_of(values.TIMELINE_MODES),
    )
    timeline_dir: str | os.PathLike[str] | None = declare(
        None,
        "the folder of the timeline files",
        scope=PLUGIN,
        check=values.optional_folder,
        shown="schedemu-timelines under pytest's base temporary folder",
    )
    allow_server_errors: bool = declare(
        False,
        "let the test pass although the emulator hit an error",
        scope=MARKER,
        parse=parse_bool,
        check=values.boolean,
    )

    def __post_init__(self) -> None:
        validate(PLUGIN_OPTIONS, self)


@dataclass(frozen=True)
class RunOptions:
    """The pytest plugin's options for a whole run, read once as it starts."""

    set_default_region: bool = declare(
        True,
        "when botocore finds no region (no AWS_DEFAULT_REGION, no profile region), set "
        "AWS_DEFAULT_REGION for the run, to AWS_REGION or else the run's region, so that "
        "clients built at import or collection can be made: true or false",
        scope=RUN,
        parse=parse_bool,
        check=values.boolean,
    )
    set_default_credentials: bool = declare(
        True,
        "when botocore finds no credentials in the environment, its files or the profile, "
        "set test credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and "
        "AWS_EC2_METADATA_DISABLED for the run, so that no client asks the instance metadata "
        "service or a container endpoint for credentials: true or false",
        scope=RUN,
        parse=parse_bool,
        check=values.boolean,
    )

    def __post_init__(self) -> None:
        validate(RUN_OPTIONS, self)


EMULATOR_OPTIONS = rows(Settings)
PLUGIN_OPTIONS = rows(PluginOptions)
RUN_OPTIONS = rows(RunOptions)
#: Every option, by name, in declaration order: the emulator's, then the plugin's.
OPTIONS: Mapping[str, Option] = types.MappingProxyType(
    {**EMULATOR_OPTIONS, **PLUGIN_OPTIONS, **RUN_OPTIONS}
)
#: Every default, for code that needs one without an emulator at hand.
DEFAULTS = Settings()
#: The settings a test may change (``start`` aside: a reset places the clock instead).
_CHANGEABLE = frozenset(name for name, row in EMULATOR_OPTIONS.items() if row.scope == TEST) - {
    "start"
}


def options(*scopes: str) -> dict[str, Option]:
    """The options of ``scopes`` (every option when none is given), in declaration order."""
    return {name: row for name, row in OPTIONS.items() if not scopes or row.scope in scopes}
