"""EventBridge rules across a restart: a scenario played once without a break, and again
with a restart (or a crash) after every step, must read the same every step of the way;
and each thing a rule keeps, shown on its own.

The scenario touches what a rule keeps: its definition, state and tags, targets added and
removed (one FIFO queue with its parameters, one failing function with retries and a
dead-letter queue), rate() and cron() phases, a new expression, DisableRule and EnableRule,
a rule with only an event pattern, DeleteRule with Force, and a schedule beside them.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any, Callable

import pytest

from pytest_schedemu import Emulator
from tests.constants import ACCOUNT, DLQ, FUNCTION, START
from tests.helpers import create
from tests.persistence.lives import Lives, records
from tests.rules.rulebook import PATTERN, stored_rules, target, without_metadata

Step = Callable[[Emulator], None]
FIFO = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders.fifo"
R1 = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/r1"


def failing_target(target_id: str = "t2") -> dict[str, Any]:
    return target(
        target_id,
        FUNCTION,
        RetryPolicy={"MaximumRetryAttempts": 4, "MaximumEventAgeInSeconds": 3600},
        DeadLetterConfig={"Arn": DLQ},
        InputTransformer={
            "InputPathsMap": {"when": "$.time"},
            "InputTemplate": '{"at": <when>, "rule": <aws.events.rule-name>}',
        },
    )


def prepare(emu: Emulator) -> None:
    events = emu.client("events")
    events.put_rule(
        Name="r1",
        ScheduleExpression="rate(10 minutes)",
        Description="every ten minutes",
        Tags=[{"Key": "team", "Value": "a"}],
    )
    events.put_targets(Rule="r1", Targets=[target("t1"), failing_target()])
    events.put_rule(Name="r2", ScheduleExpression="cron(15 * * * ? *)")
    events.put_targets(Rule="r2", Targets=[target("only", Input='{"fixed": true}')])
    events.put_rule(Name="r3", EventPattern=PATTERN)
    events.put_targets(Rule="r3", Targets=[target("never")])
    create(emu.client(), "beside", "rate(30 minutes)")


def advance(**amount: float) -> Step:
    def step(emu: Emulator) -> None:
        # Target rules are a test's set-up, not state: each step sets the ones it needs.
        emu.target(FUNCTION).fail(error_code="ThrottlingException")
        emu.clock.advance(**amount)

    return step


def call(operation: str, **arguments: Any) -> Step:
    def step(emu: Emulator) -> None:
        getattr(emu.client("events"), operation)(**arguments)

    step.__name__ = operation
    return step


STEPS: list[Step] = [
    prepare,
    advance(minutes=25, seconds=30),
    call("disable_rule", Name="r2"),
    advance(hours=1),
    call(
        "put_targets",
        Rule="r1",
        Targets=[target("t3", FIFO, SqsParameters={"MessageGroupId": "g"})],
    ),
    advance(minutes=4, seconds=30),  # at 11:30, t2's first attempt failed: a retry pends
    call("enable_rule", Name="r2"),
    call("remove_targets", Rule="r1", Ids=["t2"]),
    advance(minutes=50),
    call("put_rule", Name="r1", ScheduleExpression="rate(1 hour)"),
    call("tag_resource", ResourceARN=R1, Tags=[{"Key": "cost", "Value": "7"}]),
    call("untag_resource", ResourceARN=R1, TagKeys=["team"]),
    advance(hours=2, minutes=3),
    call("put_targets", Rule="r1", Targets=[failing_target("t4")]),
    advance(minutes=65),
    # AWS refuses to delete a rule that has targets, Force or not: they go first.
    call("remove_targets", Rule="r2", Ids=["only"]),
    call("delete_rule", Name="r2"),
    advance(hours=1),
]


def state_of(emu: Emulator) -> dict[str, Any]:
    events = emu.client("events")
    found = records(emu)
    names = [rule["Name"] for rule in events.list_rules()["Rules"]]
    found["rules"] = stored_rules(emu)
    found["answers"] = {
        name: (
            without_metadata(events.describe_rule(Name=name)),
            events.list_targets_by_rule(Rule=name)["Targets"],
            events.list_tags_for_resource(ResourceARN=f"{R1[:-2]}{name}")["Tags"],
        )
        for name in names
    }
    found["pending"] = emu.pending(limit=1000)
    found["timeline"] = emu.timeline_svg()
    return found


@pytest.fixture(scope="module")
def uninterrupted() -> list[dict[str, Any]]:
    with Emulator(start=START, transport="inprocess") as twin:
        states = []
        for step in STEPS:
            step(twin)
            states.append(state_of(twin))
        return states


@pytest.mark.parametrize("how", ["restart", "crash"])
def test_every_step_of_a_rule_reads_the_same_after_a_restart(
    lives: Lives, uninterrupted: list[dict[str, Any]], how: str
) -> None:
    emu = lives.open()
    for index, step in enumerate(STEPS):
        step(emu)
        emu = lives.restart() if how == "restart" else lives.crash()
        assert state_of(emu) == uninterrupted[index], f"after step {index} ({step.__name__})"


def test_the_rule_scenario_exercises_what_a_rule_keeps(
    uninterrupted: list[dict[str, Any]],
) -> None:
    # Guards the comparison above from passing on a scenario that lost its substance.
    last = uninterrupted[-1]
    # An attempt as records() has it: its schedule ARN first, its number fourth, its source,
    # rule ARN, name and target last.
    by_rule = {a[-3] for a in last["attempts"]}
    assert by_rule == {None, R1, R1.replace("r1", "r2")}
    # A rule target's attempts name no schedule, a schedule's no rule.
    assert {(a[0] is None, a[-4], a[-3] is None) for a in last["attempts"]} == {
        (False, "schedule", True),
        (True, "rule", False),
    }
    targets = {(a[-2], a[-1]) for a in last["attempts"] if a[-2] is not None}
    assert targets == {("r1", "t1"), ("r1", "t2"), ("r1", "t3"), ("r1", "t4"), ("r2", "only")}
    assert {a[3] for a in last["attempts"] if a[-1] == "t2"} == {1, 2, 3, 4, 5}
    kinds = {(a.kind, a.detail) for a in last["activity"] if a.rule_arn is not None}
    assert {("dead_lettered", DLQ), ("cancelled", "target_removed")} <= kinds
    assert ("deleted", "target_removed") in kinds
    assert any(letter.rule_arn == R1 for letter in last["dead_letters"])
    assert [name for name in last["answers"]] == ["r1", "r3"]
    assert any(work.rule_arn == R1 for work in last["pending"])


def test_a_rule_and_its_targets_survive_a_restart(lives: Lives) -> None:
    emu = lives.open()
    prepare(emu)
    before = state_of(emu)
    emu = lives.restart()
    assert state_of(emu) == before
    assert {rule.name for rule in stored_rules(emu)} == {"r1", "r2", "r3"}
    emu.clock.advance(minutes=10)
    assert [(a.target_id, a.attempt_number) for a in emu.attempts(rule="r1")] == [
        ("t1", 1),
        ("t2", 1),
    ]


def fires(emu: Emulator, rule: str = "r1") -> list[str]:
    return [f"{a.scheduled_time:%H:%M:%S}" for a in emu.attempts(rule=rule)]


def test_a_rule_keeps_its_phase_across_a_restart(lives: Lives) -> None:
    emu = lives.open()
    emu.clock.advance(seconds=30)
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(7 minutes)")
    events.put_targets(Rule="r1", Targets=[target("t1")])
    emu.clock.advance(minutes=10)
    # A target added later keeps the rule's phase, from its next instant on.
    events.put_targets(Rule="r1", Targets=[target("t2", FUNCTION)])
    emu = lives.restart()
    emu.clock.advance(minutes=10)
    assert [(f"{a.scheduled_time:%H:%M:%S}", a.target_id) for a in emu.attempts(rule="r1")] == [
        ("10:07:30", "t1"),
        ("10:14:30", "t1"),
        ("10:14:30", "t2"),
    ]


def test_a_rule_that_has_not_fired_yet_keeps_its_phase_across_a_restart(lives: Lives) -> None:
    emu = lives.open()
    emu.clock.advance(minutes=3, seconds=20)
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r1", Targets=[target("t1")])
    emu = lives.crash()
    emu.clock.advance(hours=2)
    assert fires(emu) == ["11:03:20", "12:03:20"]


def test_a_disabled_rule_stays_disabled(lives: Lives) -> None:
    emu = lives.open()
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r1", Targets=[target("t1")])
    emu.clock.advance(minutes=30)
    events.disable_rule(Name="r1")
    emu = lives.restart()
    events = emu.client("events")
    assert events.describe_rule(Name="r1")["State"] == "DISABLED"
    emu.clock.advance(hours=3)
    assert fires(emu) == []
    # Enabled again after the restart, its rate() counts from then.
    events.enable_rule(Name="r1")
    emu.clock.advance(hours=1)
    assert fires(emu) == ["14:30:00"]


def test_a_deleted_rule_stays_deleted(lives: Lives) -> None:
    emu = lives.open()
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r1", Targets=[target("t1"), target("t2", FUNCTION)])
    events.put_rule(Name="r2", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r2", Targets=[target("t1"), target("t2", FUNCTION)])
    emu.clock.advance(hours=1)
    events.remove_targets(Rule="r1", Ids=["t1", "t2"])
    events.delete_rule(Name="r1")
    events.remove_targets(Rule="r2", Ids=["t2"])
    emu = lives.restart()
    events = emu.client("events")
    with pytest.raises(events.exceptions.ResourceNotFoundException):
        events.describe_rule(Name="r1")
    assert [rule["Name"] for rule in events.list_rules()["Rules"]] == ["r2"]
    assert [t["Id"] for t in events.list_targets_by_rule(Rule="r2")["Targets"]] == ["t1"]
    emu.clock.advance(hours=2)
    # The deleted rule's records are still known to lookups; nothing of it fires again.
    assert fires(emu, "r1") == ["11:00:00", "11:00:00"]
    assert [(a.target_id, f"{a.scheduled_time:%H}") for a in emu.attempts(rule="r2")] == [
        ("t1", "11"),
        ("t2", "11"),
        ("t1", "12"),
        ("t1", "13"),
    ]
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        assert database.execute("SELECT name FROM rules").fetchall() == [("r2",)]
        assert database.execute("SELECT target_id FROM rule_plans").fetchall() == [("t1",)]


def test_the_records_of_a_rule_read_back_equal(lives: Lives) -> None:
    emu = lives.open()
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(5 minutes)")
    events.put_targets(Rule="r1", Targets=[target("t1"), failing_target()])
    emu.target(FUNCTION).fail(error_code="AccessDeniedException", retryable=False)
    emu.clock.advance(minutes=5)
    written = (
        emu.attempts(),
        emu.executions(rule="r1"),
        emu.dead_letters(),
        emu.activity(),
        emu.pending(rule="r1"),
    )
    emu = lives.crash()
    read = (
        emu.attempts(),
        emu.executions(rule="r1"),
        emu.dead_letters(),
        emu.activity(),
        emu.pending(rule="r1"),
    )
    assert read == written
    attempt = read[0][-1]
    assert (attempt.rule_arn, attempt.rule_name, attempt.target_id) == (R1, "r1", "t2")
    (letter,) = read[2]
    assert letter.attributes["RULE_ARN"] == R1 and letter.target_id == "t2"
    # The targets of one occurrence share its event, so its id, read back too.
    assert len({execution.event_id for execution in read[1]}) == 1
    assert [execution.event_id for execution in read[1]] == [
        execution.event_id for execution in written[1]
    ]
