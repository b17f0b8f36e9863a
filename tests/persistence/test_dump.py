"""``schedemu state export|import``: a state as JSON and back, all or nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import DeliveryError, Emulator
from pytest_schedemu.cli import main
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE
from tests.helpers import create
from tests.persistence.lives import Lives, records


def busy_state(emu: Emulator) -> None:
    client = emu.client()
    client.create_schedule_group(Name="g", Tags=[{"Key": "k", "Value": "v"}])
    create(client, "plain", Description="caf\u00e9 \ud83d\ude00", ClientToken="tok")
    create(
        client,
        "failing",
        "rate(10 minutes)",
        GroupName="g",
        target={"Arn": FUNCTION, "DeadLetterConfig": {"Arn": DLQ}, "Input": '"\U0001f600"'},
    )

    def refuse(attempt: Any) -> None:
        # A lone surrogate is not UTF-8, yet must survive the file and the dump.
        raise DeliveryError("Refused", "bad \ud800 text", retryable=False)

    emu.target(FUNCTION).handle(refuse)
    emu.clock.advance(minutes=25)


def export(path: Path, dump: Path) -> dict[str, Any]:
    assert main(["state", "export", str(dump), "--state", str(path)]) == 0
    document: dict[str, Any] = json.loads(dump.read_text())
    return document


def test_an_export_imported_elsewhere_serves_the_same_state(lives: Lives, tmp_path: Path) -> None:
    emu = lives.open()
    busy_state(emu)
    expected = records(emu)
    document = export(lives.path, tmp_path / "dump.json")
    assert document["format"] == "schedemu-state" and document["schema_version"] == 4
    assert {s["name"] for s in document["tables"]["schedules"]} == {"plain", "failing"}
    copy = tmp_path / "copy.db"
    assert main(["state", "import", str(tmp_path / "dump.json"), "--state", str(copy)]) == 0
    with Emulator(transport="inprocess", state=str(copy)) as imported:
        assert records(imported) == expected
        response = imported.client().create_schedule(
            Name="plain",
            ScheduleExpression="rate(1 hour)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
            Description="caf\u00e9 \ud83d\ude00",
            ClientToken="tok",
        )  # the token's stored answer came along
        assert response["ScheduleArn"].endswith("/default/plain")


def test_export_reads_a_state_that_a_running_emulator_owns(lives: Lives, tmp_path: Path) -> None:
    emu = lives.open()
    create(emu.client())
    document = export(lives.path, tmp_path / "dump.json")
    assert [s["name"] for s in document["tables"]["schedules"]] == ["s1"]


def test_the_state_path_may_come_from_the_environment(
    lives: Lives, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(lives.open().client())
    monkeypatch.setenv("SCHEDEMU_STATE", str(lives.path))
    assert main(["state", "export", str(tmp_path / "dump.json")]) == 0
    assert json.loads((tmp_path / "dump.json").read_text())["tables"]["schedules"]


def test_an_import_replaces_the_state_held_before(lives: Lives, tmp_path: Path) -> None:
    create(lives.open().client(), "old")
    other = Lives(tmp_path / "other.db")
    create(other.open().client(), "new")
    other.close()
    export(other.path, tmp_path / "dump.json")
    lives.close()
    lives.current = None
    assert main(["state", "import", str(tmp_path / "dump.json"), "--state", str(lives.path)]) == 0
    assert [s.name for s in lives.open().schedules()] == ["new"]


def refused_import(
    document: Any, path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    dump = tmp_path / "bad.json"
    dump.write_text(json.dumps(document))
    before = path.read_bytes() if path.exists() else None
    assert main(["state", "import", str(dump), "--state", str(path)]) == 1
    if before is not None:
        assert path.read_bytes() == before
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: {"format": "other"}, "Not a schedemu state dump"),
        (lambda d: {**d, "schema_version": 99}, "schema version 99"),
        (lambda d: {**d, "tables": {**d["tables"], "extra": []}}, "unknown tables"),
        (
            lambda d: {**d, "tables": {**d["tables"], "groups": [{"name": "g"}]}},
            "exactly the columns",
        ),
        (
            lambda d: {
                **d,
                "tables": {
                    **d["tables"],
                    "schedules": [
                        {
                            **row,
                            "definition": {**row["definition"], "schedule_expression": "rate(x)"},
                        }
                        for row in d["tables"]["schedules"]
                    ],
                },
            },
            'table "schedules", field "definition": Invalid Schedule Expression rate(x)',
        ),
    ],
)
def test_a_bad_dump_is_refused_and_changes_nothing(
    lives: Lives,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Any,
    message: str,
) -> None:
    busy_state(lives.open())
    document = export(lives.path, tmp_path / "dump.json")
    lives.close()
    lives.current = None
    assert message in refused_import(change(document), lives.path, tmp_path, capsys)
    assert len(lives.open().schedules()) == 2


def test_an_import_into_a_state_in_use_is_refused(lives: Lives, tmp_path: Path) -> None:
    busy_state(lives.open())
    before = export(lives.path, tmp_path / "dump.json")
    command = [sys.executable, "-m", "pytest_schedemu", "state", "import"]
    result = subprocess.run(
        [*command, str(tmp_path / "dump.json"), "--state", str(lives.path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "in use by another schedemu process" in result.stderr
    assert export(lives.path, tmp_path / "again.json") == before


def test_reading_a_state_beside_its_owner_loses_none_of_its_writes(
    lives: Lives, tmp_path: Path
) -> None:
    # Closing a descriptor of the file outside SQLite would drop this process's locks on
    # it, and another process closing its own connection would then delete the log that
    # the emulator still writes to.
    emu = lives.open()
    create(emu.client(), "first")
    export(lives.path, tmp_path / "dump.json")
    reader = (
        f"import sqlite3; database = sqlite3.connect({str(lives.path)!r}); "
        "print(*(row[0] for row in database.execute('SELECT name FROM schedules'))); "
        "database.close()"
    )

    def names_on_disk() -> str:
        # What another process (or this one, after a crash) finds in the file.
        found = subprocess.run([sys.executable, "-c", reader], capture_output=True, text=True)
        return found.stdout.strip()

    assert names_on_disk() == "first"
    create(emu.client(), "second")
    assert names_on_disk() == "first second"


def test_exporting_a_missing_state_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["state", "export", "-", "--state", str(tmp_path / "none.db")]) == 1
    assert "No state file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
