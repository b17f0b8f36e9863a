"""``schedemu state export|import`` with EventBridge rules: they round-trip, and a dump whose
rules a service could not have written is refused by the API's own checks, changing
nothing."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.cli import main
from tests.constants import ACCOUNT, DLQ, FUNCTION
from tests.helpers import create
from tests.persistence.lives import Lives, records
from tests.persistence.test_dump import export, refused_import
from tests.rules.rulebook import PATTERN, stored_rules, target


def busy_rules(emu: Emulator) -> None:
    events = emu.client("events")
    events.put_rule(
        Name="r1", ScheduleExpression="rate(10 minutes)", Tags=[{"Key": "k", "Value": "v"}]
    )
    failing = target(
        "t2",
        FUNCTION,
        Input='{"caf\\u00e9": true}',
        RetryPolicy={"MaximumRetryAttempts": 2},
        DeadLetterConfig={"Arn": DLQ},
    )
    events.put_targets(Rule="r1", Targets=[target("t1"), failing])
    events.put_rule(Name="r2", EventPattern=PATTERN, State="DISABLED")
    events.put_targets(Rule="r2", Targets=[target("t1")])
    create(emu.client(), "beside")
    emu.target(FUNCTION).fail()
    emu.clock.advance(minutes=20)


def answers(emu: Emulator) -> dict[str, Any]:
    events = emu.client("events")
    return {
        "rules": stored_rules(emu),
        "listed": events.list_rules()["Rules"],
        "targets": events.list_targets_by_rule(Rule="r1")["Targets"],
        "records": records(emu),
        "pending": emu.pending(limit=1000),
    }


def test_an_export_with_rules_imported_elsewhere_serves_the_same_state(
    lives: Lives, tmp_path: Path
) -> None:
    emu = lives.open()
    busy_rules(emu)
    expected = answers(emu)
    document = export(lives.path, tmp_path / "dump.json")
    assert [row["name"] for row in document["tables"]["rules"]] == ["r1", "r2"]
    assert [row["target_id"] for row in document["tables"]["rule_plans"]] == ["t1", "t2"]
    r1 = document["tables"]["rules"][0]["definition"]
    assert r1["schedule_expression"] == "rate(10 minutes)" and r1["targets"][1]["id"] == "t2"
    lanes = [row["definition"] for row in document["tables"]["known"] if row["definition"]]
    assert [lane["target_id"] for lane in lanes] == ["t1", "t2"]
    imported = tmp_path / "copy.db"
    assert main(["state", "import", str(tmp_path / "dump.json"), "--state", str(imported)]) == 0
    with Emulator(transport="inprocess", state=str(imported)) as served:
        assert answers(served) == expected
        served.clock.advance(minutes=10)
        assert [a.target_id for a in served.attempts(rule="r1")][-2:] == ["t1", "t2"]


Change = Callable[[dict[str, Any]], None]


def rule_definition(document: dict[str, Any], name: str = "r1") -> dict[str, Any]:
    (row,) = [row for row in document["tables"]["rules"] if row["name"] == name]
    definition: dict[str, Any] = row["definition"]
    return definition


def raw_target(document: dict[str, Any], index: int = 1) -> dict[str, Any]:
    found: dict[str, Any] = rule_definition(document)["targets"][index]
    return found


def on_another_bus(document: dict[str, Any]) -> None:
    rule_definition(document)["event_bus_name"] = "orders"
    document["tables"]["rules"][0]["bus"] = "orders"


def schedules_incarnation(document: dict[str, Any]) -> None:
    (schedule,) = document["tables"]["schedules"]
    document["tables"]["rules"][0]["incarnation"] = schedule["incarnation"]
    rule_definition(document)  # the row still names its rule


def drop_plan(document: dict[str, Any]) -> None:
    del document["tables"]["rule_plans"][0]


def edit(path: str, value: Any) -> Change:
    def change(document: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        found: Any = document
        for key in parents:
            found = found[int(key)] if key.isdigit() else found[key]
        found[last] = value

    return change


def change_target(member: str, value: Any, raw: bool = False) -> Change:
    def change(document: dict[str, Any]) -> None:
        entry = raw_target(document)
        (entry["raw"] if raw else entry)[member] = value

    return change


def six_targets(document: dict[str, Any]) -> None:
    targets = rule_definition(document)["targets"]
    for number in range(3, 7):
        added = copy.deepcopy(targets[0])
        added["id"] = added["raw"]["Id"] = f"t{number}"
        targets.append(added)


def forget_a_lane(document: dict[str, Any]) -> None:
    (first, *_) = [row for row in document["tables"]["known"] if row["kind"] == "rule_target"]
    first["definition"] = None


def unknown_state(document: dict[str, Any]) -> None:
    rule_definition(document)["state"] = "PAUSED"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: rule_definition(d).update(schedule_expression="rate(0 minutes)"),
            'table "rules", field "definition": Parameter ScheduleExpression is not valid.',
        ),
        (
            on_another_bus,
            "ScheduleExpression is supported only on the default event bus.",
        ),
        (unknown_state, 'table "rules", field "definition": '),
        (
            change_target("Arn", "not-an-arn", raw=True),
            "target t2: Parameter not-an-arn is not valid. Reason: Provided Arn is not in "
            "correct format.",
        ),
        (
            change_target("input", '{"other": 1}'),
            "the rule's targets are not what PutTargets makes of them as sent (raw)",
        ),
        (six_targets, "The requested resource exceeds the maximum number allowed."),
        (drop_plan, "has no plan"),
        (forget_a_lane, 'table "known", field "definition": cannot be read'),
        (schedules_incarnation, 'table "rules", field "incarnation": '),
        (edit("tables.occurrences.0.fired", -1), "must be 0 or more (the fire number)"),
        (edit("tables.rule_plans.0.defined_at", "yesterday"), 'field "defined_at"'),
        (edit("tables.rule_plans.1.target_id", "t9"), "is not the target 't9'"),
    ],
)
def test_a_dump_with_a_rule_a_service_could_not_have_written_is_refused(
    lives: Lives,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Change,
    message: str,
) -> None:
    busy_rules(lives.open())
    document = export(lives.path, tmp_path / "dump.json")
    lives.close()
    lives.current = None
    change(document)
    assert message in refused_import(document, lives.path, tmp_path, capsys)
    assert {rule.name for rule in stored_rules(lives.open())} == {"r1", "r2"}


def test_the_api_refuses_a_rule_on_a_bus_the_emulator_does_not_have(
    lives: Lives, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    busy_rules(lives.open())
    document = export(lives.path, tmp_path / "dump.json")
    lives.close()
    lives.current = None
    definition = rule_definition(document, "r2")
    definition["event_bus_name"] = "orders"
    (row,) = [row for row in document["tables"]["rules"] if row["name"] == "r2"]
    row["bus"] = "orders"
    assert "Event bus orders does not exist." in refused_import(
        document, lives.path, tmp_path, capsys
    )
    assert f"arn:aws:events:us-east-1:{ACCOUNT}:rule/r1" in {
        rule.arn for rule in stored_rules(lives.open())
    }
