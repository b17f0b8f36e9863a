"""What the timeline reads: the records it is given, described by the attributes it uses.

The renderer accepts any object with these attributes (the emulator's frozen records,
records read back from JSON, stand-ins in a test), so it depends on none of the record
classes and keeps working when they move. ARNs are read by ``model.arns``, as everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Protocol

from pytest_schedemu.model.arns import GroupArn, ScheduleFilter, scheduler_arn

# The members are read-only properties so that frozen dataclasses, whose fields cannot be
# assigned, satisfy these protocols.


class TargetRecord(Protocol):
    @property
    def arn(self) -> str: ...


class FlexibleWindowRecord(Protocol):
    @property
    def maximum_window_in_minutes(self) -> int | None: ...


class ScheduleRecord(Protocol):
    """A schedule as it stands: one lane of the picture."""

    @property
    def arn(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def group_name(self) -> str: ...
    @property
    def schedule_expression(self) -> str: ...
    @property
    def timezone(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def flexible_time_window(self) -> FlexibleWindowRecord: ...
    @property
    def target(self) -> TargetRecord: ...


class AttemptRecord(Protocol):
    """One delivery try of one occurrence."""

    @property
    def producer_key(self) -> str: ...
    @property
    def target_arn(self) -> str: ...
    @property
    def scheduled_time(self) -> datetime: ...
    @property
    def attempted_at(self) -> datetime: ...
    @property
    def attempt_number(self) -> int: ...
    @property
    def succeeded(self) -> bool: ...
    @property
    def error_code(self) -> str | None: ...
    @property
    def error_message(self) -> str | None: ...
    @property
    def retryable(self) -> bool | None: ...
    @property
    def input(self) -> str | None: ...
    @property
    def fired(self) -> bool: ...
    @property
    def execution_id(self) -> str: ...


class RunRecord(Protocol):
    """One run of a stack's own function, for an event an attempt delivered to Lambda."""

    @property
    def function_name(self) -> str: ...
    #: 1 for the first run, 2 and 3 for Lambda's retries of the same event.
    @property
    def attempt(self) -> int: ...
    @property
    def invoked_at(self) -> datetime: ...
    @property
    def error_type(self) -> str | None: ...
    @property
    def error_message(self) -> str | None: ...


class ExecutionRecord(Protocol):
    """One occurrence of one schedule, with its attempts in order."""

    @property
    def producer_key(self) -> str: ...
    @property
    def group_name(self) -> str: ...
    @property
    def schedule_name(self) -> str: ...
    @property
    def scheduled_time(self) -> datetime: ...
    @property
    def first_attempt_due(self) -> datetime | None: ...
    @property
    def status(self) -> str: ...
    @property
    def exhausted_condition(self) -> str | None: ...
    @property
    def attempts(self) -> Sequence[AttemptRecord]: ...


class ActivityRecord(Protocol):
    """Something that happened to a schedule or an occurrence other than an attempt.

    Kinds drawn as state changes: ``created``, ``updated`` (shown as disabled or enabled
    when the detail's last state word is ``DISABLED`` or ``ENABLED``), ``disabled``,
    ``enabled``, ``deleted``, ``auto_deleted``, ``group_removed`` (on every lane of the
    group), ``interrupted``. Kinds that end an occurrence (``dead_lettered``, ``dropped``,
    ``dlq_failed``, ``dlq_skipped``, ``cancelled``) describe that occurrence's last mark.
    Any other kind is drawn as a generic change named by its kind.
    """

    @property
    def kind(self) -> str: ...
    @property
    def at(self) -> datetime: ...
    @property
    def producer_key(self) -> str: ...
    @property
    def scheduled_time(self) -> datetime | None: ...
    @property
    def detail(self) -> str: ...


class DeadLetterRecord(Protocol):
    """A message sent to a dead-letter queue for one occurrence."""

    @property
    def queue_arn(self) -> str: ...
    @property
    def producer_key(self) -> str: ...
    @property
    def scheduled_time(self) -> datetime: ...
    @property
    def sent_at(self) -> datetime | None: ...
    @property
    def attributes(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class TimelineData:
    """Everything one picture shows.

    A lane is drawn for every schedule ARN found in ``schedules``, ``executions`` or
    ``activity``; an ARN missing from ``schedules`` is a deleted schedule. The time axis
    fits the records and ``now``; ``since`` and ``until``, when given, fix its ends and
    clip what lies outside. Naive datetimes are read as UTC.

    ``upcoming`` maps a schedule ARN to its next nominal times, drawn as dashed ticks where
    the axis reaches them (they never stretch it). It is read only for the lanes drawn,
    so it may compute its values on demand.
    """

    schedules: Sequence[ScheduleRecord]
    executions: Sequence[ExecutionRecord]
    activity: Sequence[ActivityRecord]
    dead_letters: Sequence[DeadLetterRecord]
    now: datetime
    since: datetime | None = None
    until: datetime | None = None
    upcoming: Mapping[str, Sequence[datetime]] = field(default_factory=dict)
    #: Schedule ARN -> the stack and resource that defined it, e.g. ``Billing · Nightly``.
    origins: Mapping[str, str] = field(default_factory=dict)
    #: An attempt's ``execution_id`` -> the runs of a stack's own function that its event
    #: caused, Lambda's retries included, in the order they ran.
    runs: Mapping[str, Sequence[RunRecord]] = field(default_factory=dict)

    def filtered(
        self,
        schedule: str | None = None,
        group: str | None = None,
        target_arn: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> TimelineData:
        """The same data narrowed down; every argument left as None narrows nothing.

        ``schedule`` is a schedule name or ARN, ``group`` a group name, ``target_arn``
        keeps the schedules aimed at that target and those with attempts to it (and of
        their occurrences, those that tried it). ``since`` and ``until`` keep what
        overlaps that stretch and become the axis bounds.
        """
        named = ScheduleFilter(schedule, group)
        arns = self._arns_matching(named, target_arn)
        window = _Window(
            since if since is not None else self.since,
            until if until is not None else self.until,
        )
        return dataclasses.replace(
            self,
            schedules=[s for s in self.schedules if s.arn in arns],
            executions=[
                e
                for e in self.executions
                if e.producer_key in arns
                and _tried(e, target_arn)
                and window.overlaps(e.scheduled_time, _last_instant(e))
            ],
            activity=[
                a
                for a in self.activity
                if _activity_arn_kept(a.producer_key, arns, named) and window.overlaps(a.at, a.at)
            ],
            dead_letters=[
                d
                for d in self.dead_letters
                if d.producer_key in arns
                and window.overlaps(d.sent_at or d.scheduled_time, d.sent_at or d.scheduled_time)
            ],
            since=window.since,
            until=window.until,
        )

    def _arns_matching(self, named: ScheduleFilter, target_arn: str | None) -> set[str]:
        known = {s.arn for s in self.schedules}
        known.update(e.producer_key for e in self.executions)
        known.update(a.producer_key for a in self.activity)
        known.update(d.producer_key for d in self.dead_letters)
        arns = {arn for arn in known if named.matches_arn(arn)}
        if target_arn is not None:
            aimed = {s.arn for s in self.schedules if s.target.arn == target_arn}
            aimed.update(e.producer_key for e in self.executions if _tried(e, target_arn))
            arns &= aimed
        return arns


def _activity_arn_kept(arn: str, arns: set[str], named: ScheduleFilter) -> bool:
    # A group's removal names the group, not a schedule: it stays while no single
    # schedule is asked for and its group is the one asked for, or any.
    return arn in arns or (isinstance(scheduler_arn(arn), GroupArn) and named.matches_arn(arn))


def _tried(execution: ExecutionRecord, target_arn: str | None) -> bool:
    if target_arn is None or not execution.attempts:
        return True
    return any(a.target_arn == target_arn for a in execution.attempts)


def _last_instant(execution: ExecutionRecord) -> datetime:
    attempts = execution.attempts
    return attempts[-1].attempted_at if attempts else execution.scheduled_time


@dataclass(frozen=True)
class _Window:
    since: datetime | None
    until: datetime | None

    def overlaps(self, first: datetime, last: datetime) -> bool:
        return (self.since is None or _utc(last) >= _utc(self.since)) and (
            self.until is None or _utc(first) <= _utc(self.until)
        )


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
