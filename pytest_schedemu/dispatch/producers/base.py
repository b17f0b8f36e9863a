"""The interface every producer of occurrences offers the dispatcher.

A ``Producer`` is one definition of one producer: a schedule as created or updated, a
rule's target as its rule and the target stand. The planner makes one for each definition
and hands it to the plan (``Plan.define``), which copies what the hot loop reads per
occurrence (the timeline, the target, the record fields, the retry ladder...) once; each
occurrence keeps the producer of the definition it was generated under, so that what it
sent, its retries and its dead letter keep that definition after an update.

What a producer decides:

- ``identity``: the fields that say what made a record (``records.SOURCES``): every
  attempt, execution, dead letter and activity record of it carries them.
- ``activation``: the first second its expression may fire at.
- ``event_key`` and ``execution_tag``: what its occurrences' event ids and its attempts'
  execution ids are made of.
- ``retry``: the ladder its failed attempts climb (``retries``).
- ``broken``: the outcome of every attempt when what it sends cannot be built, else None.
- ``dead_letter``: the message that tells its dead-letter queue an occurrence failed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_schedemu.delivery.backends import DeadLetterRequest, Outcome
from pytest_schedemu.dispatch.retries import Ladder
from pytest_schedemu.expressions import Timeline
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records import Activity, Attempt
from pytest_schedemu.records.types import beyond_defaults
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.targets import TargetPlan

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.occurrences import Occurrence


class Producer(ABC):
    """One definition of something that makes occurrences on the clock."""

    __slots__ = (
        "activation",
        "broken",
        "event_key",
        "execution_tag",
        "identity",
        "record_fields",
        "retry",
        "schedule",
        "target",
        "timeline",
    )

    def __init__(
        self,
        *,
        schedule: Schedule,
        timeline: Timeline,
        target: TargetPlan,
        identity: dict[str, Any],
        activation: int,
        event_key: tuple[str, int],
        retry: Ladder,
        execution_tag: str | None = None,
        broken: Outcome | None = None,
    ) -> None:
        #: The definition as the planner plays it: expression, window, start and end,
        #: target, retry policy, dead-letter queue, state.
        self.schedule = schedule
        self.timeline = timeline
        #: Its target, prepared once for all of its attempts.
        self.target = target
        #: What says, in every record of it, what made the record.
        self.identity = identity
        self.activation = activation
        #: What its occurrences' event ids are made of: (a name, a number).
        self.event_key = event_key
        #: Told apart in its attempts' execution ids, or None.
        self.execution_tag = execution_tag
        self.retry = retry
        self.broken = broken
        #: The fields every attempt record of it shares, but those its class has as
        #: defaults (a schedule's ``source``, a success's error fields): each record holds
        #: its own copy, and a successful one only adds its attempt number.
        self.record_fields = beyond_defaults(
            Attempt,
            {
                **self.execution_fields,
                "target_arn": schedule.target.arn,
                "succeeded": True,
                "error_code": None,
                "error_message": None,
                "retryable": None,
                "incarnation": schedule.incarnation,
            },
        )

    @property
    def execution_fields(self) -> dict[str, Any]:
        """The fields its executions share: made when asked, as a dict kept per producer
        would cost more than the rest of it."""
        schedule = self.schedule
        return {**self.identity, "group_name": schedule.group_name, "schedule_name": schedule.name}

    def activity(
        self, kind: str, at: datetime, nominal: int | None = None, detail: str = ""
    ) -> Activity:
        """An activity record of it (of its occurrence at ``nominal``, if any)."""
        scheduled = None if nominal is None else from_epoch(nominal)
        return Activity(kind, at, scheduled_time=scheduled, detail=detail, **self.identity)

    @abstractmethod
    def dead_letter(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        condition: str,
        queue_arn: str,
        settings: Settings,
    ) -> DeadLetterRequest:
        """The message for ``queue_arn`` about ``occurrence``, ended by ``attempt`` for
        ``condition`` (``permanent``, ``MaximumRetryAttempts`` or
        ``MaximumEventAgeInSeconds``)."""
