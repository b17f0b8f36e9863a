"""A state as JSON: what ``schedemu state export`` writes and ``schedemu state import`` reads.

The dump holds the state file's tables row by row, each row an object of its columns, with
the nested values (schedule and rule definitions, group tags, dead-letter attributes, the
metadata) as JSON rather than as text, so it reads well in a bug report and can be edited
to seed a local stack. Exporting reads one consistent snapshot, also while ``schedemu serve`` is
writing the file. Importing replaces the state held at the path, all or nothing, and only
after the dump has been restored once into a scratch emulator: a dump that could not be
served is refused and changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pytest_schedemu._version import __version__
from pytest_schedemu.dispatch.state import DispatchState
from pytest_schedemu.errors import StateError
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.persistence import codec
from pytest_schedemu.persistence.restore import restore
from pytest_schedemu.persistence.schema import Database, open_database, transaction
from pytest_schedemu.persistence.tables import SCHEMA_VERSION, TABLES
from pytest_schedemu.persistence.vet import Vetting, check_tables, check_value
from pytest_schedemu.records import History
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import DEFAULTS
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import ClockWiring, VirtualClock

FORMAT = "schedemu-state"
_JSON_COLUMNS = {
    ("groups", "tags"),
    ("schedules", "definition"),
    ("rules", "definition"),
    ("dead_letters", "attributes"),
    ("known", "definition"),
}
_BLOB_COLUMNS = {("tokens", "body")}


def export_state(path: str) -> dict[str, Any]:
    """The state held at ``path`` as a JSON-ready document."""
    database = open_database(path, create=False, owner=False)
    try:
        connection = database.connection
        tables: dict[str, Any] = {}
        with transaction(connection, f"Could not read the state file {path!r}", write=False):
            for table in TABLES:
                cursor = connection.execute(f"SELECT * FROM {table}")
                columns = [description[0] for description in cursor.description]
                rows = [
                    {column: _exported(table, column, value) for column, value in zip(columns, row)}
                    for row in cursor
                ]
                if table == "meta":
                    tables[table] = {row["key"]: json.loads(row["value"]) for row in rows}
                else:
                    tables[table] = rows
    finally:
        database.close()
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "exported_by": f"pytest-schedemu {__version__}",
        "tables": tables,
    }


def _exported(table: str, column: str, value: Any) -> Any:
    if (table, column) in _JSON_COLUMNS and value is not None:
        return json.loads(value)
    return codec.text(value) if isinstance(value, bytes) else value


def import_state(document: Any, path: str, vetting: Vetting) -> dict[str, int]:
    """Replace the state held at ``path`` (made if new) with a dump; the rows per table.

    Every row is checked first (``vet``), its schedules, groups and rules by the command
    layer's checks (``vetting``): a dump a service could not have written is refused,
    naming the table, the row and the field, and nothing is written."""
    tables = _checked(document)
    database = open_database(path, take_over=False)
    try:
        connection = database.connection
        counts: dict[str, int] = {}
        with transaction(connection, f"Could not import into the state file {path!r}"):
            for table in TABLES:
                connection.execute(f"DELETE FROM {table}")
                counts[table] = _insert(connection, table, tables.get(table, []))
            # Every row has its columns, each of its type: now they can be read together.
            check_tables(tables, vetting)
            _try_restore(database)
    finally:
        database.close()
    return counts


def _checked(document: Any) -> dict[str, Any]:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise StateError(
            f'Not a schedemu state dump: expected a JSON object with "format": "{FORMAT}" '
            "(what schedemu state export writes)"
        )
    version = document.get("schema_version")
    if version != SCHEMA_VERSION:
        raise StateError(
            f"The dump holds state schema version {version!r}; this pytest-schedemu imports "
            f"version {SCHEMA_VERSION}: import it with the release that exported it, open "
            "that state with this release (it migrates), and export again"
        )
    tables = document.get("tables")
    if not isinstance(tables, dict) or not isinstance(tables.get("meta", {}), dict):
        raise StateError('The dump has no "tables" object (with "meta" an object)')
    unknown = sorted(set(tables) - set(TABLES))
    if unknown:
        raise StateError(f"The dump has unknown tables {unknown}: expected {list(TABLES)}")
    return tables


def _insert(connection: sqlite3.Connection, table: str, rows: Any) -> int:
    if table == "meta":
        rows = [{"key": key, "value": codec.dumps(value)} for key, value in rows.items()]
    if not isinstance(rows, list):
        raise StateError(f'The dump\'s table "{table}" is not a list of rows')
    types = [
        (row[1], row[2], bool(row[3])) for row in connection.execute(f"PRAGMA table_info({table})")
    ]
    columns = [column for column, _, _ in types]
    statement = f"INSERT INTO {table} VALUES ({', '.join('?' * len(columns))})"
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != set(columns):
            raise StateError(
                f'Row {index} of the dump\'s table "{table}" must be an object with exactly '
                f"the columns {columns}"
            )
        values = [_imported(table, column, row[column]) for column in columns]
        for (column, kind, required), value in zip(types, values):
            check_value(table, index, column, kind, required, value)
        try:
            connection.execute(statement, values)
        except sqlite3.Error as error:
            raise StateError(f'Row {index} of the dump\'s table "{table}": {error}') from None
    return len(rows)


def _imported(table: str, column: str, value: Any) -> Any:
    if (table, column) in _JSON_COLUMNS and value is not None:
        return codec.dumps(value)
    if (table, column) in _BLOB_COLUMNS and isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, str):
        return codec.column(value)
    if value is not None and not isinstance(value, (int, float)):
        raise StateError(
            f'Column "{column}" of the dump\'s table "{table}" holds {value!r}: expected text, '
            "a number or null"
        )
    return value


def _try_restore(database: Database) -> None:
    """Restore the rows written so far into a scratch emulator: a dump that could not be
    served is refused before anything is committed."""
    settings = LiveSettings(DEFAULTS)
    history = History()
    store = Store(EPOCH, settings)
    wiring = ClockWiring(VirtualClock(EPOCH))
    state = DispatchState.detached(store=store, settings=settings, history=history, wiring=wiring)
    try:
        restore(database, store=store, state=state, history=history, wiring=wiring)
    except StateError as error:
        raise StateError(f"The dump cannot be restored: {error}") from None
    except Exception as error:
        raise StateError(f"The dump cannot be restored ({type(error).__name__}: {error})") from None
