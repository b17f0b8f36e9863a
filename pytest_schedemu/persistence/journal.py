"""The write side of a state file: what changed, written at the end of each unit of work.

Nothing is written while a request or a clock step is under way. The store says which of
its keys it touched, the history hands over each record it keeps, and the occurrences and
plans those records belong to are read as they stand. ``commit``, called at the end of the
unit of work that acknowledges something (an API request, a clock operation or a batch of
its steps, a settlement), writes all of it in one transaction under the store lock. The
file therefore always holds a state the emulator was in between two units of work, and a
client is never told of a change before it is on disk.

An occurrence is written as the work it still needs: the attempt to make next, and when,
as the dispatcher's state interface describes it (``DispatchState.progress``).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Callable, NoReturn

from pytest_schedemu.dispatch.state import SETTLING, DispatchState, Progress
from pytest_schedemu.errors import StateError
from pytest_schedemu.persistence import codec, rule_rows
from pytest_schedemu.persistence.restore import Position
from pytest_schedemu.persistence.schema import Database, open_database, transaction
from pytest_schedemu.persistence.store_rows import StoreChanges, write_plans, write_store
from pytest_schedemu.persistence.tables import (
    INSERT_OCCURRENCE,
    INSERT_RECORD,
    SCHEMA_VERSION,
    TABLES,
    prune,
)
from pytest_schedemu.records import ExecutionSource, History
from pytest_schedemu.records.known import known_cap
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.idempotency import TokenKey
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import Clock

#: A batched commit (recorded deliveries) waits until this many records have gathered.
BATCH_RECORDS = 1000

_LOGS = ("attempts", "dead_letters", "activity", "executions")
_ROW: dict[str, Callable[[int, Any], codec.Row]] = {
    "attempts": codec.attempt_row,
    "dead_letters": codec.dead_letter_row,
    "activity": codec.activity_row,
}


class Journal:
    """Hears every change to the state and writes it at each commit (``StoreJournal``)."""

    schema_version = SCHEMA_VERSION

    def __init__(
        self,
        database: Database,
        *,
        store: Store,
        state: DispatchState,
        history: History,
        clock: Clock,
        settings: LiveSettings,
    ) -> None:
        self.path = database.path
        self._database: Database | None = database
        self._store = store
        self._state = state
        self._history = history
        self._clock = clock
        self._settings = settings
        #: Puts what the file holds back into the emulator (``open_state`` gives it).
        self.reload: Callable[[Database], None] | None = None
        #: Why the last write failed, until one succeeds (the health answer says it).
        self.failure: str | None = None
        self.adopt(Position())

    def adopt(self, position: Position) -> None:
        """Continue from where the file's logs stand, forgetting every change heard."""
        self._ids = {kind: position.ids.get(kind, 0) for kind in (*_LOGS, "known")}
        self._dropped = dict(position.dropped)
        self._known = dict(position.known)
        self._known_complete = position.known_complete
        self._clock_written = position.clock
        # What changed since the last commit. The history's records arrive from threads
        # that may not hold the store lock (a dead letter is sent without it): a deque
        # takes appends from any thread; everything else is touched under the lock.
        self._heard: deque[tuple[str, Sequence[Any]]] = deque()
        self._backlog: list[tuple[str, Sequence[Any]]] = []
        self._gathered = 0
        self._changes = StoreChanges()
        self._occurrences: set[ExecutionSource] = set()
        self._settling: set[ExecutionSource] = set()
        #: Incarnations whose last generated nominal time may have moved.
        self._plans: set[int] = set()
        #: Occurrences written as unsettled, by incarnation and event id.
        self._live: dict[int, dict[str, ExecutionSource]] = {}
        for incarnation, event_id, occurrence in position.live:
            self._live.setdefault(incarnation, {})[event_id] = occurrence

    # -- hearing of changes ------------------------------------------------------------------

    def touched(self, account_id: str, region: str, group: str, name: str | None) -> None:
        if name is None:
            self._changes.groups.add((account_id, region, group))
        else:
            self._changes.schedules.add((account_id, region, group, name))

    def rule_touched(self, account_id: str, region: str, bus: str, name: str) -> None:
        self._changes.rules.add((account_id, region, bus, name))

    def token_stored(self, key: TokenKey) -> None:
        self._changes.tokens.add(key)

    def hear(self, kind: str, records: Sequence[Any]) -> None:
        """The history's sink: called under its lock, so it only takes note."""
        self._heard.append((kind, tuple(records)))
        self._gathered += len(records)

    def occurrence_changed(self, occurrence: ExecutionSource) -> None:
        self._occurrences.add(occurrence)

    def plan_changed(self, incarnation: int) -> None:
        self._plans.add(incarnation)

    # -- writing -----------------------------------------------------------------------------

    @property
    def gathering(self) -> bool:
        """Whether too few records have gathered yet for a batch to be worth a write."""
        return self._gathered < BATCH_RECORDS

    def commit(self) -> None:
        """Write what changed since the last commit, in one transaction. Call it under the
        store lock."""
        now = self._clock.now()
        moved = not self._clock.real_time and now != self._clock_written
        if not (
            moved
            or self._heard
            or self._backlog
            or self._changes
            or self._occurrences
            or self._plans
        ):
            return
        self._gathered = 0
        heard = self._heard
        self._backlog.extend(heard.popleft() for _ in range(len(heard)))
        counters = (dict(self._ids), dict(self._dropped), dict(self._known), self._known_complete)
        connection = self._open().connection
        failure = f"Could not write the state file {self.path!r}"
        try:
            with transaction(connection, failure):
                self._write(connection, now)
        except StateError as error:
            self._undo(error)
        except BaseException:
            # Everything stays to be written by the next commit.
            self._ids, self._dropped, self._known, self._known_complete = counters
            raise
        self.failure = None
        self._backlog = []
        self._changes.clear()
        self._plans.clear()
        # One still giving up is written again once it has: nothing else would say so.
        self._occurrences = self._settling
        self._settling = set()
        self._clock_written = now

    def _undo(self, error: StateError) -> NoReturn:
        """After a failed write, go back to what the file holds: nothing stays live that
        is not on disk, so no client is told of a change the file does not have."""
        self.failure = str(error)
        assert self.reload is not None
        try:
            self.reload(self._open())
        except StateError as reading:
            raise StateError(
                f"{error}; reading the file back failed too ({reading}), so the emulator's "
                "memory is ahead of it until a later write succeeds"
            ) from error
        raise StateError(f"{error}; the change was undone: the emulator holds what the file holds")

    def _write(self, connection: sqlite3.Connection, now: datetime) -> None:
        new: list[tuple[int, ExecutionSource]] = []
        for kind, records in self._backlog:
            if kind == "executions":
                for occurrence in records:
                    self._ids["executions"] += 1
                    new.append((self._ids["executions"], occurrence))
            elif kind in ("schedules", "rule_targets"):
                self._write_known(connection, kind, records)
            else:
                self._write_log(connection, kind, records)
        changed = write_store(
            connection,
            self._changes,
            store=self._store,
            state=self._state,
            settings=self._settings,
        )
        # A change to a schedule or a rule may have cancelled what it had pending.
        for incarnation in changed:
            self._occurrences.update(self._live.get(incarnation, {}).values())
        self._write_occurrences(connection, new)
        write_plans(connection, self._state, self._plans)
        self._write_meta(connection, now)

    def _write_log(self, connection: sqlite3.Connection, kind: str, records: Sequence[Any]) -> None:
        first = self._ids[kind] + 1
        self._ids[kind] += len(records)
        rows = [_ROW[kind](first + index, record) for index, record in enumerate(records)]
        connection.executemany(INSERT_RECORD[kind], rows)
        if kind == "attempts":
            for row in rows:
                incarnation, event_id = row[1], row[7]  # see codec.attempt_row
                occurrence = self._live.get(incarnation, {}).get(event_id)
                if occurrence is not None:
                    self._occurrences.add(occurrence)

    def _write_known(self, connection: sqlite3.Connection, kind: str, notes: Sequence[Any]) -> None:
        # A schedule's note holds its group and name; a rule target's, its rule's ARN and
        # name, and its definition, kept up to date: its timeline lane draws the last one.
        for arn, group, name, target_arn, dead_letter_arn, *definition in notes:
            text = None
            if kind == "rule_targets":
                text = rule_rows.rule_target_definition(definition[0])
                connection.execute(
                    "UPDATE known SET definition = ? WHERE kind = 'rule_target' AND arn = ?",
                    (text, arn),
                )
            entries = [("schedule" if text is None else "rule_target", arn, group, name, text)]
            entries.append(("target", target_arn, None, None, None))
            if dead_letter_arn is not None:
                entries.append(("dlq", dead_letter_arn, None, None, None))
            for entry in entries:
                self._ids["known"] += 1
                cursor = connection.execute(
                    "INSERT OR IGNORE INTO known VALUES (?, ?, ?, ?, ?, ?)",
                    (*entry[:4], self._ids["known"], entry[4]),
                )
                self._known[entry[0]] = self._known.get(entry[0], 0) + cursor.rowcount
        cap = known_cap(self._settings.current.max_records)
        for kind, count in self._known.items():
            if count > cap:
                # The registry in memory forgets its oldest entries the same way.
                connection.execute(
                    "DELETE FROM known WHERE kind = ? AND seq <= (SELECT seq FROM known "
                    "WHERE kind = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)",
                    (kind, kind, cap),
                )
                self._known[kind] = cap
                self._known_complete = False

    def _write_occurrences(
        self, connection: sqlite3.Connection, new: list[tuple[int, ExecutionSource]]
    ) -> None:
        fresh = set()
        for seq, occurrence in new:
            fresh.add(occurrence)
            progress = self._progress(occurrence)
            # Its plan generated it: where the plan stands moved with it.
            self._plans.add(progress.incarnation)
            connection.execute(INSERT_OCCURRENCE, codec.occurrence_row(seq, progress))
        for occurrence in self._occurrences:
            if occurrence not in fresh:
                progress = self._progress(occurrence)
                connection.execute(
                    "UPDATE occurrences SET status = ?, first_attempt_at = ?, exhausted = ?, "
                    "next_number = ?, next_due = ? "
                    "WHERE incarnation = ? AND nominal = ? AND fired = ?",
                    (
                        *codec.occurrence_update(progress),
                        progress.incarnation,
                        progress.nominal,
                        progress.fired,
                    ),
                )

    def _progress(self, occurrence: ExecutionSource) -> Progress:
        """Where an occurrence stands, noting whether it is still to be written again."""
        progress = self._state.progress(occurrence)
        incarnation, event_id, status = progress.incarnation, progress.event_id, progress.status
        if status == SETTLING:
            self._settling.add(occurrence)
        live = self._live.setdefault(incarnation, {})
        if progress.next_number is None and status != SETTLING:
            live.pop(event_id, None)
            if not live:
                del self._live[incarnation]
        else:
            live[event_id] = occurrence
        return progress

    def _write_meta(self, connection: sqlite3.Connection, now: datetime) -> None:
        created_at, incarnations = self._store.counters
        values: dict[str, Any] = {
            "clock": codec.instant_text(now),
            "created_at": codec.instant_text(created_at),
            "incarnations": incarnations,
            "known_complete": self._known_complete,
        }
        dropped = self._history.dropped_records.by_kind
        if dropped != self._dropped:
            values["dropped"] = dropped
            prune(connection, dropped)
            self._dropped = dict(dropped)
        connection.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            ((key, codec.dumps(value)) for key, value in values.items()),
        )

    # -- lifecycle ---------------------------------------------------------------------------

    def reset(self) -> None:
        """Empty the file, as a reset empties the emulator (call it under the store lock,
        after the reset); a file that refuses puts back what it holds, undoing the reset."""
        self.adopt(Position())
        connection = self._open().connection
        try:
            with transaction(connection, f"Could not empty the state file {self.path!r}"):
                for table in TABLES:
                    connection.execute(f"DELETE FROM {table}")
                self._write_meta(connection, self._clock.now())
        except StateError as error:
            self._undo(error)
        self._clock_written = self._clock.now()
        self.failure = None

    def _open(self) -> Database:
        # After close() (the emulator stopped), a change made in process opens it again,
        # unless another emulator has opened it since.
        if self._database is None:
            self._database = open_database(self.path, take_over=False)
        if self._database.superseded:
            raise StateError(
                f"The state file {self.path!r} was opened by another Emulator of this "
                "process, which took it over; this one no longer writes to it"
            )
        return self._database

    def close(self) -> None:
        """Write what is left and let the file go (its lock included)."""
        try:
            if self._database is None or not self._database.superseded:
                self.commit()
        finally:
            database, self._database = self._database, None
            if database is not None:
                database.close()
