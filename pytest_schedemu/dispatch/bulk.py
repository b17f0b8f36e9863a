"""Playing out a long stretch of virtual time in bulk.

When nothing can observe the order of deliveries while they happen (no target handlers,
no injected failures, a delivery backend that ignores requests, no freezegun lockstep)
and every due item in the stretch is a plain occurrence, or the first attempt of one that
an earlier stretch left queued (no retries, dead letters, group removals or automatic
deletions can intervene), the outcome of an advance is a pure
function of the plans: every nominal time of every plan, each attempted once,
successfully. It is then computed per plan, with the timelines' fast enumeration, and
sorted into the reference's order once, instead of item by item through the queue.

The records, their order, the executions and what stays queued are exactly those the
item-by-item path produces; ``tests/dispatch/test_bulk.py`` checks the two against each
other on generated scenarios.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.dispatch.queue import FIRST_ATTEMPT, GENERATE, WorkItem
from pytest_schedemu.records import PENDING, RETRYING, SUCCESS, Attempt

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.planner import Planner

# Only worth it, and only tried, when the stretch to play out is at least this long; it is
# also the first slice a long stretch is played in.
MIN_SPAN_SECONDS = 3600
#: About how many attempts one slice of a long stretch makes, at least: a slice holds every
#: attempt and occurrence it makes at once, so this bounds a move's memory beyond what it
#: keeps.
SLICE_ATTEMPTS = 50_000
#: Attempts a slice aims at per queued item, when that is more.
QUEUE_SHARE = 8
#: How much longer a slice may be than the one before it.
MOST_GROWTH = 32


def next_span(span: int, attempts: int, queued: int) -> int:
    """The length of the next slice, after one of ``span`` seconds made ``attempts``, with
    ``queued`` items in the queue: aimed at ``SLICE_ATTEMPTS`` attempts, or at
    ``QUEUE_SHARE`` per queued item (a slice reads the whole queue and plans each plan's
    next work anew, so it must play several attempts of each to be worth it), growing at
    most ``MOST_GROWTH``-fold (a quiet slice says little about the next)."""
    aim = max(SLICE_ATTEMPTS, QUEUE_SHARE * queued)
    return max(1, min(MOST_GROWTH * span, span * aim // max(attempts, 1)))


def play_in_bulk(
    planner: Planner,
    *,
    limit: int,
    start: int,
    cap: int | None,
    seed: int,
    succeed: Callable[[Job], Attempt],
) -> list[Attempt] | None:
    """Every attempt due up to ``limit``, in order, or None (and nothing changed) when the
    stretch holds something other than plain occurrences.

    ``succeed`` makes the record of a successful attempt.
    """
    queue = planner.queue
    starting: list[tuple[int, int, Plan]] = []  # (due, nominal, plan) of the first occurrence
    later: list[tuple[int, WorkItem]] = []
    # (due, incarnation, nominal, occurrence) of every attempt in the stretch
    planned: list[tuple[int, int, int, Occurrence]] = []
    for due, item in queue.items():
        if due > limit:
            if item.kind != GENERATE or planner.is_current(item.subject, item.version):
                later.append((due, item))
        elif item.kind == GENERATE:
            plan = item.subject
            if not planner.is_current(plan, item.version):
                continue
            if plan.schedule.action_after_completion != "NONE":
                return None
            starting.append((due, item.nominal, plan))
        elif item.kind == FIRST_ATTEMPT:
            occurrence = item.subject
            if occurrence.status not in (PENDING, RETRYING):
                continue  # settled already: item by item, it would do nothing
            if occurrence.status == RETRYING:
                return None
            if occurrence.plan.schedule.action_after_completion != "NONE":
                return None
            planned.append((due, occurrence.plan.seq, occurrence.nominal, occurrence))
        else:
            return None

    # Occurrences are made per plan in nominal order, as the queue would make them, and
    # their first attempts then sorted by (due, incarnation, nominal), the queue's order.
    generated: list[tuple[Plan, list[Occurrence]]] = []
    for due, first, plan in starting:
        seq = plan.seq
        # A one-time schedule in the past is due at its activation, not its nominal time.
        attempt_due = planner.first_attempt_due(plan, first, due)
        occurrence = Occurrence(plan, first, attempt_due)
        occurrences = [occurrence]
        planned.append((attempt_due, seq, first, occurrence))
        if plan.timeline.recurring:
            for nominal, attempt_due in planner.generations(plan, first, limit):
                occurrence = Occurrence(plan, nominal, attempt_due)
                occurrences.append(occurrence)
                planned.append((attempt_due, seq, nominal, occurrence))
        generated.append((plan, occurrences))
    if cap is not None and sum(1 for p in planned if p[0] <= limit) > cap:
        return None

    queue.clear()
    for due, item in later:
        queue.push(due, item)
    history = planner.history
    for plan, occurrences in generated:
        history.add_executions(plan.arn, occurrences)
        plan.last_dispatched = occurrences[-1].nominal
        plan.next_nominal = None
        planner.plan_first(plan)
    planned.sort()  # (due, incarnation, nominal) is unique, so occurrences never compare
    made: list[Attempt] = []
    for attempt_due, _, _, occurrence in planned:
        if attempt_due > limit:
            # Its flexible window reaches past the stretch: the first attempt stays queued.
            occurrence.plan.pending.add(occurrence)
            planner.push_attempt(attempt_due, occurrence, 1)
            continue
        attempted = max(attempt_due, start)
        occurrence.first_attempt_at = attempted
        occurrence.status = SUCCESS
        occurrence.plan.pending.discard(occurrence)
        attempt = succeed(Job(occurrence, 1, attempted, seed))
        occurrence.attempts.append(attempt)
        made.append(attempt)
    return made
