"""A scenario played once without a break, and again with a restart after every step:
everything a test can read must be the same, every step of the way.

The scenario touches every durable kind: groups (one left DELETING across a restart),
tags, schedules in two accounts and two regions, an idempotency token, the virtual clock,
flexible windows, retries, dead letters, an automatic deletion, disabled schedules and the
history. Target rules are not part of the state, so each step sets the ones it needs.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE, START
from tests.helpers import create
from tests.persistence.lives import Lives, records

Step = Callable[[Emulator], None]
OTHER_ACCOUNT = "111122223333"


def clients(emu: Emulator) -> tuple[Any, Any]:
    return emu.client(), emu.client(region_name="eu-west-1", aws_access_key_id=OTHER_ACCOUNT)


def prepare(emu: Emulator) -> None:
    client, elsewhere = clients(emu)
    client.create_schedule_group(Name="g1", Tags=[{"Key": "team", "Value": "a"}])
    client.create_schedule_group(Name="g2")
    client.tag_resource(
        ResourceArn="arn:aws:scheduler:us-east-1:123456789012:schedule-group/g1",
        Tags=[{"Key": "cost", "Value": "7"}],
    )
    create(client, "hourly", window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15})
    create(
        client,
        "failing",
        "rate(2 hours)",
        GroupName="g1",
        target={"Arn": FUNCTION, "RetryPolicy": {"MaximumRetryAttempts": 10}},
        ClientToken="token-1",
    )
    create(
        client,
        "once",
        "at(2026-03-01T11:00:00)",
        ActionAfterCompletion="DELETE",
        target={
            "Arn": FUNCTION,
            "Input": '{"n": <aws.scheduler.attempt-number>}',
            "DeadLetterConfig": {"Arn": DLQ},
            "RetryPolicy": {"MaximumEventAgeInSeconds": 400},
        },
    )
    create(client, "doomed", "rate(30 minutes)", GroupName="g2")
    create(
        elsewhere,
        "abroad",
        "cron(15 * * * ? *)",
        ScheduleExpressionTimezone="Europe/Paris",
        target={"Arn": "arn:aws:sqs:eu-west-1:111122223333:q"},
    )


def fail_function(emu: Emulator) -> None:
    emu.target(FUNCTION).fail(error_code="ThrottlingException")


def advance(**amount: float) -> Step:
    def step(emu: Emulator) -> None:
        fail_function(emu)
        emu.clock.advance(**amount)

    return step


def update_hourly(state: str) -> Step:
    def step(emu: Emulator) -> None:
        emu.client().update_schedule(
            Name="hourly",
            ScheduleExpression="rate(1 hour)",
            FlexibleTimeWindow={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
            State=state,
        )

    return step


def retry_the_token(emu: Emulator) -> None:
    # The same request with the same token answers as the first did, and creates nothing.
    answer = create(
        emu.client(),
        "failing",
        "rate(2 hours)",
        GroupName="g1",
        target={"Arn": FUNCTION, "RetryPolicy": {"MaximumRetryAttempts": 10}},
        ClientToken="token-1",
    )
    assert answer.endswith("schedule/g1/failing")


def describe_failing(emu: Emulator) -> None:
    # Any update cancels the retries the schedule has pending.
    emu.client().update_schedule(
        Name="failing",
        GroupName="g1",
        ScheduleExpression="rate(2 hours)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": FUNCTION, "RoleArn": ROLE, "RetryPolicy": {"MaximumRetryAttempts": 10}},
        Description="retried less",
    )


def delete_group(emu: Emulator) -> None:
    emu.client().delete_schedule_group(Name="g2")


def delete_abroad(emu: Emulator) -> None:
    clients(emu)[1].delete_schedule(Name="abroad")


STEPS: list[Step] = [
    prepare,
    advance(minutes=37),
    advance(minutes=63),
    retry_the_token,
    update_hourly("DISABLED"),
    advance(hours=2, seconds=30),
    update_hourly("ENABLED"),
    delete_group,
    advance(seconds=61),
    advance(hours=3),
    delete_abroad,
    describe_failing,
    advance(hours=5),
    advance(minutes=1),
]


def state_of(emu: Emulator) -> dict[str, Any]:
    client, elsewhere = clients(emu)
    found = records(emu)
    found["groups"] = [
        (g["Name"], g["State"], g["LastModificationDate"])
        for g in client.list_schedule_groups()["ScheduleGroups"]
    ]
    found["tags"] = client.list_tags_for_resource(
        ResourceArn="arn:aws:scheduler:us-east-1:123456789012:schedule-group/g1"
    )["Tags"]
    found["listed"] = [
        s["Arn"] for c in (client, elsewhere) for s in c.list_schedules()["Schedules"]
    ]
    return found


def twin_states() -> list[dict[str, Any]]:
    with Emulator(start=START, transport="inprocess", group_deletion_delay=120) as twin:
        states = []
        for step in STEPS:
            step(twin)
            states.append(state_of(twin))
        return states


@pytest.fixture(scope="module")
def uninterrupted() -> list[dict[str, Any]]:
    return twin_states()


@pytest.mark.parametrize("how", ["restart", "crash"])
def test_every_step_reads_the_same_after_a_restart(
    lives: Lives, uninterrupted: list[dict[str, Any]], how: str
) -> None:
    emu = lives.open(group_deletion_delay=120)
    for index, step in enumerate(STEPS):
        step(emu)
        emu = lives.restart() if how == "restart" else lives.crash()
        assert state_of(emu) == uninterrupted[index], f"after step {index} ({step.__name__})"


def test_the_scenario_exercises_every_durable_kind(uninterrupted: list[dict[str, Any]]) -> None:
    # Guards the comparison above from passing on a scenario that lost its substance.
    middle, last = uninterrupted[7], uninterrupted[-1]
    assert ("g2", "DELETING") in [group[:2] for group in middle["groups"]]
    assert "g2" not in [group[0] for group in last["groups"]]
    kinds = {activity.kind for activity in last["activity"]}
    assert {"dead_lettered", "auto_deleted", "group_removed", "cancelled"} <= kinds
    assert {a[3] for a in last["attempts"]} >= {1, 2, 3, 4}
    abroad = "arn:aws:scheduler:eu-west-1:111122223333:"
    assert any(a[0].startswith(abroad) for a in last["attempts"])
