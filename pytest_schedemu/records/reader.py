"""The read side: queries over what happened, with the one matcher of schedule filters.

``Records`` answers every question a test, the control API or the timeline asks: which
attempts were made, which were deliveries, which dead letters were sent, what happened to
each occurrence, what comes next. It reads the history, the store's schedules and the
dispatcher's plans through the narrow protocols below, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from pytest_schedemu.model import DEFAULT_GROUP, Schedule, schedule_arn
from pytest_schedemu.records.history import DroppedRecords, History
from pytest_schedemu.records.types import PENDING, Activity, Attempt, DeadLetter, Execution
from pytest_schedemu.targets import target_kind


class ScheduleSource(Protocol):
    """What the read side needs of the store."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def all_schedules(self) -> list[Schedule]: ...


class PlanSource(Protocol):
    """What the read side needs of the dispatcher."""

    def next_occurrence(self, schedule_arn: str) -> datetime | None: ...


class Identity(Protocol):
    """The emulator's default account and region, which a bare schedule name lives in."""

    region: str
    account_id: str


def _split_schedule_arn(arn: str) -> tuple[str, str]:
    _, _, path = arn.partition(":schedule/")
    group, _, name = path.partition("/")
    return group, name


def schedule_matches(arn: str, schedule: str | None, group: str | None) -> bool:
    """Whether the schedule ``arn`` is the one a filter names.

    ``schedule`` is a schedule name or a whole schedule ARN; ``group`` a group name. None
    matches anything.
    """
    if schedule is not None and schedule.startswith("arn:"):
        return arn == schedule
    arn_group, arn_name = _split_schedule_arn(arn)
    return (schedule is None or arn_name == schedule) and (group is None or arn_group == group)


def target_matches(target_arn: str, key: str) -> bool:
    """Whether an attempt at ``target_arn`` is one at ``key``: a target ARN, or the
    ``service:action`` of a universal target (in any partition)."""
    if key.startswith("arn:"):
        return target_arn == key
    return target_kind(target_arn).universal_key == key


class Records:
    """Every query over the emulator's records."""

    def __init__(
        self,
        *,
        history: History,
        schedules: ScheduleSource,
        plans: PlanSource,
        identity: Identity,
    ) -> None:
        self._history = history
        self._schedules = schedules
        self._plans = plans
        self._identity = identity

    def attempts(
        self,
        schedule: str | None = None,
        group: str | None = None,
        target_arn: str | None = None,
    ) -> list[Attempt]:
        """Every attempt made, failed ones too, in delivery order."""
        found = self._history.attempts()
        if target_arn is not None:
            found = [a for a in found if target_matches(a.target_arn, target_arn)]
        if schedule is not None and schedule.startswith("arn:"):
            return [a for a in found if a.schedule_arn == schedule]
        if schedule is not None:
            found = [a for a in found if a.schedule_name == schedule]
        if group is not None:
            found = [a for a in found if a.group_name == group]
        return found

    def attempts_at(self, key: str) -> list[Attempt]:
        """Every attempt at a target ARN, or at a universal target's ``service:action``."""
        return self.attempts(target_arn=key)

    def deliveries(
        self,
        target_arn: str | None = None,
        schedule: str | None = None,
        group: str | None = None,
    ) -> list[Attempt]:
        """The successful attempts, in delivery order."""
        return [a for a in self.attempts(schedule, group, target_arn) if a.succeeded]

    def dead_letters(self, queue_arn: str | None = None) -> list[DeadLetter]:
        """Messages sent to dead-letter queues, in the order they were sent."""
        letters = self._history.dead_letters()
        if queue_arn is None:
            return letters
        return [d for d in letters if d.queue_arn == queue_arn]

    def activity(self, kind: str | None = None) -> list[Activity]:
        """Drops, cancellations, dead-letter sends, automatic deletes, group removals."""
        found = self._history.activity()
        return found if kind is None else [a for a in found if a.kind == kind]

    def executions(self, schedule: str, group: str = DEFAULT_GROUP) -> list[Execution]:
        """One record per occurrence of the schedule, in the order they were generated."""
        arns = [
            arn for arn in self._history.schedule_arns() if schedule_matches(arn, schedule, group)
        ]
        return self._snapshots(sorted(arns))

    def _snapshots(self, arns: Iterable[str]) -> list[Execution]:
        # Occurrences change under the store's lock as attempts settle; holding it makes
        # every snapshot whole.
        with self._schedules.lock:
            return [
                source.snapshot()
                for source in self._history.execution_sources(arns)
                # One still waiting out its flexible window has no history yet.
                if source.status != PENDING
            ]

    def next_occurrence(self, schedule: str, group: str = DEFAULT_GROUP) -> datetime | None:
        """The next nominal time of a schedule (by name, or ARN), or None if none remains."""
        if schedule.startswith("arn:"):
            arn = schedule
        else:
            identity = self._identity
            arn = schedule_arn(identity.region, identity.account_id, group, schedule)
        return self._plans.next_occurrence(arn)

    def schedules(self) -> list[Schedule]:
        """Every stored schedule, in every account and region."""
        return self._schedules.all_schedules()

    @property
    def dropped_records(self) -> DroppedRecords:
        return self._history.dropped_records
