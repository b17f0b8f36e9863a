"""The dispatcher's state as a state file sees it: plain values out, plain values back in.

A state file keeps schedules, not plans, and each occurrence as the work it still needs.
Every rule that turns the one into the other (where a plan's work resumes, when an
occurrence's next attempt is due, what an outage missed) is the dispatcher's, and is asked
here, so that each exists once and a restart follows the very rules of a run. Persistence
imports nothing else of the dispatcher: it never builds an occurrence or a plan, nor reads
one. An occurrence reaches it as an ``ExecutionSource`` (from the history, or from
``restore_occurrence``) that it only hands back, and is described by ``Progress``.

An attempt being delivered is described as still to be made, so a crash repeats it rather
than losing it: at-least-once, as AWS promises.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from pytest_schedemu.delivery.steering import TargetControls
from pytest_schedemu.dispatch import outage
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Occurrence
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.records import (
    INVOCATION_ERROR,
    PENDING,
    RETRYING,
    Attempt,
    ExecutionSource,
    History,
)
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import Clock

#: The status of an occurrence that failed for good and is still giving up (its dead letter
#: or drop not recorded yet); in memory it is ``invocation_error``, still pending.
SETTLING = "settling"


class Progress(NamedTuple):
    """Where one occurrence stands: what it is, and the work it still needs."""

    incarnation: int
    nominal: int
    schedule_arn: str
    group_name: str
    schedule_name: str
    #: When its first attempt is or was due (its nominal time plus any flexible offset).
    first_due: int
    #: ``pending``, ``retrying``, ``settling``, or how it settled.
    status: str
    first_attempt_at: int | None
    exhausted: str | None
    #: The attempt it needs next and when that is due; None when it needs none.
    next_number: int | None
    next_due: int | None


class DispatchState:
    """What a state file asks of one dispatcher, and what it gives back to it. Use it
    under the store lock."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self._planner = dispatcher.planner
        self._settlement = dispatcher.settlement
        # What a restore put back, queued only once an outage has been caught up with.
        self._waiting: list[tuple[Occurrence, int, int]] = []
        self._giving_up: list[Occurrence] = []
        self._removals: list[tuple[ScheduleGroup, datetime]] = []

    @classmethod
    def detached(
        cls, *, store: Store, settings: LiveSettings, history: History, clock: Clock
    ) -> DispatchState:
        """The state of a dispatcher of its own that nothing drives: what a state is
        restored into to check that it could be served."""
        return cls(
            Dispatcher(
                store=store,
                settings=settings,
                history=history,
                controls=TargetControls(),
                set_clock=clock.set,
                now=clock.now,
                guard=clock.guard,
            )
        )

    def clear(self) -> None:
        """Empty the dispatcher (its plans and queue, as a reset does), to read a state
        file back into it."""
        self._planner.reset()
        self._waiting, self._giving_up, self._removals = [], [], []

    # -- what a state file keeps -------------------------------------------------------------

    def progress(self, source: ExecutionSource) -> Progress:
        """Where an occurrence of this dispatcher stands now."""
        occurrence = _occurrence(source)
        plan, status, attempts = occurrence.plan, occurrence.status, occurrence.attempts
        number = due = None
        unsettled = status in (PENDING, RETRYING)
        if not attempts and (unsettled or occurrence in plan.pending):
            status, number, due = PENDING, 1, occurrence.first_due
        elif unsettled:
            last = attempts[-1]
            status = RETRYING
            number, due = plan.retry(last.attempt_number, floor_epoch(last.attempted_at))
        elif occurrence in plan.pending:
            # Failed for good, but its dead letter is still being sent (or its drop
            # recorded): a state read back finishes that.
            status = SETTLING
        schedule = occurrence.schedule
        return Progress(
            plan.seq,
            occurrence.nominal,
            plan.arn,
            schedule.group_name,
            schedule.name,
            occurrence.first_due,
            status,
            occurrence.first_attempt_at,
            occurrence.exhausted,
            number,
            due,
        )

    def last_dispatched(self, incarnation: int) -> int | None:
        """The last nominal time the live plan of ``incarnation`` generated; None when it
        generated none, or is not live."""
        plan = self._planner.plans.get(incarnation)
        return None if plan is None else plan.last_dispatched

    # -- putting a state back ----------------------------------------------------------------

    def restore_plan(self, schedule: Schedule, last_dispatched: int | None) -> None:
        """Plan a saved schedule again, knowing the last nominal time it generated, so
        that nothing it generated is generated again."""
        self._planner.restore_plan(schedule, last_dispatched)

    def restore_occurrence(
        self, progress: Progress, attempts: Sequence[Attempt]
    ) -> ExecutionSource | None:
        """Put back an occurrence a state file kept unsettled (pending, retrying or
        settling), with its attempts so far; None when its plan is not live. The attempt
        it needs is queued by ``queue_restored``."""
        plan = self._planner.plans.get(progress.incarnation)
        if plan is None:
            return None
        occurrence = Occurrence(plan, progress.nominal, progress.first_due)
        occurrence.first_attempt_at = progress.first_attempt_at
        occurrence.attempts = list(attempts)
        plan.pending.add(occurrence)
        if progress.status == SETTLING:
            occurrence.status = INVOCATION_ERROR
            occurrence.exhausted = progress.exhausted
            self._giving_up.append(occurrence)
            return occurrence
        if progress.next_number is None or progress.next_due is None:
            raise ValueError(
                f"the {progress.status} occurrence {progress.nominal} of incarnation "
                f"{progress.incarnation} has no next attempt"
            )
        occurrence.status = progress.status
        self._waiting.append((occurrence, progress.next_number, progress.next_due))
        return occurrence

    def restore_group_removal(self, group: ScheduleGroup, due: datetime) -> None:
        """A DELETING group finishes deleting at ``due``, once the work is queued."""
        self._removals.append((group, due))

    def catch_up(self, now: int) -> outage.CaughtUp:
        """Drop what an outage made too old by ``now`` (``outage``). Call it before
        ``queue_restored``, with the file listening (the drops are recorded)."""
        return outage.catch_up(self._planner, self._settlement, self._waiting, now)

    def queue_restored(self) -> None:
        """Queue what was put back: each plan's first work, the attempts the occurrences
        need, the group removals."""
        planner = self._planner
        for plan in planner.plans.values():
            planner.plan_first(plan)
        for occurrence, number, due in self._waiting:
            if occurrence.status in (PENDING, RETRYING):  # else an outage outlived it
                planner.push_attempt(due, occurrence, number)
        for group, when in self._removals:
            planner.group_removal_scheduled(group, when)
        self._waiting, self._removals = [], []

    def finish_giving_up(self) -> list[ExecutionSource]:
        """Send the dead letters (or record the drops) that a crash left unrecorded;
        return the occurrences that are now settled."""
        settling, self._giving_up = self._giving_up, []
        for occurrence in settling:
            self._settlement.resume_giving_up(occurrence)
        return list(settling)


def _occurrence(source: ExecutionSource) -> Occurrence:
    if not isinstance(source, Occurrence):
        raise TypeError(f"{source!r} is not an occurrence of a dispatcher")
    return source
