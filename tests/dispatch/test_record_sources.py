"""Records say what made them: a schedule's name it (``schedule_arn``) and no rule, a rule
target's name its rule and its id and no schedule, and every one says which (``source``),
in memory, through the control API, and read back from a state file after a restart."""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import DispatchLimitExceeded, Emulator
from tests.constants import ACCOUNT, DLQ, FUNCTION, START
from tests.helpers import create
from tests.persistence.lives import Lives
from tests.rules.rulebook import target

NIGHTLY = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"
DAILY = f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule/default/daily"
FAILING = {"RetryPolicy": {"MaximumRetryAttempts": 0}, "DeadLetterConfig": {"Arn": DLQ}}
RULE_FIELDS = {"source": "rule", "schedule_arn": None, "rule_arn": NIGHTLY}
SCHEDULE_FIELDS = {"source": "schedule", "schedule_arn": DAILY, "rule_arn": None}


def play(emu: Emulator) -> None:
    """A rule's target and a schedule, both failing once into the dead-letter queue."""
    events = emu.client("events")
    events.put_rule(Name="nightly", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="nightly", Targets=[target("q", FUNCTION, **FAILING)])
    create(emu.client(), "daily", "cron(0 11 * * ? *)", target={"Arn": FUNCTION, **FAILING})
    emu.target(FUNCTION).fail()
    emu.clock.advance(hours=1, minutes=1)


def made_by(record: Any) -> dict[str, Any]:
    """What a record (or its JSON) says made it."""
    names = ("source", "schedule_arn", "rule_arn", "rule_name", "target_id")
    if isinstance(record, dict):
        return {name: record[name] for name in names}
    return {name: getattr(record, name) for name in names}


def of_rule(**fields: Any) -> dict[str, Any]:
    return {**RULE_FIELDS, "rule_name": "nightly", "target_id": "q", **fields}


def of_schedule(**fields: Any) -> dict[str, Any]:
    return {**SCHEDULE_FIELDS, "rule_name": None, "target_id": None, **fields}


def test_a_rule_targets_records_name_its_rule_and_no_schedule(emu: Emulator) -> None:
    play(emu)
    [attempt] = emu.attempts(rule="nightly")
    assert made_by(attempt) == of_rule()
    assert (attempt.group_name, attempt.schedule_name) == ("", "")
    [letter] = emu.dead_letters(DLQ, rule="nightly")
    assert made_by(letter) == of_rule()
    assert letter.attributes["RULE_ARN"] == NIGHTLY
    [execution] = emu.executions(rule="nightly")
    assert made_by(execution) == of_rule()
    created, lettered = (
        [a for a in emu.activity(kind) if a.source == "rule"]
        for kind in ("created", "dead_lettered")
    )
    assert [made_by(a) for a in created + lettered] == [of_rule(), of_rule()]
    [work] = emu.pending(rule="nightly")
    assert made_by(work) == of_rule()


def test_a_schedules_records_name_it_and_no_rule(emu: Emulator) -> None:
    play(emu)
    [attempt] = emu.attempts(schedule="daily")
    assert made_by(attempt) == of_schedule()
    [letter] = emu.dead_letters(DLQ, schedule="daily")
    assert made_by(letter) == of_schedule()
    assert letter.attributes["SCHEDULE_ARN"] == DAILY
    [execution] = emu.executions("daily")
    assert made_by(execution) == of_schedule()
    assert [made_by(a) for a in emu.activity("created") if a.source == "schedule"] == [
        of_schedule()
    ]


def test_filters_keep_a_schedules_and_a_rules_records_apart(emu: Emulator) -> None:
    play(emu)
    assert {a.source for a in emu.attempts()} == {"rule", "schedule"}
    assert {a.source for a in emu.attempts(group="default")} == {"schedule"}
    assert {d.source for d in emu.dead_letters(schedule=DAILY)} == {"schedule"}
    assert {d.source for d in emu.dead_letters(rule=NIGHTLY)} == {"rule"}
    assert {d.source for d in emu.deliveries()} == set()  # both failed
    emu.assert_dead_lettered(DLQ, count=1, rule="nightly")
    emu.assert_dead_lettered(DLQ, count=1, schedule="daily")


def test_a_runaway_move_names_the_rule_target() -> None:
    with Emulator(start=START, max_attempts_per_advance=5, transport="inprocess") as emu:
        events = emu.client("events")
        events.put_rule(Name="nightly", ScheduleExpression="rate(1 minute)")
        events.put_targets(Rule="nightly", Targets=[target("q")])
        with pytest.raises(DispatchLimitExceeded) as raised:
            emu.clock.advance(hours=1)
    assert "rule nightly → q (6 attempts)" in str(raised.value)


def test_the_control_api_says_what_made_each_record() -> None:
    with Emulator(start=START, transport="http") as emu:
        play(emu)

        def get(route: str) -> Any:
            with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/{route}") as answer:
                return json.loads(answer.read())

        attempts = get("attempts")["attempts"]
        assert sorted(map(made_by, attempts), key=str) == sorted(
            [of_rule(), of_schedule()], key=str
        )
        [letter] = get("dead-letters?rule=nightly")["dead_letters"]
        assert made_by(letter) == of_rule()
        [execution] = get("executions?rule=nightly")["executions"]
        assert made_by(execution) == of_rule()
        [execution] = get("executions?schedule=daily")["executions"]
        assert made_by(execution) == of_schedule()
        created = get("activity?kind=created")["activity"]
        assert sorted(a["source"] for a in created) == ["rule", "schedule"]


def test_a_restart_reads_back_what_made_each_record(tmp_path: Path) -> None:
    lives = Lives(tmp_path / "state.db")
    try:
        play(lives.open())
        emu = lives.restart()
        assert emu.clock.now() == datetime(2026, 3, 1, 11, 1, tzinfo=timezone.utc)
        assert [made_by(a) for a in emu.attempts(rule="nightly")] == [of_rule()]
        assert [made_by(d) for d in emu.dead_letters(rule="nightly")] == [of_rule()]
        assert [made_by(e) for e in emu.executions(rule="nightly")] == [of_rule()]
        assert [made_by(e) for e in emu.executions("daily")] == [of_schedule()]
        lettered = emu.activity("dead_lettered")
        assert sorted(a.source for a in lettered) == ["rule", "schedule"]
    finally:
        lives.close()
