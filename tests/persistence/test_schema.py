"""What a state file must be: ours, readable, and of a schema this release reads or migrates.
Anything else is refused with a clear error and left exactly as it was."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_schedemu import Emulator, StateError
from pytest_schedemu.persistence import schema
from tests.constants import START
from tests.helpers import create
from tests.persistence.lives import Lives


def refused(path: Path, match: str) -> None:
    lock = path.with_name(path.name + "-lock")
    before = (path.read_bytes(), lock.exists())
    with pytest.raises(StateError, match=match):
        Emulator(state=str(path))
    # Not a byte written, and no lock file left beside a file that is not ours.
    assert (path.read_bytes(), lock.exists()) == before


def test_a_new_file_is_made_in_wal_mode_with_the_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    Emulator(state=str(path)).stop()
    with contextlib.closing(sqlite3.connect(path)) as database:
        assert database.execute("PRAGMA application_id").fetchone() == (schema.APPLICATION_ID,)
        assert database.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        assert database.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_an_empty_file_is_taken_as_a_new_state(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    Emulator(state=str(path)).stop()
    assert path.stat().st_size > 0


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes, not a database\n")
    refused(path, "Refused the state file .* not an SQLite database")


def test_another_applications_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    database = sqlite3.connect(path)
    database.execute("CREATE TABLE users (name TEXT)")
    database.commit()
    database.close()
    refused(path, r"another application \(application_id 0, tables: users\)")


def test_a_damaged_state_is_refused_untouched(lives: Lives) -> None:
    emu = lives.open()
    for index in range(200):
        create(emu.client(), f"s{index}", Description="x" * 500)
    lives.current = None
    emu.stop()
    data = bytearray(lives.path.read_bytes())
    assert len(data) > 40_000
    data[20_000:36_000] = b"\xa5" * 16_000  # scribble over pages in the middle
    lives.path.write_bytes(bytes(data))
    refused(lives.path, "Refused the state file .*corrupt")


def test_a_truncated_state_is_refused_untouched(lives: Lives) -> None:
    emu = lives.open()
    for index in range(200):
        create(emu.client(), f"s{index}", Description="x" * 500)
    lives.current = None
    emu.stop()
    lives.path.write_bytes(lives.path.read_bytes()[:30_000])
    refused(lives.path, "Refused the state file .*corrupt")


def set_version(path: Path, version: int) -> None:
    database = sqlite3.connect(path)
    database.execute(f"PRAGMA user_version = {version}")
    database.commit()
    database.close()


def test_a_state_of_a_newer_release_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    Emulator(state=str(path)).stop()
    set_version(path, schema.SCHEMA_VERSION + 1)
    refused(path, "newer pytest-schedemu .* upgrade")


def test_an_older_schema_without_a_migration_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    Emulator(state=str(path)).stop()
    set_version(path, 0)  # no release wrote version 0: nothing migrates from it
    refused(path, "cannot migrate from version 0")


def test_an_older_schema_is_migrated_step_by_step(
    lives: Lives, monkeypatch: pytest.MonkeyPatch
) -> None:
    emu = lives.open()
    create(emu.client())
    emu.clock.advance(hours=1)
    lives.current = None
    emu.stop()

    def add_a_note_column(connection: sqlite3.Connection) -> None:
        connection.execute("ALTER TABLE groups ADD COLUMN note TEXT")

    monkeypatch.setattr(schema, "SCHEMA_VERSION", schema.SCHEMA_VERSION + 1)
    monkeypatch.setattr(schema, "MIGRATIONS", {schema.SCHEMA_VERSION - 1: add_a_note_column})
    emu = lives.open()
    assert len(emu.attempts()) == 2
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        assert database.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        assert "note" in [row[1] for row in database.execute("PRAGMA table_info(groups)")]


def test_a_directory_or_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="is a directory"):
        Emulator(state=str(tmp_path))
    with pytest.raises(StateError, match="does not exist"):
        Emulator(state=str(tmp_path / "no" / "state.db"))


def test_a_refused_state_leaves_no_emulator_half_made(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("text")
    with pytest.raises(StateError):
        Emulator(start=START, state=str(path))
    with Emulator(start=START) as emu:  # and nothing of it stays behind
        assert emu.schedules() == []


@pytest.fixture
def state_file(tmp_path: Path) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection]]:
    """A state file, and two connections to it that never wait for a lock."""
    path = tmp_path / "state.db"
    Emulator(state=str(path)).stop()
    first, second = (sqlite3.connect(path, isolation_level=None, timeout=0) for _ in range(2))
    yield first, second
    first.close()
    second.close()


def test_a_transaction_that_cannot_begin_says_why(
    state_file: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    holder, connection = state_file
    holder.execute("BEGIN IMMEDIATE")  # another connection is writing
    locked = pytest.raises(StateError, match=r"^Could not write: database is locked$")
    with locked as raised, schema.transaction(connection, "Could not write"):
        connection.execute("DELETE FROM meta")
    assert isinstance(raised.value.__cause__, sqlite3.OperationalError)
    holder.execute("ROLLBACK")
    with schema.transaction(connection, "Could not write"):  # nothing was left half open
        connection.execute("DELETE FROM meta")
    assert connection.execute("SELECT COUNT(*) FROM meta").fetchone() == (0,)


def test_a_transaction_that_fails_midway_leaves_nothing_of_it(
    state_file: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    connection, _ = state_file
    before = connection.execute("SELECT COUNT(*) FROM meta").fetchone()
    failed = pytest.raises(StateError, match=r"^Could not write: no such table: nowhere$")
    with failed, schema.transaction(connection, "Could not write"):
        connection.execute("DELETE FROM meta")
        connection.execute("DELETE FROM nowhere")
    # What is not SQLite's passes as it is.
    with pytest.raises(KeyError), schema.transaction(connection, "Could not write"):
        connection.execute("DELETE FROM meta")
        raise KeyError("interrupted")
    assert not connection.in_transaction
    assert connection.execute("SELECT COUNT(*) FROM meta").fetchone() == before != (0,)
