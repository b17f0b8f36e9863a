"""The state file: an SQLite database in WAL mode, its versioned schema, and what it refuses.

A file is opened only when it is recognisably ours: a new or empty file, or an SQLite
database whose ``application_id`` is schedemu's and whose ``user_version`` (the schema
version) this release can read or migrate. Anything else (another program's database, a
file that is not SQLite, a damaged one, one written by a newer release) is refused with a
``StateError`` before a single byte of it is written.

One process owns a state file at a time (``lock``). Readers (``schedemu state export``)
need no lock: WAL lets them read a consistent snapshot while the owner writes.

Durability: ``synchronous=NORMAL`` in WAL mode makes every committed transaction survive a
crash of the process (SIGKILL included), not necessarily a power loss or an operating
system crash, which may lose the last transactions (never corrupt the file).

The tables themselves are ``tables``'s; how an older version becomes the current one,
``migrations``'s.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from pytest_schedemu.errors import StateError
from pytest_schedemu.persistence.lock import Hold, acquire, own, release
from pytest_schedemu.persistence.migrations import MIGRATIONS
from pytest_schedemu.persistence.tables import SCHEMA_VERSION, create_tables

#: "SchE": marks a database as a schedemu state (``PRAGMA application_id``).
APPLICATION_ID = 0x53636845


@contextmanager
def transaction(
    connection: sqlite3.Connection, failure: str, *, write: bool = True
) -> Iterator[None]:
    """Run the block in one transaction: committed when it ends, rolled back when it raises.

    Every SQLite error, the BEGIN's included, is raised as a ``StateError`` saying
    ``failure`` and the error; any other exception passes as it is. The rollback happens
    only when a transaction is open: a BEGIN that failed (the file locked by another
    connection) opened none, and its error is the one to see. ``write`` takes the write
    lock at once; without it the transaction is one snapshot for reading.
    """
    try:
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        yield
        connection.execute("COMMIT")
    except BaseException as error:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise StateError(f"{failure}: {error}") from error
        raise


class Database:
    """An open state file: its connection, used only under the emulator's store lock."""

    def __init__(self, path: str, connection: sqlite3.Connection, hold: Hold | None):
        self.path = path
        self.connection = connection
        self._hold = hold
        if hold is not None:
            own(hold, self, path)

    @property
    def superseded(self) -> bool:
        """Whether another opener in this process took the file over (this one may not
        write any more)."""
        return self._hold is not None and self._hold.owner is not self

    def close(self) -> None:
        self.connection.close()
        if self._hold is not None:
            release(self._hold, self)


def open_database(
    path: str, *, create: bool = True, owner: bool = True, take_over: bool = True
) -> Database:
    """Open (or, with ``create``, make) the state file at ``path``.

    ``owner`` holds the file (``lock``), which writing needs, taking it over from another
    opener in this process unless ``take_over`` is False; without it the database is only
    read (and an older schema is not migrated). StateError says why a file is refused.
    """
    _check_file(path, create)
    if owner:
        _check_folder(path)
    connection = _connect(path)
    hold = None
    try:
        found = _inspect(connection, path, new_allowed=owner)
        if owner:
            # Only a file known to be ours gets a lock file beside it; once it is held,
            # look again, in case another process made the file meanwhile.
            hold = acquire(path, take_over=take_over)
            found = _inspect(connection, path, new_allowed=True)
        _make_ready(connection, path, found, migrate=owner)
        if owner:
            _check_writable(connection, path)
    except BaseException:
        connection.close()
        if hold is not None:
            release(hold, None)
        raise
    return Database(path, connection, hold)


def _check_file(path: str, create: bool) -> None:
    # The file itself is only ever opened by SQLite: closing any other descriptor of it
    # would drop the POSIX locks SQLite holds on it in this process, and another process
    # could then take itself for the last user and delete the write-ahead log in use.
    if os.path.isdir(path):
        raise StateError(f"State path {path!r} is a directory: give a file, e.g. {path}/state.db")
    if os.path.exists(path):
        return
    if not create:
        raise StateError(f"No state file at {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise StateError(
            f"Cannot create the state file {path!r}: the folder {folder!r} does not exist"
        )


def _check_folder(path: str) -> None:
    # SQLite makes its write-ahead log and shared memory beside the file, and deletes them
    # when the last connection closes: a folder it cannot write in fails only then, or at
    # the first read, with a misleading message. Trying is the one test that holds for
    # every reason (permissions, a read-only mount, an immutable folder, root).
    folder = os.path.dirname(os.path.abspath(path))
    try:
        descriptor, scratch = tempfile.mkstemp(prefix=".schedemu-", dir=folder)
    except OSError as error:
        raise StateError(
            f"Cannot write beside the state file {path!r}: the folder {folder!r} refuses new "
            f"files ({error.strerror}); SQLite keeps its log there"
        ) from None
    os.close(descriptor)
    os.unlink(scratch)


def _check_writable(connection: sqlite3.Connection, path: str) -> None:
    # SQLite opens a file it may not write read-only without a word; the first change
    # would then fail. Rewriting the schema version is a real write, rolled back so that
    # not one byte of the file changes.
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.Error as error:
        raise StateError(f"Cannot write the state file {path!r}: {error}") from None
    finally:
        if connection.in_transaction:
            connection.execute("ROLLBACK")


def _connect(path: str) -> sqlite3.Connection:
    try:
        # Transactions are begun and ended explicitly; the connection is shared by the
        # threads that hold the store lock.
        return sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise StateError(f"Cannot open the state file {path!r}: {error}") from None


def _inspect(connection: sqlite3.Connection, path: str, *, new_allowed: bool) -> int | None:
    """The schema version of a schedemu state file, None for a new one; refuses the rest."""
    try:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version: int = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
    except sqlite3.DatabaseError as error:
        if "not a database" in str(error):
            raise StateError(
                f"Refused the state file {path!r}: it is not an SQLite database (another kind "
                "of file, or a corrupt one); it was left untouched: give the path of a new "
                "file or of an existing state"
            ) from None
        raise StateError(
            f"Refused the state file {path!r}: it cannot be read ({error}: corrupt?); it was "
            "left untouched"
        ) from None
    if application_id == 0 and not tables:
        if not new_allowed:
            raise StateError(f"{path!r} holds no schedemu state yet")
        return None
    if application_id != APPLICATION_ID:
        shown = ", ".join(tables[:8]) + (" …" if len(tables) > 8 else "")
        raise StateError(
            f"Refused the state file {path!r}: it is an SQLite database of another "
            f"application (application_id {application_id}, tables: {shown or 'none'}); it "
            "was left untouched: give the path of a new file or of a schedemu state"
        )
    if version > SCHEMA_VERSION:
        raise StateError(
            f"Refused the state file {path!r}: it was written by a newer pytest-schedemu "
            f"(state schema version {version}; this one reads up to {SCHEMA_VERSION}); it was "
            "left untouched: upgrade pytest-schedemu, or export it with the newer one and "
            "import the dump here"
        )
    return version


def _make_ready(
    connection: sqlite3.Connection, path: str, version: int | None, *, migrate: bool
) -> None:
    if version is None:
        _create(connection, path)
        return
    _check_integrity(connection, path)
    if version < SCHEMA_VERSION:
        _migrate(connection, path, version, allowed=migrate)
    _tune(connection, path)


def _check_integrity(connection: sqlite3.Connection, path: str) -> None:
    try:
        found = [row[0] for row in connection.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as error:
        found = [str(error)]
    if found != ["ok"]:
        raise StateError(
            f"Refused the state file {path!r}: it is damaged (corrupt: "
            f"{'; '.join(found[:3])}); it was left untouched: move it aside and start from an "
            "empty state, or from an export"
        )


def _migrate(connection: sqlite3.Connection, path: str, version: int, *, allowed: bool) -> None:
    missing = [step for step in range(version, SCHEMA_VERSION) if step not in MIGRATIONS]
    if missing or not allowed:
        reason = (
            f"this pytest-schedemu cannot migrate from version {version}"
            if missing
            else "it is opened read-only, and migrating writes"
        )
        raise StateError(
            f"Refused the state file {path!r}: it holds state schema version {version}, and "
            f"{reason} to {SCHEMA_VERSION}; it was left untouched: export it with the release "
            "that wrote it (schedemu state export) and import the dump here, or open it with "
            "schedemu serve"
        )
    for step in range(version, SCHEMA_VERSION):
        with transaction(
            connection,
            f"Migrating {path!r} from state schema version {step} failed and changed nothing",
        ):
            MIGRATIONS[step](connection)
            connection.execute(f"PRAGMA user_version = {step + 1}")


def _create(connection: sqlite3.Connection, path: str) -> None:
    _tune(connection, path)
    with transaction(connection, f"Cannot create the state file {path!r}"):
        create_tables(connection)
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _tune(connection: sqlite3.Connection, path: str) -> None:
    try:
        mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        connection.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as error:
        raise StateError(f"Cannot open the state file {path!r}: {error}") from None
    if str(mode).lower() != "wal":
        raise StateError(
            f"The state file {path!r} cannot use write-ahead logging (journal mode {mode}); "
            "put it on a local file system"
        )
