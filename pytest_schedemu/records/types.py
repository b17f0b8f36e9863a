"""The records of what happened: attempts, dead letters, executions and other activity.

Records are frozen dataclasses handed to tests; lists of them are in dispatch order. An
``Execution`` is a snapshot of one occurrence's history, taken when it is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

# Execution statuses.
SUCCESS = "success"
RETRYING = "retrying"
INVOCATION_ERROR = "invocation_error"
CANCELLED = "cancelled"
# An occurrence whose first attempt has not been made yet (it waits out a flexible window);
# internal only: executions() does not list such occurrences.
PENDING = "pending"


@dataclass(frozen=True)
class Attempt:
    """One delivery try of one occurrence.

    The dispatcher records hundreds of thousands of attempts a second, and most tests
    read a few fields of a few of them; so the ids, times, payload and request of a
    recorded attempt are worked out on first read (``LazyFields``) and kept. To a reader
    the record is an ordinary frozen dataclass: every field is there, always the same.
    """

    schedule_arn: str
    target_arn: str
    scheduled_time: datetime
    attempted_at: datetime
    attempt_number: int
    event_id: str
    execution_id: str
    #: The payload text as delivered: the substituted Input, or the default event; None
    #: for targets whose request carries no payload (SageMaker, ECS without Input…).
    input: str | None
    #: ``input`` parsed as JSON, or None when it is not JSON.
    payload: Any
    #: The materialized request of the target's API, parsed (a universal target's Input).
    request: Any
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

    def __getattr__(self, name: str) -> Any:
        # Only reached for a field that a lazily built record has not computed yet.
        source = self.__dict__.get("_lazy")
        if source is None or name not in LAZY_FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = source.compute(name)
        object.__setattr__(self, name, value)
        return value

    @classmethod
    def lazily(cls, known: dict[str, Any], source: LazyFields) -> Attempt:
        """A record with the ``known`` fields set and the rest left to ``source``."""
        record = object.__new__(cls)
        known["_lazy"] = source
        object.__setattr__(record, "__dict__", known)
        return record


#: The fields of a lazily built Attempt that are computed on first read.
LAZY_FIELDS = frozenset(
    {
        "scheduled_time",
        "attempted_at",
        "event_id",
        "execution_id",
        "input",
        "payload",
        "request",
        "request_text",
    }
)


class LazyFields(Protocol):
    def compute(self, name: str) -> Any: ...


@dataclass(frozen=True)
class DeadLetter:
    """A message sent to a schedule's dead-letter queue."""

    queue_arn: str
    body: str
    payload: Any
    attributes: dict[str, str]
    schedule_arn: str
    scheduled_time: datetime
    sent_at: datetime | None = None
    queue_url: str = ""
    #: Whether the send reached the queue (False: recorded as ``dlq_failed``).
    delivered: bool = True


#: The message attributes of a dead letter (``DeadLetter.attributes``), as AWS names them;
#: ``EXHAUSTED_RETRY_CONDITION`` is there only when retryable failures ran out.
DEAD_LETTER_ATTRIBUTES = (
    "ERROR_CODE",
    "ERROR_MESSAGE",
    "EXECUTION_ID",
    "EXHAUSTED_RETRY_CONDITION",
    "IS_PAYLOAD_TRUNCATED",
    "RETRY_ATTEMPTS",
    "SCHEDULED_TIME",
    "SCHEDULE_ARN",
    "TARGET_ARN",
)


@dataclass(frozen=True)
class Execution:
    """One occurrence of one schedule and everything that happened to it."""

    schedule_arn: str
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

    def __getattr__(self, name: str) -> Any:
        # Only reached for the event id of a snapshot that has not worked it out yet.
        source = self.__dict__.get("_source")
        if source is None or name != "event_id":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = source.event_id
        object.__setattr__(self, name, value)
        return value

    @classmethod
    def of(cls, fields: dict[str, Any], source: Any = None) -> Execution:
        """The record of the fields in ``fields``, built without the frozen constructor's
        cost per field: a timeline takes snapshots by the hundred thousand.

        An ``event_id`` missing from ``fields`` is read from ``source.event_id`` when first
        asked for (a UUID per occurrence costs more than the rest of the snapshot).
        """
        record = object.__new__(cls)
        if source is not None:
            fields["_source"] = source
        object.__setattr__(record, "__dict__", fields)
        return record


@dataclass(frozen=True)
class Activity:
    """Dispatcher activity other than attempts: drops, cancellations, automatic deletes…

    ``kind`` is one of ``ACTIVITY_KINDS``.
    """

    kind: str
    at: datetime
    schedule_arn: str
    scheduled_time: datetime | None = None
    detail: str = ""


#: Every kind of ``Activity``, with what it records.
ACTIVITY_KINDS = {
    "created": "a schedule was created (detail: its state)",
    "updated": "a schedule was updated (detail: its state)",
    "deleted": "a schedule was deleted (detail: deleted, or group_deleted)",
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

    status: str

    def snapshot(self) -> Execution: ...
