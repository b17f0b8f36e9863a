"""What happened: delivery attempts, dead letters, executions and other dispatcher activity.

Records are frozen dataclasses handed to tests; lists are in dispatch order. An
``Execution`` is a snapshot of one occurrence's history, taken when it is asked for.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol, TypeVar

T = TypeVar("T")

# Execution statuses.
SUCCESS = "success"
RETRYING = "retrying"
INVOCATION_ERROR = "invocation_error"
CANCELLED = "cancelled"
# An occurrence whose first attempt has not been made yet (it waits out a flexible window);
# internal only: executions() does not list such occurrences.
PENDING = "pending"


def parse_json(text: str | None) -> Any:
    """The JSON value of ``text``, or None when it is absent or not JSON."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


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


@dataclass(frozen=True)
class Activity:
    """Dispatcher activity other than attempts: drops, cancellations, automatic deletes…

    ``kind`` is one of ``dead_lettered``, ``dropped``, ``dlq_failed``, ``dlq_skipped``,
    ``cancelled``, ``auto_deleted``, ``group_removed``.
    """

    kind: str
    at: datetime
    schedule_arn: str
    scheduled_time: datetime | None = None
    detail: str = ""


class History:
    """Append-only logs, safe to read from any thread while the dispatcher writes."""

    def __init__(self, max_records: int | None = None) -> None:
        self._lock = threading.Lock()
        self.max_records = max_records
        self.dropped_records = 0
        self._attempts: list[Attempt] = []
        self._dead_letters: list[DeadLetter] = []
        self._activity: list[Activity] = []
        #: Called with every attempt as it is recorded (``schedemu serve`` logs them).
        self.listeners: list[Callable[[Attempt], None]] = []

    def clear(self) -> None:
        with self._lock:
            self._attempts.clear()
            self._dead_letters.clear()
            self._activity.clear()
            self.dropped_records = 0

    def add_attempt(self, attempt: Attempt) -> None:
        self.add_attempts((attempt,))

    def add_attempts(self, new: Sequence[Attempt]) -> None:
        attempts = self._attempts
        attempts.extend(new)
        for listener in self.listeners:
            for attempt in new:
                listener(attempt)
        if self.max_records is not None and len(attempts) > self.max_records:
            # Drop the oldest twentieth at once: trimming one record per append would make
            # every append past the cap cost a full list shift.
            excess = len(attempts) - self.max_records + max(1, self.max_records // 20)
            with self._lock:
                del attempts[:excess]
                self.dropped_records += excess

    def add_dead_letter(self, letter: DeadLetter) -> None:
        self._dead_letters.append(letter)

    def add_activity(self, activity: Activity) -> None:
        self._activity.append(activity)

    def attempts(self, keep: Callable[[Attempt], bool] | None = None) -> list[Attempt]:
        return _filtered(self._lock, self._attempts, keep)

    def dead_letters(self, keep: Callable[[DeadLetter], bool] | None = None) -> list[DeadLetter]:
        return _filtered(self._lock, self._dead_letters, keep)

    def activity(self, keep: Callable[[Activity], bool] | None = None) -> list[Activity]:
        return _filtered(self._lock, self._activity, keep)


def _filtered(lock: threading.Lock, items: list[T], keep: Callable[[T], bool] | None) -> list[T]:
    with lock:
        snapshot = list(items)
    return snapshot if keep is None else [item for item in snapshot if keep(item)]
