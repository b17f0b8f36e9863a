"""How a state file of an older schema version becomes one of the current version.

``MIGRATIONS[n]`` turns a database of schema version ``n`` into version ``n + 1``; the
caller runs it inside the transaction that also sets the new version, so a migration that
fails changes nothing. Each step ends with exactly the tables a new file of its version
has (``tables``): the same columns in the same order, so every statement reads both alike.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable

from pytest_schedemu.persistence.tables import INDEX_STATEMENTS, TABLE_STATEMENTS
from pytest_schedemu.targets import events


def _version_1_event_id(schedule_arn: str, incarnation: int, nominal: int) -> str:
    # A version 1 file holds only schedules' occurrences, none fired by hand (the file
    # refused firing): their event id is the one their schedule's key makes.
    return events.event_id(schedule_arn, incarnation, nominal)


#: Version 2's occurrences table, which ``to_version_3`` then renames a column of.
_VERSION_2_OCCURRENCES = """CREATE TABLE occurrences (
    seq INTEGER PRIMARY KEY,
    incarnation INTEGER NOT NULL, nominal INTEGER NOT NULL, fired INTEGER NOT NULL,
    event_id TEXT NOT NULL, schedule_arn TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
    first_due INTEGER NOT NULL, status TEXT NOT NULL, first_attempt_at INTEGER,
    exhausted TEXT, next_number INTEGER, next_due INTEGER,
    UNIQUE (incarnation, nominal, fired)
)"""


def to_version_2(connection: sqlite3.Connection) -> None:
    """Version 1 to 2: rules and their targets' plans; the fire number of occurrences
    (0 for all of version 1's), their event ids, and how many fires each plan made; the
    last definitions of the rule targets the registry knows."""
    connection.create_function("schedemu_event_id", 3, _version_1_event_id, deterministic=True)
    connection.execute("ALTER TABLE schedules ADD COLUMN fires INTEGER NOT NULL DEFAULT 0")
    connection.execute("ALTER TABLE attempts ADD COLUMN fired INTEGER NOT NULL DEFAULT 0")
    connection.execute("ALTER TABLE known ADD COLUMN definition TEXT")
    # A key's columns cannot be altered: the occurrences move to a table made anew.
    connection.execute("ALTER TABLE occurrences RENAME TO occurrences_version_1")
    connection.execute(_VERSION_2_OCCURRENCES)
    connection.execute(
        "INSERT INTO occurrences SELECT seq, incarnation, nominal, 0, "
        "schedemu_event_id(schedule_arn, incarnation, nominal), schedule_arn, grp, name, "
        "first_due, status, first_attempt_at, exhausted, next_number, next_due "
        "FROM occurrences_version_1"
    )
    connection.execute("DROP TABLE occurrences_version_1")
    connection.execute(TABLE_STATEMENTS["rules"])
    connection.execute(TABLE_STATEMENTS["rule_plans"])
    connection.execute(INDEX_STATEMENTS["rule_plans_by_rule"])


def to_version_3(connection: sqlite3.Connection) -> None:
    """Version 2 to 3: the column version 2 called ``schedule_arn`` is ``producer``: it
    holds a rule target's key too, and a rule target's records name no schedule. The
    values stay as they are; only how they are read back changes."""
    for table in ("occurrences", "attempts", "dead_letters", "activity"):
        connection.execute(f"ALTER TABLE {table} RENAME COLUMN schedule_arn TO producer")


def to_version_4(connection: sqlite3.Connection) -> None:
    """Version 3 to 4: a dead letter's ``input``, taken from the attempt that ended its
    occurrence where the file still holds that attempt and it is the only one that fits;
    otherwise it stays unknown (NULL) rather than guessed."""
    connection.execute("ALTER TABLE dead_letters ADD COLUMN input TEXT")
    # Only for this pass: without it each letter would scan every attempt.
    connection.execute("CREATE INDEX attempts_by_producer ON attempts (producer, nominal)")
    letters = connection.execute(
        "SELECT id, producer, scheduled_time, attributes FROM dead_letters"
    ).fetchall()
    for number, producer, nominal, attributes in letters:
        failed = connection.execute(
            "SELECT execution_id, attempt_number, input FROM attempts "
            "WHERE producer = ? AND nominal = ? AND succeeded = 0",
            (producer, nominal),
        ).fetchall()
        found = _last_attempt_input(json.loads(attributes), failed)
        if found is not None:
            connection.execute("UPDATE dead_letters SET input = ? WHERE id = ?", (found, number))
    connection.execute("DROP INDEX attempts_by_producer")


def _last_attempt_input(attributes: dict[str, str], failed: list[Any]) -> Any:
    """The input of the one failed attempt a letter's ``attributes`` name, else None. A
    schedule's letter names its attempt's execution id; a rule target's names only how
    many retries came before it, which an occurrence fired by hand may share."""
    execution_id = attributes.get("EXECUTION_ID")
    if execution_id is not None:
        fitting = [row for row in failed if row[0] == execution_id]
    else:
        retries = attributes.get("RETRY_ATTEMPTS", "")
        number = int(retries) + 1 if retries.isdigit() else None
        fitting = [row for row in failed if row[1] == number]
    return fitting[0][2] if len(fitting) == 1 else None


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: to_version_2,
    2: to_version_3,
    3: to_version_4,
}
