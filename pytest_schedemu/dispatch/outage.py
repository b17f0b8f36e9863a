"""What a real-time emulator does about the time it was down, as AWS does after an outage.

An occurrence whose nominal time passed while the process was down fires once it is back,
if it is still within its retry policy's ``MaximumEventAgeInSeconds`` (counted from when
its first attempt was due); an older one never fires and is recorded as ``dropped``
activity. An unsettled occurrence whose next attempt fell due while the process was down
is judged the same way, its age counted from its first attempt. A virtual clock has no
outage: it resumes where it stood.

What a plan missed is found with the planner's own rules (``first_work``,
``generations``): the nominal times a run would have generated next, in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pytest_schedemu.dispatch.occurrences import NEVER, Occurrence, Plan
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.dispatch.settlement import Settlement, too_old
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.model.resources import RetryPolicy
from pytest_schedemu.records import INVOCATION_ERROR, ExecutionSource

EXHAUSTED = "MaximumEventAgeInSeconds"


class CaughtUp(NamedTuple):
    """What catching up with an outage changed."""

    #: Incarnations whose plan now stands further on (nominal times dropped).
    incarnations: list[int]
    #: Occurrences it settled.
    occurrences: list[ExecutionSource]


def missed(planner: Planner, plan: Plan, now: int) -> list[int]:
    """The nominal times ``plan`` has yet to generate that are too old to fire at ``now``."""
    work = planner.first_work(plan)
    if work is None or work[1] == NEVER:
        return []
    due, first = work
    policy = plan.schedule.target.retry_policy
    upcoming = [(first, planner.first_attempt_due(plan, first, due))]
    if plan.timeline.recurring:
        # Each is due no earlier than its nominal time: none later can be old enough.
        until = now - policy.maximum_event_age_in_seconds
        upcoming += planner.generations(plan, first, until)
    found = []
    for nominal, attempt_due in upcoming:
        # Offsets differ per occurrence: only the run of old ones up to the first that may
        # still fire is dropped, so nothing that may fire is skipped.
        if not too_old(attempt_due, policy, now):
            break
        found.append(nominal)
    return found


def catch_up(
    planner: Planner,
    settlement: Settlement,
    waiting: Sequence[tuple[Occurrence, int, int]],
    now: int,
) -> CaughtUp:
    """Drop what an outage made too old by ``now``: the plans' missed nominal times, and
    the ``waiting`` (occurrence, next attempt, its due second) whose age ran out. Call it
    under the store lock, before the waiting attempts are queued."""
    history = planner.history
    when = from_epoch(now)
    caught = CaughtUp([], [])
    # A drop may complete a schedule that then deletes itself, and leaves the plans.
    for plan in list(planner.plans.values()):
        nominals = missed(planner, plan, now)
        if not nominals:
            continue
        detail = _detail(plan.schedule.target.retry_policy)
        for nominal in nominals:
            history.add_activity(plan.producer.activity("dropped", when, nominal, detail))
        plan.last_dispatched = nominals[-1]
        caught.incarnations.append(plan.seq)
        if not plan.timeline.recurring:
            # A one-time schedule that asked to be deleted goes once its occurrence is
            # resolved, and a drop resolves it.
            settlement.complete_if_done(plan)
    for occurrence, _, due in waiting:
        policy = occurrence.schedule.target.retry_policy
        first = occurrence.first_attempt_at
        if first is None:
            first = occurrence.first_due
        if due > now or not too_old(first, policy, now):
            continue
        occurrence.status = INVOCATION_ERROR
        occurrence.exhausted = EXHAUSTED
        history.add_activity(
            occurrence.producer.activity("dropped", when, occurrence.nominal, _detail(policy))
        )
        caught.occurrences.append(occurrence)
        settlement.resolve(occurrence)
    return caught


def _detail(policy: RetryPolicy) -> str:
    age = policy.maximum_event_age_in_seconds
    return f"missed while the emulator was down: older than {EXHAUSTED} ({age} s)"
