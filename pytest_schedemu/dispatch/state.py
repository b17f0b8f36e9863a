"""The dispatcher's state as a state file sees it: plain values out, plain values back in.

A state file keeps schedules and rules, not plans (only where each plan stands), and each
occurrence as the work it still needs.
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

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from pytest_schedemu.delivery.steering import TargetControls
from pytest_schedemu.dispatch import outage
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Occurrence
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
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
from pytest_schedemu.timekeeping.clock import ClockWiring

#: The status of an occurrence that failed for good and is still giving up (its dead letter
#: or drop not recorded yet); in memory it is ``invocation_error``, still pending.
SETTLING = "settling"


class Progress(NamedTuple):
    """Where one occurrence stands: what it is, and the work it still needs."""

    incarnation: int
    nominal: int
    #: 0 for an occurrence of its expression; n for the n-th a test fired by hand.
    fired: int
    #: The id every attempt of it carries (a rule target's is made of its rule's).
    event_id: str
    #: What made it: a schedule's ARN, or a rule target's key (``MadeBy.producer_key``).
    producer: str
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


class PlanProgress(NamedTuple):
    """Where one live plan stands: what a restart needs to go on from there."""

    #: When it was last given a definition: a rule target's activation follows from it
    #: (a schedule's definition holds it already).
    defined_at: datetime
    #: The last nominal time it generated; None when it generated none.
    last_dispatched: int | None
    #: How many of its occurrences tests fired by hand.
    fires: int


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
        cls, *, store: Store, settings: LiveSettings, history: History, wiring: ClockWiring
    ) -> DispatchState:
        """The state of a dispatcher of its own that nothing drives: what a state is
        restored into to check that it could be served."""
        return cls(
            Dispatcher(
                store=store,
                settings=settings,
                history=history,
                controls=TargetControls(),
                set_clock=wiring.set,
                now=wiring.clock.now,
                guard=wiring.guard,
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
            occurrence.fired,
            occurrence.event_id,
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

    def plan_progress(self, incarnation: int) -> PlanProgress | None:
        """Where the live plan of ``incarnation`` (a schedule's, or a rule target's) stands;
        None when it is not live."""
        plan = self._planner.plans.get(incarnation)
        if plan is None:
            return None
        return PlanProgress(plan.schedule.last_modification_date, plan.last_dispatched, plan.fires)

    # -- putting a state back ----------------------------------------------------------------

    def restore_plan(self, schedule: Schedule, last_dispatched: int | None, fires: int) -> None:
        """Plan a saved schedule again, knowing the last nominal time it generated, so
        that nothing it generated is generated again, and how many times it was fired."""
        self._planner.restore_plan(schedule, last_dispatched).fires = fires

    def restore_rule(self, rule: Rule, plans: Mapping[int, PlanProgress]) -> list[Schedule]:
        """Plan the targets of a saved rule again (``plans``: where each target's plan
        stood, by the target's incarnation), as the rule was planned when it was saved;
        return the definitions planned, which the history remembers."""
        return [*self._planner.rules.restore(rule, plans)]

    def restore_occurrence(
        self, progress: Progress, attempts: Sequence[Attempt]
    ) -> ExecutionSource | None:
        """Put back an occurrence a state file kept unsettled (pending, retrying or
        settling), with its attempts so far; None when its plan is not live. The attempt
        it needs is queued by ``queue_restored``."""
        plan = self._planner.plans.get(progress.incarnation)
        if plan is None:
            return None
        occurrence = Occurrence(plan, progress.nominal, progress.first_due, progress.fired)
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
