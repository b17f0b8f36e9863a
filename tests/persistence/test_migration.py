"""A state file of an older schema version (made by that version's own schema text,
``schema_v1.sql``, ``schema_v2.sql``, ``schema_v3.sql``) opens, is upgraded in place to the
current version, and serves what it held as if never stopped."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StateError
from pytest_schedemu.persistence import schema
from pytest_schedemu.persistence.dump import export_state
from tests.constants import ACCOUNT, DLQ, FUNCTION, QUEUE, START
from tests.helpers import create
from tests.persistence.lives import records

VERSION_1 = (Path(__file__).parent / "schema_v1.sql").read_text()
VERSION_2 = (Path(__file__).parent / "schema_v2.sql").read_text()
VERSION_3 = (Path(__file__).parent / "schema_v3.sql").read_text()
#: The columns later versions renamed: an older name, and what the current file calls it.
RENAMED = {"schedule_arn": "producer"}
NIGHTLY = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"


def schedules(emu: Emulator) -> None:
    client = emu.client()
    client.create_schedule_group(Name="g", Tags=[{"Key": "k", "Value": "v"}])
    create(client, "hourly", "rate(1 hour)", GroupName="g", ClientToken="t")
    target = {
        "Arn": FUNCTION,
        "DeadLetterConfig": {"Arn": DLQ},
        "RetryPolicy": {"MaximumRetryAttempts": 3},
    }
    create(client, "failing", "rate(20 minutes)", target=target)
    emu.target(FUNCTION).fail()
    emu.clock.advance(minutes=41)  # the 10:40 occurrence failed twice: it retries


def version_1_copy(path: Path, copy: Path) -> None:
    """What version 1 wrote for this state (every row of it is one version 1 could write)."""
    older_copy(path, copy, VERSION_1, 1)


def older_copy(path: Path, copy: Path, text: str, version: int) -> None:
    """What schema ``version`` wrote for this state: its tables, made by its schema
    ``text``, holding the columns it had."""
    with (
        contextlib.closing(sqlite3.connect(copy)) as old,
        contextlib.closing(sqlite3.connect(path)) as new,
    ):
        old.executescript(text)
        old.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        old.execute(f"PRAGMA user_version = {version}")
        tables = [
            row[0] for row in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        for table in tables:
            columns = [row[1] for row in old.execute(f"PRAGMA table_info({table})")]
            current = [RENAMED.get(column, column) for column in columns]
            rows = new.execute(f"SELECT {', '.join(current)} FROM {table}").fetchall()
            marks = ", ".join("?" * len(columns))
            old.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        old.commit()


def shape(path: Path) -> dict[str, Any]:
    """Every table's columns (name, type, required, default, key) and indexes' columns."""
    with contextlib.closing(sqlite3.connect(path)) as database:
        found: dict[str, Any] = {}
        for (table,) in database.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            columns = [row[1:] for row in database.execute(f"PRAGMA table_info({table})")]
            indexes = sorted(
                (
                    *(column[2] for column in database.execute(f"PRAGMA index_info({row[1]})")),
                    row[2],
                )
                for row in database.execute(f"PRAGMA index_list({table})")
            )
            found[table] = (columns, indexes)
        return found


def test_a_version_1_file_is_upgraded_in_place_and_serves_what_it_held(tmp_path: Path) -> None:
    with Emulator(start=START, transport="inprocess") as twin:
        schedules(twin)
        held = records(twin)
        twin.clock.advance(hours=2)
        later = records(twin)
    path, old = tmp_path / "written.db", tmp_path / "version-1.db"
    with Emulator(start=START, transport="inprocess", state=str(path)) as emu:
        schedules(emu)
    version_1_copy(path, old)

    with Emulator(transport="inprocess", state=str(old)) as upgraded:
        assert records(upgraded) == held
        # The retry pending in the version 1 file resumes with its number.
        (retry,) = [work for work in upgraded.pending() if work.kind == "retry"]
        assert (retry.schedule_name, retry.attempt_number) == ("failing", 3)
        upgraded.target(FUNCTION).fail()  # a test's set-up, not state
        upgraded.clock.advance(hours=2)
        assert records(upgraded) == later
    with contextlib.closing(sqlite3.connect(old)) as database:
        assert database.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    assert shape(old) == shape(path)  # the very tables a new file has


def test_a_version_1_file_refused_read_only_is_left_as_it_was(tmp_path: Path) -> None:
    path, old = tmp_path / "written.db", tmp_path / "version-1.db"
    with Emulator(start=START, transport="inprocess", state=str(path)) as emu:
        create(emu.client())
    version_1_copy(path, old)
    before = old.read_bytes()
    with pytest.raises(
        StateError, match="holds state schema version 1, and it is opened read-only"
    ):
        export_state(str(old))
    assert old.read_bytes() == before


def rules(emu: Emulator) -> None:
    """A scheduled rule with a target that delivers and one that fails into a dead-letter
    queue, and a schedule beside them: version 2 kept each rule target's records under
    its key in ``schedule_arn``."""
    events = emu.client("events")
    events.put_rule(Name="nightly", ScheduleExpression="rate(30 minutes)")
    failing = {
        "Id": "t2",
        "Arn": FUNCTION,
        "RetryPolicy": {"MaximumRetryAttempts": 1},
        "DeadLetterConfig": {"Arn": DLQ},
    }
    events.put_targets(Rule="nightly", Targets=[{"Id": "t1", "Arn": QUEUE}, failing])
    create(emu.client(), "beside", "rate(1 hour)")
    emu.target(FUNCTION).fail()
    emu.clock.advance(minutes=65)


def test_a_version_2_file_reads_rule_records_back_as_a_rule_targets(tmp_path: Path) -> None:
    path, old = tmp_path / "written.db", tmp_path / "version-2.db"
    with Emulator(start=START, transport="inprocess", state=str(path)) as emu:
        rules(emu)
        held = records(emu)
    older_copy(path, old, VERSION_2, 2)
    with contextlib.closing(sqlite3.connect(old)) as database:
        # What version 2 held: the rule target's key where a schedule's ARN would be.
        keys = {row[0] for row in database.execute("SELECT schedule_arn FROM attempts")}
        assert f"{NIGHTLY}#t2" in keys

    with Emulator(transport="inprocess", state=str(old)) as upgraded:
        assert records(upgraded) == held
        letter, *_ = upgraded.dead_letters()
        assert (letter.source, letter.schedule_arn) == ("rule", None)
        assert (letter.rule_arn, letter.rule_name, letter.target_id) == (NIGHTLY, "nightly", "t2")
        by_source = {a.source: a for a in upgraded.attempts()}
        assert by_source["rule"].schedule_arn is None
        assert by_source["schedule"].schedule_arn.endswith(":schedule/default/beside")
        [execution, *_] = upgraded.executions(rule="nightly")
        assert (execution.source, execution.schedule_arn, execution.rule_arn) == (
            "rule",
            None,
            NIGHTLY,
        )
        created = [a for a in upgraded.activity("created") if a.source == "rule"]
        assert [(a.schedule_arn, a.target_id) for a in created] == [(None, "t1"), (None, "t2")]
    with contextlib.closing(sqlite3.connect(old)) as database:
        assert database.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    assert shape(old) == shape(path)  # the very tables a new file has


def letters(emu: Emulator) -> None:
    """A rule target failing into a dead-letter queue, and a schedule doing so twice at one
    scheduled time: on its own timeline, and fired by hand."""
    rules(emu)
    target = {"Arn": FUNCTION, "Input": '{"run": "<aws.scheduler.execution-id>"}'}
    target["DeadLetterConfig"] = {"Arn": DLQ}
    target["RetryPolicy"] = {"MaximumRetryAttempts": 0}
    create(emu.client(), "failing", "rate(1 hour)", target=target)
    emu.clock.advance(minutes=60)
    emu.fire("failing")


def test_a_version_3_file_gives_its_dead_letters_the_input_their_attempts_had(
    tmp_path: Path,
) -> None:
    path, old = tmp_path / "written.db", tmp_path / "version-3.db"
    with Emulator(start=START, transport="inprocess", state=str(path)) as emu:
        letters(emu)
        held = records(emu)
    older_copy(path, old, VERSION_3, 3)

    with Emulator(transport="inprocess", state=str(old)) as upgraded:
        assert records(upgraded) == held
        by_source: dict[str, list[Any]] = {"rule": [], "schedule": []}
        for letter in upgraded.dead_letters():
            by_source[letter.source].append(letter)
        assert by_source["rule"] and all(d.input is not None for d in by_source["rule"])
        # The two letters of one scheduled time each have their own attempt's input.
        *_, timed, fired = by_source["schedule"]
        assert fired.scheduled_time == timed.scheduled_time
        assert len({fired.input, timed.input}) == 2 and None not in {fired.input, timed.input}
    with contextlib.closing(sqlite3.connect(old)) as database:
        assert database.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
    assert shape(old) == shape(path)  # the very tables a new file has
