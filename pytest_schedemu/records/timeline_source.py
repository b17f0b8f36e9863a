"""What a timeline shows, gathered from the read side: ``emu.timeline()``, the pytest
report's timeline and the dashboard's all draw from here.

Deleted schedules keep their lanes with their last known definition (expression, zone),
and lanes that reach past the clock's instant show the schedule's next occurrences.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from itertools import islice

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.arns import GroupArn, scheduler_arn
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.chances import definition_timeline
from pytest_schedemu.records.filters import RecordFilter
from pytest_schedemu.records.invocations import runs_by_execution
from pytest_schedemu.records.reader import Records
from pytest_schedemu.timeline import TimelineData

# A bad filter is reported at the caller's line (see ``errors.raised_for_the_caller``).
__tracebackhide__ = raised_for_the_caller

#: The filters a timeline takes.
TIMELINE_FILTERS = ("schedule", "group", "rule", "target_arn", "since", "until")
#: The most next occurrences drawn per lane: beyond that they are a comb of pixels anyway.
MAX_UPCOMING = 2000


def timeline_data(
    records: Records,
    now: datetime,
    which: RecordFilter,
    schedule_arns: Sequence[str] | None = None,
) -> TimelineData:
    """Everything a timeline of what ``which`` names shows, up to ``now``, from
    ``which.since`` to ``which.until``.

    Its names are checked as every query's are (``Records.check``). ``schedule_arns``, when
    given, keeps only those schedules (a rule target's lane is drawn beside them).
    """
    records.check(which)
    current = {s.arn: s for s in records.schedules()}
    known = records.known_schedule_arns()
    # A rule target's lane draws its last definition; one whose plan is gone has no next
    # occurrence, so it draws none ahead either.
    rule_targets = records.last_definitions(records.known_rule_targets())
    candidates = dict.fromkeys([*current, *known, *rule_targets])
    current.update(rule_targets)
    if schedule_arns is not None:
        wanted = set(schedule_arns)
        candidates = {arn: None for arn in candidates if arn in wanted or arn in rule_targets}
    # Lanes are chosen by where they come from; ``filtered`` narrows them by target after.
    lanes = RecordFilter(schedule=which.schedule, group=which.group, rule=which.rule)
    arns = [
        arn
        for arn in candidates
        if (
            lanes.keeps_definition(rule_targets[arn])
            if arn in rule_targets
            else lanes.keeps_schedule_arn(arn)
        )
    ]
    kept = set(arns)
    gone = [arn for arn in arns if arn not in current]
    schedules: list[Schedule] = [current[arn] for arn in arns if arn in current]
    schedules += records.last_definitions(gone).values()
    data = TimelineData(
        schedules=schedules,
        executions=records.executions_of(arns),
        # A group's removal names the group: it is drawn on the lanes of its schedules.
        activity=[
            a
            for a in records.activity()
            if a.producer_key in kept
            or (a.rule_arn is None and isinstance(scheduler_arn(a.schedule_arn), GroupArn))
        ],
        dead_letters=[d for d in records.dead_letters() if d.producer_key in kept],
        now=now,
        upcoming=_Upcoming(records, current, now, which.until),
        origins=records.origins_of(arns),
        runs=runs_by_execution(records.invocations()),
    )
    if which.target_arn is None and which.since is None and which.until is None:
        # The lanes are already those asked for; narrowing again would only cost time.
        return data
    return data.filtered(
        schedule=which.schedule,
        group=which.group,
        target_arn=which.target_arn,
        since=which.since,
        until=which.until,
    )


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a picture is gathered and drawn.

    A picture of 100,000 attempts allocates some hundred thousand short-lived objects
    beside the millions the emulator keeps; every collection they trigger walks all of
    them, which costs more than the drawing itself. Nothing here makes cycles, so nothing
    is left for the collector once it runs again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Upcoming(Mapping[str, Sequence[datetime]]):
    """The next nominal times of each stored, enabled schedule, from its next occurrence
    up to ``until`` (none without one), worked out only for the lanes that are drawn."""

    def __init__(
        self,
        records: Records,
        schedules: dict[str, Schedule],
        now: datetime,
        until: datetime | None,
    ) -> None:
        self._records = records
        self._schedules = schedules
        self._now = now
        self._until = until

    def __getitem__(self, arn: str) -> Sequence[datetime]:
        schedule = self._schedules.get(arn)
        until = self._until
        if schedule is None or until is None or until <= self._now or not schedule.enabled:
            return []
        first = self._records.next_occurrence_of(arn)
        if first is None or first > until:
            return []
        later = islice(definition_timeline(schedule).between(first, until), MAX_UPCOMING)
        return [first, *(moment for moment in later if moment > first)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._schedules)

    def __len__(self) -> int:
        return len(self._schedules)
