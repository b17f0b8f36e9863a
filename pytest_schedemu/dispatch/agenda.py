"""The work ahead of the clock: what a clock that moves by events asks of the dispatcher,
and what ``Emulator.pending`` lists.

The queue already holds everything that will happen, in order: each recurring schedule's
next occurrence, an at() schedule's one, first attempts waiting out a flexible window,
retries, deletions after completion, group removals. So stepping "to the next event" is
moving to the queue's earliest live item, and "idle" is a queue whose live items are all
next occurrences of recurring schedules that will not delete themselves (the others lead
up to a deletion after completion, which is one-time work). A dead letter is sent by the
attempt that exhausts its occurrence, so it is pending as that attempt (a retry, or the
occurrence itself).
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterator
from datetime import datetime

from pytest_schedemu.dispatch.kept import JoinedMoves
from pytest_schedemu.dispatch.occurrences import Occurrence, Plan
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.dispatch.producers import Producer
from pytest_schedemu.dispatch.queue import (
    COMPLETION_CHECK,
    FIRST_ATTEMPT,
    GENERATE,
    GROUP_REMOVAL,
    RETRY,
    TIMED,
    WorkItem,
)
from pytest_schedemu.formats.times import LAST_EPOCH_SECOND, from_epoch
from pytest_schedemu.model.resources import ScheduleGroup
from pytest_schedemu.records import PendingWork
from pytest_schedemu.records.types import FUNCTION
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store

_ATTEMPT_KINDS = {FIRST_ATTEMPT: "first_attempt", RETRY: "retry"}


def describe(work: PendingWork) -> str:
    """One line naming a piece of pending work, for error messages."""
    due = work.due.isoformat()
    if work.kind == "group_removal":
        return f"the removal of group {work.group_name!r} at {due}"
    if work.source == FUNCTION:
        whose = work.target_arn
    elif work.rule_name is None:
        whose = f"{work.group_name}/{work.schedule_name}"
    else:
        whose = f"rule {work.rule_name} → {work.target_id}"
    what = f"{work.kind.replace('_', ' ')} of {whose}"
    if work.attempt_number is not None and work.kind in ("retry", "function_retry"):
        what += f" (attempt {work.attempt_number})"
    return f"{what} at {due}"


class Agenda:
    """Reads the dispatcher's queue ahead of the clock; changes nothing but dropping the
    stale items it meets at the head, as the run loop would."""

    def __init__(self, *, planner: Planner, store: Store, settings: LiveSettings) -> None:
        self._planner = planner
        self._store = store
        self._settings = settings

    def next_due(self) -> datetime | None:
        """When the earliest live work is due; None when nothing is queued that the clock
        can reach."""
        with self._store.lock:
            due = self._planner.next_due()
        return None if due is None or due > LAST_EPOCH_SECOND else from_epoch(due)

    def next_one_time_due(self) -> datetime | None:
        """When the earliest live work other than a recurring schedule's next occurrence is
        due; None when only those remain (idle)."""
        with self._store.lock:
            dues = [due for due, _ in self._one_time()]
        return from_epoch(min(dues)) if dues else None

    def one_time(self, limit: int) -> list[PendingWork]:
        """The first ``limit`` pieces of one-time work, in due order."""
        with self._store.lock:
            return self._listed(self._one_time(), limit)

    def pending(self, limit: int, rules: Collection[str] | None = None) -> list[PendingWork]:
        """The first ``limit`` pieces of live work, in the order they will be done; with
        ``rules``, only the work of those rules' targets."""
        if limit < 0:
            raise ValueError(f"Unsupported limit {limit!r}: expected 0 or more")
        with self._store.lock:
            live = self._live()
            if rules is not None:
                live = (entry for entry in live if _rule_of(entry[1]) in rules)
            return self._listed(live, limit)

    def describe_one_time(self, limit: int) -> list[str]:
        """The first ``limit`` pieces of one-time work, each told in a line."""
        return [describe(work) for work in self.one_time(limit)]

    def gathering(self) -> JoinedMoves:
        """What gathers a series of moves as one move's answer: the newest ``max_records``
        attempts, and how many were made in all."""
        return JoinedMoves(self._settings.current.max_records)

    # -- reading the queue -----------------------------------------------------------------

    def _live(self) -> Iterator[tuple[int, WorkItem]]:
        is_live = self._planner.is_live
        return (
            (due, item)
            for due, item in self._planner.queue.items()
            if due <= LAST_EPOCH_SECOND and is_live(item)
        )

    def _one_time(self) -> Iterator[tuple[int, WorkItem]]:
        # A recurring schedule that deletes itself after its EndDate has a deletion pending,
        # which its occurrences lead up to: they count; other recurring ones never end.
        deletes = self._planner.deletes_when_done
        return (
            (due, item)
            for due, item in self._live()
            if item.kind != GENERATE or not item.subject.timeline.recurring or deletes(item.subject)
        )

    def _listed(self, items: Iterator[tuple[int, WorkItem]], limit: int) -> list[PendingWork]:
        # The queue's own order: due second, then the items' tie-break fields.
        first = heapq.nsmallest(limit, items, key=lambda entry: (entry[0], entry[1][:5]))
        return [self._pending_work(due, item) for due, item in first]

    def _pending_work(self, due: int, item: WorkItem) -> PendingWork:
        kind = item.kind
        if kind == GROUP_REMOVAL:
            group: ScheduleGroup = item.subject
            return PendingWork(from_epoch(due), "group_removal", None, group.name, None, None, None)
        if kind in _ATTEMPT_KINDS:
            return _attempt_work(due, kind, item.subject, item.number)
        if kind == TIMED:
            work: PendingWork = item.subject.pending_work(due)
            return work
        plan: Plan = item.subject
        schedule = plan.schedule
        if kind == COMPLETION_CHECK:
            return _work(due, "deletion", plan.producer, None, None)
        # An occurrence makes its first attempt as it falls due, unless a flexible window
        # puts it off (then it is pending as a first attempt once generated).
        at_once = self._planner.first_attempt_due(plan, item.nominal, due) == due
        return _work(
            due,
            "occurrence",
            plan.producer,
            schedule.target.arn,
            1 if at_once else None,
            from_epoch(item.nominal),
        )


def _attempt_work(due: int, kind: int, occurrence: Occurrence, number: int) -> PendingWork:
    return _work(
        due,
        _ATTEMPT_KINDS[kind],
        occurrence.producer,
        occurrence.schedule.target.arn,
        number,
        from_epoch(occurrence.nominal),
        occurrence.fired > 0,
    )


def _work(
    due: int,
    kind: str,
    producer: Producer,
    target_arn: str | None,
    attempt_number: int | None,
    scheduled_time: datetime | None = None,
    fired: bool = False,
) -> PendingWork:
    schedule = producer.schedule
    return PendingWork(
        from_epoch(due),
        kind,
        # A rule target's work names no schedule: its rule fields say whose it is.
        schedule.name or None,
        schedule.group_name,
        target_arn=target_arn,
        attempt_number=attempt_number,
        scheduled_time=scheduled_time,
        fired=fired,
        **producer.identity,
    )


def _rule_of(item: WorkItem) -> str | None:
    """The ARN of the rule whose target a queued item works for; None for a schedule's."""
    subject = item.subject
    plan = subject.plan if isinstance(subject, Occurrence) else subject
    if not isinstance(plan, Plan):
        return None  # a group removal, or work another wing timed
    rule_arn: str | None = plan.producer.identity.get("rule_arn")
    return rule_arn
