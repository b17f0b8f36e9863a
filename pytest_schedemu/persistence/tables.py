"""The tables of a state file (schema version 4), and the statements that write its logs.

Version 2 adds EventBridge rules (``rules``: each rule's definition with its targets;
``rule_plans``: where each scheduled rule target's plan stands) and the fire number of an
occurrence fired by hand (``Emulator.fire``): an occurrence is keyed by (incarnation,
scheduled time, fire number), and its attempts name it by (incarnation, scheduled time,
event id), the id every attempt record carries, which differs for each fire. An
occurrence keeps its event id, since a rule target's is made of its rule's ARN and
incarnation, which its own key does not hold. A schedule's plan and a rule target's keep
how many occurrences were fired, so that a fire after a restart never takes a number,
and so the ids, of one before it.

Version 3 names the column that says what made an occurrence or a record ``producer``
(version 2's ``schedule_arn``): it holds a schedule's ARN, or a rule target's key
``<rule ARN>#<target id>`` (``MadeBy.producer_key``), whose records name no schedule.

Version 4 keeps a dead letter's ``input``, what its target would have received (the body is
AWS's message, a schedule's a target request with its payload perhaps shortened).

Columns added to a version 1 table come last, where ``ALTER TABLE`` puts them, so that a
migrated file and a new one have the very same tables (``migrations``).
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 4

#: Each table's statement, in the order an export lists the tables.
TABLE_STATEMENTS: dict[str, str] = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "groups": """CREATE TABLE groups (
    account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
    created TEXT NOT NULL, modified TEXT NOT NULL, state TEXT NOT NULL, tags TEXT NOT NULL,
    removal_due TEXT,
    PRIMARY KEY (account, region, name)
) WITHOUT ROWID""",
    "schedules": """CREATE TABLE schedules (
    account TEXT NOT NULL, region TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
    incarnation INTEGER NOT NULL, definition TEXT NOT NULL, last_dispatched INTEGER,
    fires INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account, region, grp, name)
) WITHOUT ROWID""",
    # A rule's definition holds its targets, each with its incarnation.
    "rules": """CREATE TABLE rules (
    account TEXT NOT NULL, region TEXT NOT NULL, bus TEXT NOT NULL, name TEXT NOT NULL,
    incarnation INTEGER NOT NULL, definition TEXT NOT NULL,
    PRIMARY KEY (account, region, bus, name)
) WITHOUT ROWID""",
    # One row per live plan of a rule target, by the target's incarnation: when it was last
    # defined (its activation follows from it), the last nominal time it generated, and
    # how many occurrences were fired.
    "rule_plans": """CREATE TABLE rule_plans (
    incarnation INTEGER PRIMARY KEY, rule_arn TEXT NOT NULL, target_id TEXT NOT NULL,
    defined_at TEXT NOT NULL, last_dispatched INTEGER, fires INTEGER NOT NULL
)""",
    "tokens": """CREATE TABLE tokens (
    account TEXT NOT NULL, region TEXT NOT NULL, operation TEXT NOT NULL, token TEXT NOT NULL,
    fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (account, region, operation, token)
) WITHOUT ROWID""",
    "occurrences": """CREATE TABLE occurrences (
    seq INTEGER PRIMARY KEY,
    incarnation INTEGER NOT NULL, nominal INTEGER NOT NULL, fired INTEGER NOT NULL,
    event_id TEXT NOT NULL, producer TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
    first_due INTEGER NOT NULL, status TEXT NOT NULL, first_attempt_at INTEGER,
    exhausted TEXT, next_number INTEGER, next_due INTEGER,
    UNIQUE (incarnation, nominal, fired)
)""",
    "attempts": """CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    incarnation INTEGER NOT NULL, nominal INTEGER NOT NULL,
    producer TEXT NOT NULL, target_arn TEXT NOT NULL, attempted_at INTEGER NOT NULL,
    attempt_number INTEGER NOT NULL, event_id TEXT NOT NULL, execution_id TEXT NOT NULL,
    input TEXT, request_text TEXT NOT NULL, succeeded INTEGER NOT NULL,
    error_code TEXT, error_message TEXT, retryable INTEGER,
    grp TEXT NOT NULL, name TEXT NOT NULL, fired INTEGER NOT NULL DEFAULT 0
)""",
    "dead_letters": """CREATE TABLE dead_letters (
    id INTEGER PRIMARY KEY,
    queue_arn TEXT NOT NULL, body TEXT NOT NULL, attributes TEXT NOT NULL,
    producer TEXT NOT NULL, scheduled_time INTEGER NOT NULL, sent_at TEXT,
    queue_url TEXT NOT NULL, delivered INTEGER NOT NULL, input TEXT
)""",
    "activity": """CREATE TABLE activity (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL, at TEXT NOT NULL, producer TEXT NOT NULL, scheduled_time INTEGER,
    detail TEXT NOT NULL
)""",
    # kind: schedule (grp, name its group and name), rule_target (its key; grp, name the
    # rule's ARN and name; definition its last, which its timeline lane draws after it is
    # gone), target or dlq (neither).
    "known": """CREATE TABLE known (
    kind TEXT NOT NULL, arn TEXT NOT NULL, grp TEXT, name TEXT, seq INTEGER NOT NULL,
    definition TEXT,
    PRIMARY KEY (kind, arn)
) WITHOUT ROWID""",
}

INDEX_STATEMENTS: dict[str, str] = {
    name: f"CREATE INDEX {name} ON {on}"
    for name, on in (
        ("schedules_by_incarnation", "schedules (incarnation)"),
        ("attempts_by_occurrence", "attempts (incarnation, nominal)"),
        ("rule_plans_by_rule", "rule_plans (rule_arn)"),
    )
}

#: The tables of the schema, in the order an export lists them.
TABLES = tuple(TABLE_STATEMENTS)

#: Statements the journal writes records with, and forgets a token with.
INSERT_RECORD = {
    "attempts": "INSERT INTO attempts VALUES (" + ", ".join("?" * 18) + ")",
    "dead_letters": "INSERT INTO dead_letters VALUES (" + ", ".join("?" * 10) + ")",
    "activity": "INSERT INTO activity VALUES (?, ?, ?, ?, ?, ?)",
}
INSERT_OCCURRENCE = "INSERT INTO occurrences VALUES (" + ", ".join("?" * 14) + ")"
FORGET_TOKEN = "DELETE FROM tokens WHERE (account, region, operation, token) = (?, ?, ?, ?)"


def create_tables(connection: sqlite3.Connection) -> None:
    """Make every table and index of the schema (in a transaction the caller holds)."""
    for statement in (*TABLE_STATEMENTS.values(), *INDEX_STATEMENTS.values()):
        connection.execute(statement)


def prune(connection: sqlite3.Connection, dropped: dict[str, int]) -> None:
    """Delete what ``max_records`` dropped from memory: the file stays as bounded."""
    connection.execute(
        "DELETE FROM occurrences WHERE seq <= ? "
        "AND status NOT IN ('pending', 'retrying', 'settling')",
        (dropped["executions"],),
    )
    # An attempt dropped from the log stays while its occurrence is kept.
    connection.execute(
        "DELETE FROM attempts WHERE id <= ? AND NOT EXISTS (SELECT 1 FROM occurrences o "
        "WHERE o.incarnation = attempts.incarnation AND o.nominal = attempts.nominal "
        "AND o.event_id = attempts.event_id)",
        (dropped["attempts"],),
    )
    for kind in ("dead_letters", "activity"):
        connection.execute(f"DELETE FROM {kind} WHERE id <= ?", (dropped[kind],))
