"""Reading a state file back: the store, the plans, the unsettled occurrences, the history.

Everything goes back through public doors: the store's ``load`` (and its rules'), the
history's ``restore``, and the dispatcher's state interface (``DispatchState``), which plans
the stored schedules and scheduled rules' targets again, each knowing the last nominal time
it generated (so nothing generated is generated again), and takes back the occurrences
still to be settled with their attempts so far and the attempt they need next. That work
is queued once the caller has decided what an outage means for it
(``DispatchState.catch_up``).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_schedemu.dispatch.state import DispatchState
from pytest_schedemu.errors import StateError
from pytest_schedemu.persistence import codec, rule_rows
from pytest_schedemu.persistence.schema import Database
from pytest_schedemu.records import CANCELLED, Attempt, ExecutionSource, History
from pytest_schedemu.records.history import SavedHistory
from pytest_schedemu.state.idempotency import StoredResponse
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import ClockWiring, VirtualClock


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
    #: Occurrences still to be settled, as restored: (incarnation, event id, source).
    live: list[tuple[int, str, ExecutionSource]] = field(default_factory=list)


def restore(
    database: Database, *, store: Store, state: DispatchState, history: History, wiring: ClockWiring
) -> Position:
    """Put the state the file holds into the (empty) store, dispatcher and history, and
    say where the file's logs stand. Call it under the store lock; a new file restores
    nothing."""
    connection = database.connection
    try:
        meta = {key: json.loads(value) for key, value in connection.execute("SELECT * FROM meta")}
        if not meta:
            return Position()
        return _restore(connection, meta, store=store, state=state, history=history, wiring=wiring)
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
    state: DispatchState,
    history: History,
    wiring: ClockWiring,
) -> Position:
    position = Position()
    position.clock = codec.instant(meta["clock"])
    if isinstance(wiring.clock, VirtualClock):
        # A virtual clock resumes where it stood; a real one is where the wall clock is.
        wiring.place(position.clock)
    groups = []
    for row in connection.execute("SELECT * FROM groups ORDER BY account, region, name"):
        group, due = codec.group_from(row)
        groups.append(group)
        if due is not None:
            state.restore_group_removal(group, due)
    schedules = [
        (codec.schedule_from(definition, incarnation), last_dispatched, fires)
        for incarnation, definition, last_dispatched, fires in connection.execute(
            "SELECT incarnation, definition, last_dispatched, fires FROM schedules "
            "ORDER BY account, region, grp, name"
        )
    ]
    rules = [
        rule_rows.rule_from(definition, incarnation)
        for incarnation, definition in connection.execute(
            "SELECT incarnation, definition FROM rules ORDER BY account, region, bus, name"
        )
    ]
    plans = dict(rule_rows.plan_from(row) for row in connection.execute("SELECT * FROM rule_plans"))
    tokens = [
        ((row[0], row[1], row[2], row[3]), StoredResponse(row[4], row[5], bytes(row[6])))
        for row in connection.execute("SELECT * FROM tokens")
    ]
    store.load(
        codec.instant(meta["created_at"]),
        int(meta["incarnations"]),
        groups,
        (schedule for schedule, _, _ in schedules),
        tokens,
    )
    store.rules.load(rules)
    for schedule, last_dispatched, fires in schedules:
        state.restore_plan(schedule, last_dispatched, fires)
    dropped = {kind: int(count) for kind, count in meta.get("dropped", {}).items()}
    position.dropped = dropped
    saved = SavedHistory(dropped=dropped, complete=bool(meta.get("known_complete", True)))
    # The live rule targets' definitions, as planned again: their lanes draw them even when
    # the registry forgot them.
    planned = [definition for rule in rules for definition in state.restore_rule(rule, plans)]
    by_occurrence = _attempts(connection, saved, dropped.get("attempts", 0))
    _occurrences(connection, state, position, by_occurrence, saved, dropped.get("executions", 0))
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
    saved.definitions += planned
    history.restore(saved)
    for kind in ("attempts", "dead_letters", "activity"):
        last = connection.execute(f"SELECT MAX(id) FROM {kind}").fetchone()[0]
        position.ids[kind] = max(last or 0, dropped.get(kind, 0))
    last = connection.execute("SELECT MAX(seq) FROM occurrences").fetchone()[0]
    position.ids["executions"] = max(last or 0, dropped.get("executions", 0))
    position.ids["known"] = connection.execute("SELECT MAX(seq) FROM known").fetchone()[0] or 0
    return position


def _attempts(
    connection: sqlite3.Connection, saved: SavedHistory, dropped: int
) -> dict[tuple[int, int, str], list[Attempt]]:
    """Every stored attempt by occurrence (incarnation, nominal time, event id); those not
    dropped also go to the log."""
    by_occurrence: dict[tuple[int, int, str], list[Attempt]] = {}
    for row in connection.execute("SELECT * FROM attempts ORDER BY id"):
        attempt = codec.attempt_from(row)
        by_occurrence.setdefault((row[1], row[2], row[7]), []).append(attempt)
        if row[0] > dropped:
            saved.attempts.append(attempt)
    return by_occurrence


def _occurrences(
    connection: sqlite3.Connection,
    state: DispatchState,
    position: Position,
    attempts: dict[tuple[int, int, str], list[Attempt]],
    saved: SavedHistory,
    dropped: int,
) -> None:
    for row in connection.execute("SELECT * FROM occurrences ORDER BY seq"):
        progress = codec.progress_from(row)
        kept = attempts.get((progress.incarnation, progress.nominal, progress.event_id), [])
        source = None
        if progress.status in codec.UNSETTLED:
            source = state.restore_occurrence(progress, kept)
            if source is None:
                # Its schedule is gone, so its work was cancelled (nothing else removes a
                # plan); only the write of the cancellation was missing.
                progress = progress._replace(status=CANCELLED)
            else:
                position.live.append((progress.incarnation, progress.event_id, source))
        if row[0] > dropped:
            kept_source = source if source is not None else codec.execution_from(progress, kept)
            saved.executions.append((progress.producer, kept_source))


def _known(connection: sqlite3.Connection, saved: SavedHistory, position: Position) -> None:
    for kind, arn, group, name, definition in connection.execute(
        "SELECT kind, arn, grp, name, definition FROM known ORDER BY seq"
    ):
        position.known[kind] = position.known.get(kind, 0) + 1
        if kind == "schedule":
            saved.schedules.append((arn, group, name))
        elif kind == "rule_target":
            saved.rule_targets.append((arn, group, name))
            saved.definitions.append(rule_rows.rule_target_from(definition))
        elif kind == "target":
            saved.targets.append(arn)
        else:
            saved.dead_letter_queues.append(arn)
    position.known_complete = saved.complete
