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
- ``delivering``: what its attempts and its dead letters ask of IAM (``targets.permissions``).
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
from pytest_schedemu.targets.permissions import Delivering

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.occurrences import Occurrence


class Producer(ABC):
    """One definition of something that makes occurrences on the clock."""

    # A live schedule holds one: what a subclass can work out from the rest (its identity,
    # its event key) or shares with every other of its kind (its retry ladder) is a
    # property or a class attribute there, not a slot.
    __slots__ = ("permission", "schedule", "target", "timeline")

    #: What says, in every record of it, what made the record.
    identity: dict[str, Any]
    #: What its occurrences' event ids are made of: (a name, a number).
    event_key: tuple[str, int]
    #: The ladder its failed attempts climb.
    retry: Ladder
    #: Told apart in its attempts' execution ids, or None.
    execution_tag: str | None = None
    broken: Outcome | None = None

    def __init__(self, *, schedule: Schedule, timeline: Timeline, target: TargetPlan) -> None:
        #: The definition as the planner plays it: expression, window, start and end,
        #: target, retry policy, dead-letter queue, state.
        self.schedule = schedule
        self.timeline = timeline
        #: Its target, prepared once for all of its attempts.
        self.target = target
        #: IAM's verdict on its attempts, with the stamp it holds under
        #: (``dispatch.permissions``): a refusal's outcome, or None.
        self.permission: tuple[tuple[int, str], Outcome | None] | None = None

    @property
    @abstractmethod
    def delivering(self) -> Delivering:
        """What its attempts ask of IAM: who delivers, with which role, to what."""

    @property
    def activation(self) -> int:
        """The first second its expression may fire at."""
        return self.schedule.eligible_from

    def record_fields(self) -> dict[str, Any]:
        """The fields every attempt record of it shares, but those its class has as
        defaults (a schedule's ``source``, a success's error fields): each record holds
        its own copy, and a successful one only adds its attempt number. Made once per
        definition, for its first occurrence (``Plan.record_fields``)."""
        schedule = self.schedule
        return beyond_defaults(
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
