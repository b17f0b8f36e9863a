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

from collections.abc import Iterable
from itertools import islice
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


class TooMany(Exception):
    """The stretch makes more attempts than a slice may hold; nothing was changed."""


def aim(queued: int) -> int:
    """How many attempts a slice aims at with ``queued`` items in the queue:
    ``SLICE_ATTEMPTS``, or ``QUEUE_SHARE`` per queued item (a slice reads the whole queue
    and plans each plan's next work anew, so it must play several attempts of each to be
    worth it)."""
    return max(SLICE_ATTEMPTS, QUEUE_SHARE * queued)


def most_attempts(queued: int) -> int:
    """The most attempts one slice may make, with ``queued`` items in the queue: twice what
    a slice aims at, as a last slice may take in the rest of its stretch."""
    return 2 * aim(queued)


def next_span(span: int, attempts: int, queued: int) -> int:
    """The length of the next slice, after one of ``span`` seconds made ``attempts``, with
    ``queued`` items in the queue: aimed at ``aim(queued)`` attempts, growing at most
    ``MOST_GROWTH``-fold (a quiet slice says little about the next)."""
    return max(1, min(MOST_GROWTH * span, span * aim(queued) // max(attempts, 1)))


def play_in_bulk(
    planner: Planner,
    *,
    limit: int,
    start: int,
    cap: int | None,
    seed: int,
    succeed: Callable[[Job], Attempt],
    most: int | None = None,
) -> list[Attempt] | None:
    """Every attempt due up to ``limit``, in order, or None (and nothing changed) when the
    stretch holds something other than plain occurrences.

    ``succeed`` makes the record of a successful attempt. With ``most``, a stretch that
    makes more attempts than that raises ``TooMany``, having changed nothing.
    """
    queue = planner.queue
    plans = planner.plans
    starting: list[tuple[int, int, Plan]] = []  # (due, nominal, plan) of the first occurrence
    later: list[tuple[int, WorkItem]] = []
    # The first attempts of the stretch by due second; in the queue's order within one,
    # by (incarnation, nominal), but in the seconds of ``disordered``.
    due_at: dict[int, list[Occurrence]] = {}
    disordered: set[int] = set()
    # Occurrences an earlier stretch left waiting on their first attempt, played in this one.
    waiting: list[Occurrence] = []
    for due, item in queue.items():
        kind = item.kind
        if due > limit:
            if kind != GENERATE or planner.is_current(item.subject, item.version):
                later.append((due, item))
        elif kind == GENERATE:
            plan: Plan = item.subject
            # ``planner.is_current``, inline: this runs for every plan of every slice.
            if plans.get(plan.seq) is not plan or plan.version != item.version:
                continue
            if plan.schedule.action_after_completion != "NONE":
                return None
            starting.append((due, item.nominal, plan))
        elif kind == FIRST_ATTEMPT:
            occurrence = item.subject
            if occurrence.status not in (PENDING, RETRYING):
                continue  # settled already: item by item, it would do nothing
            if occurrence.status == RETRYING:
                return None
            if occurrence.plan.schedule.action_after_completion != "NONE":
                return None
            due_at.setdefault(due, []).append(occurrence)
            disordered.add(due)
            waiting.append(occurrence)
        else:
            return None

    # Each plan's nominal times after its first in the stretch; with ``most``, counted out
    # first (only as many as can tell it is too many, not a year of a per-minute schedule),
    # so that a stretch that makes too many is refused before anything is made.
    following: list[Iterable[int]] = [
        plan.timeline.between_epochs(first + 1, limit + 1) if plan.timeline.recurring else ()
        for _, first, plan in starting
    ]
    if most is not None:
        budget = most - len(waiting)
        for index, nominals in enumerate(following):
            counted = following[index] = list(islice(nominals, max(budget, 0)))
            budget -= 1 + len(counted)
            if budget < 0:
                raise TooMany()
    # Occurrences are made per plan in nominal order, as the queue would make them; the
    # plans taken by incarnation, each second's first attempts come in the queue's order
    # (due, incarnation, nominal) as they are made, with no sort of them all.
    generated: list[list[Occurrence]] = [[] for _ in starting]
    for index in sorted(range(len(starting)), key=lambda index: starting[index][2].seq):
        due, first, plan = starting[index]
        occurrences = generated[index]
        nominals = following[index]
        if plan.schedule.flexible_time_window.maximum_window_in_minutes:
            attempt_due = planner.first_attempt_due(plan, first, due)
            occurrences.append(Occurrence(plan, first, attempt_due))
            for nominal in nominals:
                attempt_due = planner.first_attempt_due(
                    plan, nominal, planner.generation_due(plan, nominal)
                )
                occurrences.append(Occurrence(plan, nominal, attempt_due))
        else:
            # Without a flexible window an attempt is due when its occurrence is generated
            # (``Planner.generation_due``, inline: this runs for every occurrence): at its
            # nominal time, or at the plan's activation for one before it.
            occurrences.append(Occurrence(plan, first, due))
            activation = plan.activation
            for nominal in nominals:
                occurrences.append(
                    Occurrence(plan, nominal, nominal if nominal >= activation else activation)
                )
        for occurrence in occurrences:
            attempt_due = occurrence.first_due
            bucket = due_at.get(attempt_due)
            if bucket is None:
                due_at[attempt_due] = [occurrence]
            else:
                bucket.append(occurrence)
    if cap is not None and sum(len(b) for due, b in due_at.items() if due <= limit) > cap:
        return None

    for occurrence in waiting:
        occurrence.plan.pending.discard(occurrence)
    queue.clear()
    for due, item in later:
        queue.push(due, item)
    planner.history.add_execution_runs(
        [(plan.arn, occurrences) for (_, _, plan), occurrences in zip(starting, generated)]
    )
    for (_, _, plan), occurrences in zip(starting, generated):
        # What follows a plan's last nominal time in the stretch, as generating them one by
        # one would queue it (``Planner.plan_first`` comes to the same: every nominal time
        # up to the stretch's end, itself past the plan's activation, was generated).
        last = plan.last_dispatched = occurrences[-1].nominal
        plan.next_nominal = None
        if plan.timeline.recurring and plan.schedule.enabled:
            planner.plan_next(plan, last)
    made: list[Attempt] = []
    keep = made.append
    for due in sorted(due_at):
        bucket = due_at[due]
        if due in disordered:
            bucket.sort(key=_queue_order)
        if due > limit:
            # Their flexible windows reach past the stretch: the first attempts stay queued.
            for occurrence in bucket:
                occurrence.plan.pending.add(occurrence)
                planner.push_attempt(due, occurrence, 1)
            continue
        attempted = due if due > start else start
        for occurrence in bucket:
            occurrence.first_attempt_at = attempted
            occurrence.status = SUCCESS
            attempt = succeed(Job(occurrence, 1, attempted, seed))
            occurrence.attempts.append(attempt)
            keep(attempt)
    return made


def _queue_order(occurrence: Occurrence) -> tuple[int, int]:
    """Where a first attempt sorts among those of its second: (incarnation, nominal)."""
    return occurrence.plan.seq, occurrence.nominal
