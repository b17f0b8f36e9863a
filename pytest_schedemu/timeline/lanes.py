"""From records to lanes: one per schedule ARN, holding its occurrences, marks and changes.

Each attempt becomes a mark classified by its outcome; the end of a failed occurrence
(dead-lettered or dropped) is drawn around its last attempt (a ring), and a cancellation
is a mark of its own at the instant it happened.

A lane keeps its marks and occurrences as parallel lists of plain values, not as objects:
a picture of 100,000 attempts would otherwise allocate, and garbage-collect, as many
objects, which costs more than everything else the renderer does. ``Lane.mark`` and
``Lane.occurrence`` give a readable view of one of them, for the few that get drawn.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, tzinfo
from functools import lru_cache
from typing import NamedTuple, Union

from pytest_schedemu.model.arns import GroupArn, ScheduleArn, scheduler_arn
from pytest_schedemu.model.rules import parse_rule_target_key
from pytest_schedemu.timeline.model import (
    ActivityRecord,
    AttemptRecord,
    DeadLetterRecord,
    ExecutionRecord,
    RunRecord,
    ScheduleRecord,
    TimelineData,
)
from pytest_schedemu.timeline.text import epoch

DELIVERED = "delivered"
FAILED_RETRYABLE = "failed-retryable"
FAILED_PERMANENT = "failed-permanent"
DEAD_LETTERED = "dead-lettered"
DROPPED = "dropped"
CANCELLED = "cancelled"
#: Every outcome a mark can show, in the order legends and bins list them.
OUTCOMES = (DELIVERED, FAILED_RETRYABLE, FAILED_PERMANENT, DEAD_LETTERED, DROPPED, CANCELLED)

# Activity that tells how an occurrence ended, by the outcome it shows.
_FATES = {
    "dead_lettered": DEAD_LETTERED,
    "dropped": DROPPED,
    "dlq_failed": DROPPED,
    "dlq_skipped": DROPPED,
    "cancelled": CANCELLED,
}
# Activity drawn as a change of the schedule itself, by the class of its marker.
CHANGE_CLASSES = {
    "created": "created",
    "updated": "updated",
    "disabled": "disabled",
    "enabled": "enabled",
    "deleted": "deleted",
    "auto_deleted": "auto-deleted",
    "group_removed": "group-removed",
    "interrupted": "interrupted",
}
_REMOVALS = frozenset({"deleted", "auto-deleted", "group-removed"})
_LIFECYCLE = _REMOVALS | {"created"}
_STATE_WORD = re.compile(r"\b(ENABLED|DISABLED)\b")

FateRecord = Union[DeadLetterRecord, ActivityRecord]
#: What a scheduled rule's target's lane shows where a schedule's shows its group; its name
#: is ``<rule name> → <target id>``.
RULE_LANES = "EventBridge rule"
#: No occurrence: the mark of an end that no execution in the data accounts for.
NO_OCCURRENCE = -1


class Occurrence(NamedTuple):
    """One execution placed in time: nominal tick, first due instant, last mark."""

    execution: ExecutionRecord
    nominal: float
    first_due: float
    last: float
    fate: str | None
    fate_record: FateRecord | None


class Mark(NamedTuple):
    """Something drawn at one instant of a lane: an attempt, or an occurrence's end."""

    seconds: float
    #: The attempt's outcome; for a mark without an attempt, the occurrence's end.
    outcome: str
    #: How the occurrence ended, on its last attempt (drawn around the attempt's mark).
    ring: str | None
    attempt: AttemptRecord | None
    occurrence: Occurrence | None
    #: The activity or dead letter of a mark that no execution accounts for.
    record: FateRecord | None
    #: The runs of a stack's own function that a delivered attempt's event caused.
    runs: Sequence[RunRecord] = ()


class Change(NamedTuple):
    """A change of the schedule itself: created, updated, deleted…"""

    seconds: float
    css_class: str
    record: ActivityRecord


class Lane:
    """One schedule's row."""

    def __init__(self, arn: str, group: str, name: str) -> None:
        self.arn = arn
        self.group = group
        self.name = name
        #: The stack and resource that defined the schedule, when a stack did.
        self.origin: str | None = None
        self.schedule: ScheduleRecord | None = None
        self.changes: list[Change] = []
        # Marks, index by index.
        self.seconds: list[float] = []
        self.outcomes: list[str] = []
        self.attempts: list[AttemptRecord | None] = []
        self.owners: list[int] = []
        self.rings: dict[int, str] = {}
        self.end_records: dict[int, FateRecord] = {}
        #: Indexes of the marks that are not attempts.
        self.ends: list[int] = []
        # Occurrences, index by index.
        self.executions: list[ExecutionRecord] = []
        self.nominals: list[float] = []
        self.first_dues: list[float] = []
        self.lasts: list[float] = []
        self.fates: dict[int, tuple[str, FateRecord | None]] = {}
        #: The next nominal times, in epoch seconds (filled for the lanes drawn).
        self.upcoming: list[float] = []
        #: The function runs each attempt caused, by its execution id (``TimelineData.runs``).
        self.runs: Mapping[str, Sequence[RunRecord]] = {}

    def mark(self, index: int) -> Mark:
        owner = self.owners[index]
        attempt = self.attempts[index]
        return Mark(
            self.seconds[index],
            self.outcomes[index],
            self.rings.get(index),
            attempt,
            None if owner == NO_OCCURRENCE else self.occurrence(owner),
            self.end_records.get(index),
            self.runs_of(attempt),
        )

    def runs_of(self, attempt: AttemptRecord | None) -> Sequence[RunRecord]:
        """The function runs the attempt's event caused."""
        # Lambda accepted the event of a delivered attempt only: a refused one ran nothing.
        # Without runs, the execution id (worked out on first read) is left unread.
        if attempt is None or not attempt.succeeded or not self.runs:
            return ()
        return self.runs.get(attempt.execution_id, ())

    def occurrence(self, index: int) -> Occurrence:
        fate, record = self.fates.get(index, (None, None))
        return Occurrence(
            self.executions[index],
            self.nominals[index],
            self.first_dues[index],
            self.lasts[index],
            fate,
            record,
        )

    def add_end(self, seconds: float, outcome: str, owner: int, record: FateRecord | None) -> None:
        """A mark with no attempt: a cancellation, or an end no execution accounts for."""
        index = len(self.seconds)
        self.ends.append(index)
        self.seconds.append(seconds)
        self.outcomes.append(outcome)
        self.attempts.append(None)
        self.owners.append(owner)
        if owner == NO_OCCURRENCE and record is not None:
            self.end_records[index] = record

    @property
    def attempt_count(self) -> int:
        return len(self.attempts) - len(self.ends)

    @property
    def zone_name(self) -> str:
        return self.schedule.timezone if self.schedule is not None else ""

    @property
    def zone(self) -> tzinfo | None:
        """The schedule's zone; None when unknown (a deleted schedule, a bad name)."""
        return _zone(self.zone_name) if self.zone_name else None

    @property
    def deleted_at(self) -> float | None:
        """When the schedule was removed, if its last lifecycle change is a removal."""
        lifecycle = [c for c in self.changes if c.css_class in _LIFECYCLE]
        if lifecycle and lifecycle[-1].css_class in _REMOVALS:
            return lifecycle[-1].seconds
        return None

    @property
    def deleted(self) -> bool:
        return self.schedule is None or self.deleted_at is not None


@lru_cache(maxsize=512)
def _zone(name: str) -> tzinfo | None:
    try:
        return zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return None


def build_lanes(data: TimelineData) -> list[Lane]:
    """A lane per schedule ARN of the data, ordered by group and name."""
    lanes: dict[str, Lane] = {}

    def lane_of(arn: str, group: str = "", name: str = "") -> Lane:
        lane = lanes.get(arn)
        if lane is None:
            parts = scheduler_arn(arn)
            if isinstance(parts, ScheduleArn):
                group, name = parts.group, parts.name
            else:
                rule = parse_rule_target_key(arn)
                if rule is not None:
                    group, name = RULE_LANES, f"{rule.rule_name} → {rule.target_id}"
            lane = lanes[arn] = Lane(arn, group, name or arn)
            lane.origin = data.origins.get(arn)
            lane.runs = data.runs
        return lane

    for schedule in data.schedules:
        lane_of(schedule.arn, schedule.group_name, schedule.name).schedule = schedule
    letters = {(d.producer_key, epoch(d.scheduled_time)): d for d in data.dead_letters}
    fates: dict[tuple[str, float], ActivityRecord] = {}
    group_removals: list[ActivityRecord] = []
    for activity in data.activity:
        if activity.kind in _FATES:
            if activity.scheduled_time is not None:
                fates[(activity.producer_key, epoch(activity.scheduled_time))] = activity
        elif isinstance(scheduler_arn(activity.producer_key), GroupArn):
            group_removals.append(activity)
        else:
            lane_of(activity.producer_key).changes.append(_change(activity))
    by_schedule: dict[str, list[ExecutionRecord]] = {}
    for execution in data.executions:
        found = by_schedule.get(execution.producer_key)
        if found is None:
            by_schedule[execution.producer_key] = [execution]
        else:
            found.append(execution)
    for arn, executions in by_schedule.items():
        first = executions[0]
        _place(lane_of(arn, first.group_name, first.schedule_name), executions, letters, fates)
    _place_unaccounted(lane_of, letters, fates)
    for activity in group_removals:
        _mark_group_lanes(lanes.values(), activity)
    for lane in lanes.values():
        lane.changes.sort(key=lambda change: change.seconds)
    return sorted(lanes.values(), key=lambda lane: (lane.group, lane.name, lane.arn))


def _place(
    lane: Lane,
    executions: list[ExecutionRecord],
    letters: dict[tuple[str, float], DeadLetterRecord],
    fates: dict[tuple[str, float], ActivityRecord],
) -> None:
    # The hot path, once per execution and attempt: list methods are bound once, and
    # the rare failed or cancelled occurrence takes the slow branch.
    add_execution, add_nominal = lane.executions.append, lane.nominals.append
    add_first_due, add_last = lane.first_dues.append, lane.lasts.append
    add_time, add_owner = lane.seconds.append, lane.owners.append
    add_outcome, add_attempts = lane.outcomes.append, lane.attempts.extend
    owner = len(lane.executions)
    for execution in executions:
        scheduled = execution.scheduled_time
        nominal = scheduled.timestamp() if scheduled.tzinfo is not None else epoch(scheduled)
        due = execution.first_attempt_due
        add_execution(execution)
        add_nominal(nominal)
        add_first_due(nominal if due is None or due == scheduled else epoch(due))
        attempts = execution.attempts
        seconds = nominal
        for attempt in attempts:
            moment = attempt.attempted_at
            seconds = moment.timestamp() if moment.tzinfo is not None else epoch(moment)
            add_time(seconds)
            add_owner(owner)
            if attempt.succeeded:
                add_outcome(DELIVERED)
            elif attempt.retryable is False:
                add_outcome(FAILED_PERMANENT)
            else:
                add_outcome(FAILED_RETRYABLE)
        add_attempts(attempts)
        status = execution.status
        if status == "invocation_error" or status == "cancelled":
            seconds = _end(lane, owner, execution, nominal, seconds, letters, fates)
        add_last(seconds)
        owner += 1


def _end(
    lane: Lane,
    owner: int,
    execution: ExecutionRecord,
    nominal: float,
    last: float,
    letters: dict[tuple[str, float], DeadLetterRecord],
    fates: dict[tuple[str, float], ActivityRecord],
) -> float:
    """Records how a failed or cancelled occurrence ended; returns its last instant."""
    key = (execution.producer_key, nominal)
    record: FateRecord | None = fates.pop(key, None)
    if execution.status == "cancelled":
        fate = CANCELLED
    else:
        letter = letters.pop(key, None)
        fate = DROPPED if letter is None else DEAD_LETTERED
        record = letter if letter is not None else record
    lane.fates[owner] = (fate, record)
    if fate != CANCELLED and execution.attempts:
        lane.rings[len(lane.seconds) - 1] = fate
        return last
    at = fate_instant(record, last)
    lane.add_end(at, fate, owner, None)
    return max(last, at)


def fate_instant(record: FateRecord | None, default: float) -> float:
    """When an occurrence's end was recorded: the activity's instant, the letter's send."""
    moment = getattr(record, "at", None) or getattr(record, "sent_at", None)
    return epoch(moment) if isinstance(moment, datetime) else default


def _place_unaccounted(
    lane_of: Callable[[str], Lane],
    letters: dict[tuple[str, float], DeadLetterRecord],
    fates: dict[tuple[str, float], ActivityRecord],
) -> None:
    # Ends of occurrences whose executions are not in the data (filtered out, or dropped
    # by a record cap): still drawn, as marks of their own.
    for (arn, _), letter in letters.items():
        at = fate_instant(letter, epoch(letter.scheduled_time))
        lane_of(arn).add_end(at, DEAD_LETTERED, NO_OCCURRENCE, letter)
    for key, activity in fates.items():
        if activity.kind == "dead_lettered" and key in letters:
            continue
        lane_of(activity.producer_key).add_end(
            epoch(activity.at), _FATES[activity.kind], NO_OCCURRENCE, activity
        )


def _change(activity: ActivityRecord) -> Change:
    css_class = CHANGE_CLASSES.get(activity.kind, "other")
    if css_class == "updated":
        states = _STATE_WORD.findall(str(activity.detail))
        if states:
            css_class = states[-1].lower()
    return Change(epoch(activity.at), css_class, activity)


def _mark_group_lanes(lanes: Iterable[Lane], activity: ActivityRecord) -> None:
    removed = scheduler_arn(activity.producer_key)
    for lane in lanes:
        parts = scheduler_arn(lane.arn)
        if isinstance(parts, ScheduleArn) and parts.group_arn == removed:
            lane.changes.append(_change(activity))
