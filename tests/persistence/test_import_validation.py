"""``schedemu state import`` checks a dump as the API checks a request: a dump the service
could not have written is refused in one line naming the table, row and field, and the
state it was to replace stays as it was."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.persistence.lives import Lives
from tests.persistence.test_dump import busy_state, export, refused_import

Change = Callable[[dict[str, Any]], None]


def _meta(key: str, value: Any) -> Change:
    def change(tables: dict[str, Any]) -> None:
        tables["meta"][key] = value

    return change


def _definition(edit: Callable[[dict[str, Any]], None]) -> Change:
    def change(tables: dict[str, Any]) -> None:
        edit(tables["schedules"][0]["definition"])

    return change


def _column(table: str, column: str, value: Any) -> Change:
    def change(tables: dict[str, Any]) -> None:
        tables[table][0][column] = value

    return change


def _window(d: dict[str, Any]) -> None:
    d["flexible_time_window"] = ["FLEXIBLE", -5]


def _retry(d: dict[str, Any]) -> None:
    d["target"]["retry_policy"] = [-100, 10**9]


CASES = [
    pytest.param(
        _meta("incarnations", 0),
        'table "schedules", field "incarnation"',
        id="incarnation-counter-0",
    ),
    pytest.param(
        _column("dead_letters", "attributes", ["ERROR_CODE"]),
        'Row 0 of the dump\'s table "dead_letters", field "attributes"',
        id="dead-letter-attributes-list",
    ),
    pytest.param(
        _definition(lambda d: d.update(state="BOGUS")),
        "Value 'BOGUS' at 'state' failed to satisfy constraint",
        id="state-bogus",
    ),
    pytest.param(
        _definition(_window),
        "'flexibleTimeWindow.maximumWindowInMinutes' failed to satisfy constraint",
        id="negative-flexible-window",
    ),
    pytest.param(
        _definition(_retry),
        "'target.retryPolicy.maximumEventAgeInSeconds' failed to satisfy constraint",
        id="retry-policy-out-of-range",
    ),
    pytest.param(
        _column("attempts", "attempted_at", 2**70),
        'Row 0 of the dump\'s table "attempts", field "attempted_at": '
        "1180591620717411303424 is out of range",
        id="integer-2**70",
    ),
    pytest.param(
        _meta("incarnations", 2**70),
        'table "meta"',
        id="counter-2**70",
    ),
    pytest.param(
        _meta("dropped", {"attempts": -1}),
        'table "meta", field "value"',
        id="dropped-negative",
    ),
    pytest.param(
        _column("occurrences", "status", "bogus"),
        'Row 0 of the dump\'s table "occurrences", field "status"',
        id="occurrence-status",
    ),
    pytest.param(
        _column("attempts", "attempt_number", 0),
        'Row 0 of the dump\'s table "attempts", field "attempt_number"',
        id="attempt-number-0",
    ),
    pytest.param(
        _column("occurrences", "nominal", "soon"),
        'Row 0 of the dump\'s table "occurrences", field "nominal": expected an integer',
        id="occurrence-type",
    ),
    pytest.param(
        _column("groups", "state", "GONE"),
        'Row 0 of the dump\'s table "groups"',
        id="group-state",
    ),
    pytest.param(
        _column("groups", "name", "no spaces allowed"),
        'Row 0 of the dump\'s table "groups"',
        id="group-name",
    ),
]


@pytest.mark.parametrize(("change", "message"), CASES)
def test_a_dump_the_service_could_not_have_written_is_refused(
    lives: Lives,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Change,
    message: str,
) -> None:
    busy_state(lives.open())
    document = export(lives.path, tmp_path / "dump.json")
    lives.close()
    lives.current = None
    changed = copy.deepcopy(document)
    change(changed["tables"])
    said = refused_import(changed, lives.path, tmp_path, capsys)
    assert message in said
    assert "Traceback" not in said
    assert len(lives.open().schedules()) == 2


def test_deeply_nested_json_is_refused_in_one_line(
    lives: Lives, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_schedemu.cli import main

    dump = tmp_path / "deep.json"
    dump.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["state", "import", str(dump), "--state", str(lives.path)]) == 1
    said = capsys.readouterr().err
    assert "is not JSON: JSON nested deeper than" in said
    assert said.count("\n") == 1
    assert not lives.path.exists()
