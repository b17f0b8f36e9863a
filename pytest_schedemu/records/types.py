"""The records of what happened: attempts, dead letters, executions and other activity.

Records are frozen dataclasses handed to tests, plain values however they were made;
lists of them are in dispatch order. An ``Execution`` is a snapshot of one occurrence's
history, taken when it is asked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol, TypeVar

from pytest_schedemu.model.rules import parse_rule_target_key, rule_target_key

#: What made a record (its ``source``): a schedule of EventBridge Scheduler, or a target of
#: a scheduled EventBridge rule.
SCHEDULE = "schedule"
RULE = "rule"
#: A stack's own function: what its asynchronous invocation's destination or dead-letter
#: queue received (``functions``).
FUNCTION = "function"
SOURCES = {
    SCHEDULE: "a schedule: schedule_arn names it (and group_name, schedule_name where a "
    "record has them); rule_arn, rule_name and target_id are None",
    RULE: "a target of a scheduled EventBridge rule: rule_arn, rule_name and target_id name "
    "it; schedule_arn is None",
    FUNCTION: "a stack's own function, after Lambda's asynchronous invocation of it: "
    "schedule_arn, rule_arn, rule_name and target_id are None",
}

# Execution statuses.
SUCCESS = "success"
RETRYING = "retrying"
INVOCATION_ERROR = "invocation_error"
CANCELLED = "cancelled"
# An occurrence whose first attempt has not been made yet (it waits out a flexible window);
# internal only: executions() does not list such occurrences.
PENDING = "pending"


class FieldSource(Protocol):
    """Works out the fields a lazily built record was made without (``LazyRecord``)."""

    def compute(self, name: str) -> Any:
        """The value of field ``name``; AttributeError for a field it does not know."""
        ...


_Record = TypeVar("_Record", bound="LazyRecord")


class MadeBy:
    """What made a record, as its fields say (``source``, ``schedule_arn``, ``rule_arn``,
    ``target_id``), and as one key to group records by (``producer_key``)."""

    __slots__ = ()
    source: str
    schedule_arn: str | None
    rule_arn: str | None
    target_id: str | None

    @property
    def producer_key(self) -> str:
        """One string per schedule or rule target: the schedule's ARN (a group's, for a
        group's removal), ``<rule ARN>#<target id>`` for a rule target, ``FUNCTION`` for
        what the stacks' own functions sent. Records keep no such field: timelines,
        queries and state files group records by it."""
        arn = self.schedule_arn
        if arn is not None:
            return arn
        if self.source == FUNCTION:
            return FUNCTION
        return rule_target_key(self.rule_arn or "", self.target_id or "")


def producer_fields(key: str) -> dict[str, Any]:
    """The fields that say what made a record of ``key`` (a ``producer_key``)."""
    if key == FUNCTION:
        return {"source": FUNCTION, "schedule_arn": None}
    parts = parse_rule_target_key(key)
    if parts is None:
        return {"source": SCHEDULE, "schedule_arn": key}
    return {
        "source": RULE,
        "schedule_arn": None,
        "rule_arn": parts.rule_arn,
        "rule_name": parts.rule_name,
        "target_id": parts.target_id,
    }


class LazyRecord:
    """A record whose fields may be worked out on first read, and kept.

    The dispatcher records hundreds of thousands of attempts a second, and most tests read
    a few fields of a few of them; so a record may be made (``lazily``) with the fields at
    hand and a source for the rest: the dispatcher's job for a live attempt, the occurrence
    for an execution, a state file's row for one read back. To a reader it is an ordinary
    frozen dataclass however it was made: equality, hash and repr read every field, and it
    pickles (and copies) as its fields alone, without the source.
    """

    # Set by @dataclass on each record class.
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def __getattr__(self, name: str) -> Any:
        # Only reached for an attribute not set: a field not worked out yet, or no field.
        source = self.__dict__.get("_source")
        if source is None or name not in self.__dataclass_fields__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = source.compute(name)
        self.__dict__[name] = value
        return value

    @classmethod
    def lazily(cls: type[_Record], known: dict[str, Any], source: FieldSource) -> _Record:
        """A record of the ``known`` fields (a dict it takes over), the rest left to
        ``source``; made without the frozen constructor's cost per field."""
        record = object.__new__(cls)
        known["_source"] = source
        object.__setattr__(record, "__dict__", known)
        return record

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


_DEFAULTS: dict[str, dict[str, Any]] = {}


def _defaults(cls: type[LazyRecord]) -> dict[str, Any]:
    found = _DEFAULTS.get(cls.__qualname__)
    if found is None:
        found = _DEFAULTS[cls.__qualname__] = {
            name: spec.default
            for name, spec in cls.__dataclass_fields__.items()
            if spec.default is not MISSING
        }
    return found


def beyond_defaults(cls: type[LazyRecord], known: dict[str, Any]) -> dict[str, Any]:
    """``known`` without the fields whose value is ``cls``'s default: a record made
    ``lazily`` reads those from its class, as a dataclass's instance reads every default
    it was not given, so records made by the hundred thousand need not each hold them."""
    defaults = _defaults(cls)
    return {
        name: value
        for name, value in known.items()
        if name not in defaults
        or type(value) is not type(defaults[name])
        or value != defaults[name]
    }


@dataclass(frozen=True)
class Attempt(MadeBy, LazyRecord):
    """One delivery try of one occurrence; its ids, times, payload and request may be
    worked out on first read (``LazyRecord``)."""

    #: The schedule that made it; None for a rule target's (``source``).
    schedule_arn: str | None
    target_arn: str
    scheduled_time: datetime
    attempted_at: datetime
    attempt_number: int
    event_id: str
    execution_id: str
    #: The payload text as delivered: the substituted Input, or the default event; None
    #: for targets whose request carries no payload (SageMaker, ECS without Input…).
    input: str | None
    #: ``input`` parsed as JSON, or None when it is not JSON (not hashed: it follows from
    #: ``input``, and may be a dict).
    payload: Any = field(hash=False)
    #: The materialized request of the target's API, parsed (a universal target's Input);
    #: not hashed, as it follows from ``request_text``.
    request: Any = field(hash=False)
    #: The exact materialized request text (the dead-letter body is built from it).
    request_text: str
    succeeded: bool
    error_code: str | None = None
    error_message: str | None = None
    #: Whether a failure was retryable; None for a success.
    retryable: bool | None = None
    group_name: str = ""
    schedule_name: str = ""
    #: Which incarnation of the schedule made the attempt: a schedule deleted and created
    #: again under the same name is a new incarnation (a new creation sequence number).
    incarnation: int = 0
    #: Whether a test fired its occurrence by hand (``Emulator.fire``), out of its schedule.
    fired: bool = False
    #: For a rule target's record: its rule's ARN and name and the target's id; None for
    #: a schedule's.
    rule_arn: str | None = None
    rule_name: str | None = None
    target_id: str | None = None
    #: What made it: ``schedule`` or ``rule`` (``SOURCES``).
    source: str = SCHEDULE


@dataclass(frozen=True)
class DeadLetter(MadeBy):
    """A message sent to a schedule's (or a rule target's) dead-letter queue, or to an SQS
    queue by a stack's own function after Lambda's asynchronous invocation (a destination's
    invocation record, or the function's dead-letter message): ``body`` is the message as
    AWS sends it, ``input`` what the target would have received."""

    queue_arn: str
    #: The SQS message body as AWS sends it: a schedule's is the last attempt's target
    #: request (``Attempt.request_text``), its payload shortened to fit the message; a rule
    #: target's is the event, or its Input, InputPath or InputTransformer's output.
    body: str
    #: ``body`` parsed as JSON (not hashed: it follows from ``body``).
    payload: Any = field(hash=False)
    attributes: dict[str, str] = field(hash=False)
    #: The schedule whose occurrence it is; None for a rule target's (``source``).
    schedule_arn: str | None
    scheduled_time: datetime
    sent_at: datetime | None = None
    queue_url: str = ""
    #: Whether the send reached the queue (False: recorded as ``dlq_failed``).
    delivered: bool = True
    #: The occurrence's input as its target would have received it: the ``input`` of the
    #: attempt that ended the occurrence (a schedule's Input after its placeholders, a rule
    #: target's event or transformed input), never shortened; None when the target's
    #: request carries no payload, or a state file written before it was kept lost it.
    input: str | None = None
    #: For a rule target's record: its rule's ARN and name and the target's id; None for
    #: a schedule's.
    rule_arn: str | None = None
    rule_name: str | None = None
    target_id: str | None = None
    #: What made it: ``schedule``, ``rule`` or ``function`` (``SOURCES``).
    source: str = SCHEDULE


#: The message attributes of a dead letter (``DeadLetter.attributes``), as AWS names them;
#: ``EXHAUSTED_RETRY_CONDITION`` is there only when retryable failures ran out. A rule
#: target's carry ``RULE_ARN``, ``TARGET_ARN``, ``ERROR_CODE``, ``ERROR_MESSAGE``,
#: ``EXHAUSTED_RETRY_CONDITION`` and ``RETRY_ATTEMPTS``.
DEAD_LETTER_ATTRIBUTES = (
    "ERROR_CODE",
    "ERROR_MESSAGE",
    "EXECUTION_ID",
    "EXHAUSTED_RETRY_CONDITION",
    "IS_PAYLOAD_TRUNCATED",
    "RETRY_ATTEMPTS",
    "RULE_ARN",
    "SCHEDULED_TIME",
    "SCHEDULE_ARN",
    "TARGET_ARN",
)


@dataclass(frozen=True)
class Execution(MadeBy, LazyRecord):
    """One occurrence of one schedule (or rule target) and everything that happened to it;
    its event id may be worked out on first read (``LazyRecord``)."""

    #: The schedule whose occurrence it is; None for a rule target's (``source``).
    schedule_arn: str | None
    scheduled_time: datetime
    event_id: str
    status: str
    attempts: tuple[Attempt, ...]
    group_name: str = ""
    schedule_name: str = ""
    #: When the first attempt is or was due (nominal time plus any flexible offset).
    first_attempt_due: datetime | None = None
    #: Why it ended failed: ``MaximumRetryAttempts``, ``MaximumEventAgeInSeconds``,
    #: ``permanent`` (a non-retryable error), or None.
    exhausted_condition: str | None = None
    #: Whether a test fired it by hand (``Emulator.fire``), out of its schedule.
    fired: bool = False
    #: For a rule target's record: its rule's ARN and name and the target's id; None for
    #: a schedule's.
    rule_arn: str | None = None
    rule_name: str | None = None
    target_id: str | None = None
    #: What made it: ``schedule`` or ``rule`` (``SOURCES``).
    source: str = SCHEDULE

    def snapshot(self) -> Execution:
        """An execution that can no longer change (one read back from a state file, its
        occurrence settled) is its own snapshot: the history keeps it as its source."""
        return self


@dataclass(frozen=True)
class Activity(MadeBy):
    """Dispatcher activity other than attempts: drops, cancellations, automatic deletes…

    ``kind`` is one of ``ACTIVITY_KINDS``.
    """

    kind: str
    at: datetime
    #: The schedule it happened to (a group's ARN for a group's removal); None for a rule
    #: target's (``source``).
    schedule_arn: str | None
    scheduled_time: datetime | None = None
    detail: str = ""
    #: For a rule target's record: its rule's ARN and name and the target's id; None for
    #: a schedule's.
    rule_arn: str | None = None
    rule_name: str | None = None
    target_id: str | None = None
    #: What made it: ``schedule`` or ``rule`` (``SOURCES``).
    source: str = SCHEDULE


#: Every kind of ``Activity``, with what it records.
ACTIVITY_KINDS = {
    "created": "a schedule, or a scheduled rule's target, was created (detail: its state)",
    "updated": "a schedule was updated, or a rule target's rule or definition changed "
    "(detail: its state)",
    "deleted": "a schedule was deleted (detail: deleted, or group_deleted), or a rule target "
    "(detail: deleted, target_removed, or no_schedule when its rule lost its expression)",
    "auto_deleted": "a schedule deleted itself after its last occurrence",
    "cancelled": "a pending occurrence was cancelled (detail: why)",
    "dropped": "an occurrence ended failed without a dead-letter queue (detail: the error)",
    "dead_lettered": "a dead letter was sent (detail: the queue)",
    "dlq_failed": "sending a dead letter failed (detail: the error)",
    "group_removed": "a deleted schedule group finished deleting",
    "interrupted": "an attempt's delivery raised KeyboardInterrupt or the like; it is retried",
    "not_delivered": "an attempt had not finished (or started) when the emulator stopped",
}


class ExecutionSource(Protocol):
    """An occurrence as the history keeps it: its execution record is made when asked for."""

    @property
    def status(self) -> str: ...

    def snapshot(self) -> Execution: ...


class MoveAttempts(list[Attempt]):
    """What a clock move returns: the newest ``max_records`` attempts it made, oldest first,
    and ``attempts_made``, how many it made in all. The list's length is how many were
    kept; the rest are counted, never held, so a long move's memory is what it keeps."""

    def __init__(self, kept: Iterable[Attempt] = (), attempts_made: int = 0) -> None:
        super().__init__(kept)
        self.attempts_made = attempts_made


#: Every kind of ``PendingWork``, with what it will do when it falls due.
PENDING_KINDS = {
    "occurrence": "a schedule's next occurrence falls due (its first attempt is made then, "
    "or at the end of its flexible window)",
    "first_attempt": "the first attempt of an occurrence that waited out its flexible window",
    "retry": "a retry of a failed attempt (its last one sends the dead letter if it fails)",
    "deletion": "a schedule that asked to be deleted after completion deletes itself",
    "group_removal": "a deleted schedule group finishes deleting",
    "function_retry": "Lambda's retry of a stack's own function, for an event it accepted "
    "asynchronously whose last run failed",
    "event_expiry": "an event Lambda holds for a retry reaches its MaximumEventAgeInSeconds "
    "first: the function's failure destination receives it then",
}


@dataclass(frozen=True)
class PendingWork:
    """One piece of work queued ahead of the clock (``Emulator.pending``)."""

    #: When it falls due.
    due: datetime
    #: One of ``PENDING_KINDS``.
    kind: str
    #: The schedule it belongs to; None for a group removal and a rule target's work.
    schedule_name: str | None
    group_name: str
    schedule_arn: str | None
    #: The target the attempt will call (an occurrence's too); None for a deletion or a
    #: group removal.
    target_arn: str | None
    #: The number of the attempt it makes; None for work that makes no attempt.
    attempt_number: int | None
    #: The occurrence's scheduled time (attempts and occurrences); None otherwise.
    scheduled_time: datetime | None = None
    #: Whether the occurrence was fired by hand (``Emulator.fire``).
    fired: bool = False
    #: For a rule target's record: its rule's ARN and name and the target's id; None for
    #: a schedule's.
    rule_arn: str | None = None
    rule_name: str | None = None
    target_id: str | None = None
    #: What made it: ``schedule``, ``rule`` or ``function`` (``SOURCES``).
    source: str = SCHEDULE
