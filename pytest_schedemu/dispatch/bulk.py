"""Playing out a long stretch of virtual time in bulk.

When nothing can observe the order of deliveries while they happen (no target handlers,
no injected failures, a delivery backend that ignores requests, no freezegun lockstep)
and every due item in the stretch is a plain occurrence (no retries, dead letters, group
removals or automatic deletions can intervene), the outcome of an advance is a pure
function of the plans: every nominal time of every plan, each attempted once,
successfully. It is then computed per plan, with the timelines' fast enumeration, and
sorted into the reference's order once, instead of item by item through the queue.

The records, their order, the executions and what stays queued are exactly those the
item-by-item path produces; ``tests/dispatch/test_bulk.py`` checks the two against each
other on generated scenarios.
"""

from __future__ import annotations

from typing import Callable

from pytest_schedemu.dispatch.history import SUCCESS, Attempt
from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.dispatch.queue import Entry, WorkQueue

# Only worth it, and only tried, when the stretch to play out is at least this long.
MIN_SPAN_SECONDS = 3600

GENERATE, FIRST_ATTEMPT = 0, 1

IsCurrent = Callable[[Plan, int], bool]
Push = Callable[[int, int, int, int, int, object, int], None]
Offset = Callable[[Plan, int], int]
Record = Callable[[Job], Attempt]


def play_in_bulk(
    queue: WorkQueue,
    *,
    limit: int,
    start: int,
    cap: int | None,
    seed: int,
    is_current: IsCurrent,
    offset: Offset,
    push: Push,
    record: Record,
    retain: Callable[[Occurrence], None],
) -> list[Attempt] | None:
    """Every attempt due up to ``limit``, in order, or None (and nothing changed) when the
    stretch holds something other than plain occurrences."""
    starting: list[tuple[int, int, Plan]] = []  # (due, nominal, plan) of the first occurrence
    later: list[tuple[int, Entry]] = []
    for due, entry in queue.entries():
        kind, subject, version = entry[3], entry[5], entry[6]
        if kind == GENERATE:
            if not is_current(subject, version):
                continue
            if due > limit:
                later.append((due, entry))
            elif subject.schedule.action_after_completion != "NONE":
                return None
            else:
                starting.append((due, entry[1], subject))
        elif due <= limit:
            return None
        else:
            later.append((due, entry))

    # Occurrences are made per plan in nominal order, as the queue would make them, and
    # their first attempts then sorted by (due, incarnation, nominal), the queue's order.
    planned: list[tuple[int, int, int, Occurrence]] = []
    for due, first, plan in starting:
        seq = plan.seq
        # A one-time schedule in the past is due at its activation, not its nominal time.
        attempt_due = due + offset(plan, first)
        planned.append((attempt_due, seq, first, Occurrence(plan, first, attempt_due)))
        if not plan.timeline.recurring:
            continue
        flexible = plan.schedule.flexible_time_window.maximum_window_in_minutes
        for nominal in plan.timeline.between_epochs(first + 1, limit + 1):
            attempt_due = nominal + offset(plan, nominal) if flexible else nominal
            planned.append((attempt_due, seq, nominal, Occurrence(plan, nominal, attempt_due)))
    if cap is not None and sum(1 for p in planned if p[0] <= limit) > cap:
        return None

    queue.clear()
    for due, entry in later:
        queue.push(due, entry)
    for _, _, _, occurrence in planned:
        occurrence.plan.occurrences.append(occurrence)
        retain(occurrence)
    for _, _, plan in starting:
        last = plan.occurrences[-1].nominal
        plan.last_dispatched = last
        if plan.timeline.recurring:
            following = plan.timeline.next_after_epoch(last)
            if following is None:
                plan.done_generating = True
            else:
                push(following, plan.seq, following, 0, GENERATE, plan, plan.version)
    planned.sort()  # (due, incarnation, nominal) is unique, so occurrences never compare
    made: list[Attempt] = []
    for attempt_due, seq, nominal, occurrence in planned:
        if attempt_due > limit:
            # Its flexible window reaches past the stretch: the first attempt stays queued.
            occurrence.plan.pending.add(occurrence)
            push(attempt_due, seq, nominal, 1, FIRST_ATTEMPT, occurrence, 0)
            continue
        attempted = max(attempt_due, start)
        occurrence.first_attempt_at = attempted
        occurrence.status = SUCCESS
        attempt = record(Job(occurrence, 1, attempted, seed))
        occurrence.attempts.append(attempt)
        made.append(attempt)
    return made
