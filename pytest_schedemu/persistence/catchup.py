"""What a real-time emulator does about the time it was down, as AWS does after an outage.

An occurrence whose nominal time passed while the process was down fires once it is back,
if it is still within its retry policy's ``MaximumEventAgeInSeconds`` (counted from when
its first attempt was due); an older one never fires and is recorded as ``dropped``
activity. An unsettled occurrence whose next attempt fell due while the process was down
is judged the same way, its age counted from its first attempt. A virtual clock has no
outage: it resumes where it stood.
"""

from __future__ import annotations

from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import NEVER, Plan
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.persistence.journal import Journal
from pytest_schedemu.persistence.restore import Restored
from pytest_schedemu.records import INVOCATION_ERROR, Activity

EXHAUSTED = "MaximumEventAgeInSeconds"


def _detail(age: int) -> str:
    return f"missed while the emulator was down: older than {EXHAUSTED} ({age} s)"


def catch_up(restored: Restored, *, dispatcher: Dispatcher, journal: Journal, now: int) -> None:
    """Drop what an outage made too old, before the restored work is queued. Call it under
    the store lock, with the journal attached (the drops are written like any change)."""
    planner, history, settlement = dispatcher.planner, dispatcher.history, dispatcher.settlement
    when = from_epoch(now)
    for plan in restored.plans:
        missed = _missed(plan, now, planner)
        if not missed:
            continue
        age = plan.schedule.target.retry_policy.maximum_event_age_in_seconds
        for nominal in missed:
            history.add_activity(
                Activity("dropped", when, plan.arn, from_epoch(nominal), _detail(age))
            )
        plan.last_dispatched = missed[-1]
        journal.plan_changed(plan)
        if not plan.timeline.recurring:
            # A one-time schedule that asked to be deleted goes once its occurrence is
            # resolved, and a drop resolves it.
            settlement.complete_if_done(plan)
    for pending in restored.pending:
        occurrence = pending.occurrence
        age = occurrence.schedule.target.retry_policy.maximum_event_age_in_seconds
        first = occurrence.first_attempt_at
        if first is None:
            first = occurrence.first_due
        if pending.due > now or now <= first + age:
            continue
        occurrence.status = INVOCATION_ERROR
        occurrence.exhausted = EXHAUSTED
        history.add_activity(
            Activity(
                "dropped", when, occurrence.plan.arn, from_epoch(occurrence.nominal), _detail(age)
            )
        )
        journal.occurrence_changed(occurrence)
        settlement.resolve(occurrence)


def _missed(plan: Plan, now: int, planner: Planner) -> list[int]:
    """The nominal times of ``plan`` not generated yet and too old to fire at ``now``."""
    schedule = plan.schedule
    if not schedule.enabled:
        return []
    age = schedule.target.retry_policy.maximum_event_age_in_seconds
    timeline = plan.timeline
    if not timeline.recurring:
        at = timeline.next_after_epoch(-NEVER)
        if at is None or (plan.last_dispatched is not None and at <= plan.last_dispatched):
            return []
        if at >= plan.activation:
            due = at
        elif planner.settings.current.past_at == "fire":
            due = plan.activation
        else:
            return []
        return [at] if due + planner.offset(plan, at) + age < now else []
    lower = plan.activation - 1
    if plan.last_dispatched is not None and plan.last_dispatched > lower:
        lower = plan.last_dispatched
    missed = []
    for nominal in timeline.between_epochs(lower + 1, now - age):
        # Offsets differ per occurrence: only the run of old ones up to the first that may
        # still fire is dropped, so nothing that may fire is skipped.
        if nominal + planner.offset(plan, nominal) + age >= now:
            break
        missed.append(nominal)
    return missed
