"""Reading a state file back: the store, the plans, the unsettled occurrences, the history.

Plans are rebuilt from the stored schedules, each knowing the last nominal time it
generated, so no occurrence already generated is generated again. Occurrences still to be
settled come back with their attempts so far and the attempt they need next, which is
queued again (``queue_restored``) once the caller has decided what an outage means for
them (``catchup``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_schedemu.dispatch.occurrences import Occurrence, Plan
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.errors import StateError
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.model.resources import ScheduleGroup
from pytest_schedemu.persistence import codec
from pytest_schedemu.persistence.schema import Database
from pytest_schedemu.records import (
    CANCELLED,
    INVOCATION_ERROR,
    PENDING,
    RETRYING,
    Attempt,
    Execution,
    History,
)
from pytest_schedemu.records.history import SavedHistory
from pytest_schedemu.state.idempotency import StoredResponse
from pytest_schedemu.state.store import Store
from pytest_schedemu.targets import events
from pytest_schedemu.timekeeping.clock import Clock, VirtualClock


@dataclass
class Position:
    """Where the file's logs stand: what a journal continues from."""

    #: The last id written, per log (attempts, dead_letters, activity, executions, known).
    ids: dict[str, int] = field(default_factory=dict)
    #: Records of each kind ``max_records`` dropped, as last written.
    dropped: dict[str, int] = field(default_factory=dict)
    #: Entries of the known-names registry, per kind (schedule, target, dlq).
    known: dict[str, int] = field(default_factory=dict)
    known_complete: bool = True
    #: The clock as last written.
    clock: datetime | None = None
    #: Occurrences still to be settled, as restored.
    live: list[Occurrence] = field(default_factory=list)


class SavedExecution:
    """A settled occurrence read back from a state file; its record is made when asked."""

    __slots__ = ("_attempts", "_exhausted", "_row", "status")

    def __init__(self, row: Sequence[Any], attempts: list[Attempt]) -> None:
        self._row = row
        self._attempts = attempts
        self.status: str = row[7]
        self._exhausted: str | None = row[9]

    def snapshot(self) -> Execution:
        _, _, nominal, arn, group, name, first_due = self._row[:7]
        return Execution(
            schedule_arn=arn,
            scheduled_time=from_epoch(nominal),
            event_id=events.event_id(arn, nominal),
            status=self.status,
            attempts=tuple(self._attempts),
            group_name=group,
            schedule_name=name,
            first_attempt_due=from_epoch(first_due),
            exhausted_condition=self._exhausted,
        )


@dataclass
class PendingAttempt:
    """An unsettled occurrence and the attempt it needs next."""

    occurrence: Occurrence
    number: int
    due: int


@dataclass
class Restored:
    """What a state file held, put back into memory but not queued yet."""

    position: Position = field(default_factory=Position)
    plans: list[Plan] = field(default_factory=list)
    pending: list[PendingAttempt] = field(default_factory=list)
    #: Occurrences that failed for good, their dead letter (or drop) not yet recorded.
    settling: list[Occurrence] = field(default_factory=list)
    #: DELETING groups and when they finish deleting.
    removals: list[tuple[ScheduleGroup, datetime]] = field(default_factory=list)


def restore(
    database: Database, *, store: Store, planner: Planner, history: History, clock: Clock
) -> Restored:
    """Put the state the file holds into the (empty) store, planner and history. Call it
    under the store lock; a new file restores nothing."""
    connection = database.connection
    try:
        meta = {key: json.loads(value) for key, value in connection.execute("SELECT * FROM meta")}
        if not meta:
            return Restored()
        return _restore(
            connection, meta, store=store, planner=planner, history=history, clock=clock
        )
    except (sqlite3.Error, ValueError, KeyError, TypeError) as error:
        raise StateError(
            f"The state file {database.path!r} could not be read back ({type(error).__name__}: "
            f"{error}); it was left untouched"
        ) from None


def _restore(
    connection: sqlite3.Connection,
    meta: dict[str, Any],
    *,
    store: Store,
    planner: Planner,
    history: History,
    clock: Clock,
) -> Restored:
    restored = Restored()
    position = restored.position
    position.clock = codec.instant(meta["clock"])
    if isinstance(clock, VirtualClock):
        # A virtual clock resumes where it stood; a real one is where the wall clock is.
        clock.place(position.clock)
    groups = []
    for row in connection.execute("SELECT * FROM groups ORDER BY account, region, name"):
        group, due = codec.group_from(row)
        groups.append(group)
        if due is not None:
            restored.removals.append((group, due))
    schedules = [
        (codec.schedule_from(definition, incarnation), last_dispatched)
        for incarnation, definition, last_dispatched in connection.execute(
            "SELECT incarnation, definition, last_dispatched FROM schedules "
            "ORDER BY account, region, grp, name"
        )
    ]
    tokens = [
        ((row[0], row[1], row[2], row[3]), StoredResponse(row[4], row[5], bytes(row[6])))
        for row in connection.execute("SELECT * FROM tokens")
    ]
    store.load(
        codec.instant(meta["created_at"]),
        int(meta["incarnations"]),
        groups,
        (schedule for schedule, _ in schedules),
        tokens,
    )
    plans = {
        schedule.incarnation: planner.restore_plan(schedule, last_dispatched)
        for schedule, last_dispatched in schedules
    }
    restored.plans = list(plans.values())
    dropped = {kind: int(count) for kind, count in meta.get("dropped", {}).items()}
    position.dropped = dropped
    saved = SavedHistory(dropped=dropped, complete=bool(meta.get("known_complete", True)))
    by_occurrence = _attempts(connection, saved, dropped.get("attempts", 0))
    _occurrences(connection, restored, plans, by_occurrence, saved, dropped.get("executions", 0))
    saved.dead_letters = [
        codec.dead_letter_from(row)
        for row in connection.execute(
            "SELECT * FROM dead_letters WHERE id > ? ORDER BY id", (dropped.get("dead_letters", 0),)
        )
    ]
    saved.activity = [
        codec.activity_from(row)
        for row in connection.execute(
            "SELECT * FROM activity WHERE id > ? ORDER BY id", (dropped.get("activity", 0),)
        )
    ]
    _known(connection, saved, position)
    history.restore(saved)
    for kind in ("attempts", "dead_letters", "activity"):
        last = connection.execute(f"SELECT MAX(id) FROM {kind}").fetchone()[0]
        position.ids[kind] = max(last or 0, dropped.get(kind, 0))
    last = connection.execute("SELECT MAX(seq) FROM occurrences").fetchone()[0]
    position.ids["executions"] = max(last or 0, dropped.get("executions", 0))
    position.ids["known"] = connection.execute("SELECT MAX(seq) FROM known").fetchone()[0] or 0
    return restored


def _attempts(
    connection: sqlite3.Connection, saved: SavedHistory, dropped: int
) -> dict[tuple[int, int], list[Attempt]]:
    """Every stored attempt by occurrence; those not dropped also go to the log."""
    by_occurrence: dict[tuple[int, int], list[Attempt]] = {}
    for row in connection.execute("SELECT * FROM attempts ORDER BY id"):
        attempt = codec.attempt_from(row)
        by_occurrence.setdefault((row[1], row[2]), []).append(attempt)
        if row[0] > dropped:
            saved.attempts.append(attempt)
    return by_occurrence


def _occurrences(
    connection: sqlite3.Connection,
    restored: Restored,
    plans: dict[int, Plan],
    attempts: dict[tuple[int, int], list[Attempt]],
    saved: SavedHistory,
    dropped: int,
) -> None:
    for row in connection.execute("SELECT * FROM occurrences ORDER BY seq"):
        seq, incarnation, nominal, arn, _, _, first_due, status = row[:8]
        first_attempt_at, _, number, due = row[8:]
        kept = attempts.get((incarnation, nominal), [])
        plan = plans.get(incarnation)
        source: Any
        if status in codec.UNSETTLED and plan is not None:
            occurrence = Occurrence(plan, nominal, first_due)
            occurrence.first_attempt_at = first_attempt_at
            occurrence.attempts = list(kept)
            plan.pending.add(occurrence)
            if status == codec.SETTLING:
                occurrence.status = INVOCATION_ERROR
                occurrence.exhausted = row[9]
                restored.settling.append(occurrence)
            else:
                occurrence.status = status
                restored.pending.append(PendingAttempt(occurrence, number, due))
            restored.position.live.append(occurrence)
            source = occurrence
        else:
            if status in codec.UNSETTLED:
                # Its schedule is gone, so its work was cancelled (nothing else removes a
                # plan); only the write of the cancellation was missing.
                row = (*row[:7], CANCELLED, *row[8:])
            source = SavedExecution(row, kept)
        if seq > dropped:
            saved.executions.append((arn, source))


def _known(connection: sqlite3.Connection, saved: SavedHistory, position: Position) -> None:
    for kind, arn, group, name in connection.execute(
        "SELECT kind, arn, grp, name FROM known ORDER BY seq"
    ):
        position.known[kind] = position.known.get(kind, 0) + 1
        if kind == "schedule":
            saved.schedules.append((arn, group, name))
        elif kind == "target":
            saved.targets.append(arn)
        else:
            saved.dead_letter_queues.append(arn)
    position.known_complete = saved.complete


def queue_restored(restored: Restored, planner: Planner) -> None:
    """Queue the restored work: each plan's next generation, the unsettled attempts, the
    group removals. Call it under the store lock."""
    for plan in restored.plans:
        if planner.is_current(plan, plan.version):  # not deleted on the way back
            planner.plan_first(plan)
    for pending in restored.pending:
        occurrence = pending.occurrence
        if occurrence.status not in (PENDING, RETRYING):
            continue  # settled on the way back (an outage outlived it)
        planner.push_attempt(pending.due, occurrence, pending.number)
    for group, due in restored.removals:
        planner.group_removal_scheduled(group, due)
