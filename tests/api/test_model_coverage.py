"""What the vendored model has that the emulator does not model yet.

Walks the service model the package ships: every member a schedule is created or updated
with must come back from GetSchedule, and every member of a Target must be one the
emulator stores and echoes. After a re-vendoring (``python -m tools.vendor``)
these tests name each member left to model.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu.model.resources import PARAMETER_BLOCKS
from tests.constants import DLQ, QUEUE, ROLE, T0
from tools.vendor import Layout

SHAPES: dict[str, Any] = json.loads(Layout.of_package().service.read_text())["shapes"]


def members(shape: str) -> list[str]:
    return sorted(SHAPES[shape]["members"])


#: Members of a schedule's input that are not part of the schedule, so not echoed.
NOT_ECHOED = {"ClientToken"}
#: A Target's members that every kind of target takes; the rest are parameter blocks.
BASIC_TARGET_MEMBERS = ("Arn", "RoleArn", "Input", "RetryPolicy", "DeadLetterConfig")
TARGET_BLOCKS = [member for member in members("Target") if member not in BASIC_TARGET_MEMBERS]

#: One valid value of each member of CreateScheduleInput, all together one valid schedule.
CREATED: dict[str, Any] = {
    "Name": "s1",
    "GroupName": "g",
    "ScheduleExpression": "cron(0 9 ? * MON-FRI *)",
    "ScheduleExpressionTimezone": "Europe/London",
    "StartDate": T0 + timedelta(hours=1),
    "EndDate": T0 + timedelta(days=30),
    "Description": "created",
    "State": "DISABLED",
    "KmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/abc",
    "ActionAfterCompletion": "DELETE",
    "FlexibleTimeWindow": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
    "Target": {
        "Arn": QUEUE,
        "RoleArn": ROLE,
        "Input": '{"hello": "world"}',
        "RetryPolicy": {"MaximumEventAgeInSeconds": 3600, "MaximumRetryAttempts": 3},
        "DeadLetterConfig": {"Arn": DLQ},
    },
    "ClientToken": "create-1",
}

#: The same schedule (its name and group) with every other member changed.
UPDATED: dict[str, Any] = {
    **CREATED,
    "ScheduleExpression": "rate(2 hours)",
    "ScheduleExpressionTimezone": "America/New_York",
    "StartDate": T0 + timedelta(hours=2),
    "EndDate": T0 + timedelta(days=60),
    "Description": "updated",
    "State": "ENABLED",
    "KmsKeyArn": "arn:aws:kms:us-east-1:123456789012:key/def",
    "ActionAfterCompletion": "NONE",
    "FlexibleTimeWindow": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 30},
    "Target": {
        "Arn": "arn:aws:sqs:us-east-1:123456789012:other",
        "RoleArn": "arn:aws:iam::123456789012:role/other",
        "Input": "updated",
        "RetryPolicy": {"MaximumEventAgeInSeconds": 7200, "MaximumRetryAttempts": 5},
        "DeadLetterConfig": {"Arn": "arn:aws:sqs:us-east-1:123456789012:other-dlq"},
    },
    "ClientToken": "update-1",
}

#: One valid Target for each parameter block: an ARN of the kind that takes the block, and
#: the block (the test adds the role).
BLOCK_EXAMPLES: dict[str, dict[str, Any]] = {
    "EcsParameters": {
        "Arn": "arn:aws:ecs:us-east-1:123456789012:cluster/c",
        "EcsParameters": {
            "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/t:1",
            "LaunchType": "EC2",
            "TaskCount": 2,
            "Group": "workers",
        },
    },
    "EventBridgeParameters": {
        "Arn": "arn:aws:events:us-east-1:123456789012:event-bus/orders",
        "EventBridgeParameters": {"Source": "app.orders", "DetailType": "OrderPlaced"},
        "Input": "{}",
    },
    "EventBridgePutEventsV2Parameters": {
        "Arn": "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno",
        "EventBridgePutEventsV2Parameters": {"Source": "app.orders", "DetailType": "OrderPlaced"},
        "Input": "{}",
    },
    "EventBridgePutRawEventsParameters": {
        "Arn": "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno",
        "EventBridgePutRawEventsParameters": {"Metadata": {"tenant": "t1"}},
        "Input": "{}",
    },
    "KinesisParameters": {
        "Arn": "arn:aws:kinesis:us-east-1:123456789012:stream/clicks",
        "KinesisParameters": {"PartitionKey": "user-1"},
    },
    "SageMakerPipelineParameters": {
        "Arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/train",
        "SageMakerPipelineParameters": {
            "PipelineParameterList": [{"Name": "epochs", "Value": "3"}]
        },
    },
    "SqsParameters": {
        "Arn": "arn:aws:sqs:us-east-1:123456789012:orders.fifo",
        "SqsParameters": {"MessageGroupId": "g1"},
    },
}


@pytest.mark.parametrize("shape", ["CreateScheduleInput", "UpdateScheduleInput"])
def test_what_a_schedule_is_set_with_is_what_get_schedule_returns(shape: str) -> None:
    returned = set(members("GetScheduleOutput"))
    missing = [m for m in members(shape) if m not in NOT_ECHOED and m not in returned]
    assert missing == [], f"{shape} members that GetScheduleOutput lacks: {missing}"


@pytest.mark.parametrize(
    ("shape", "example"),
    [("CreateScheduleInput", CREATED), ("UpdateScheduleInput", UPDATED)],
    ids=["create", "update"],
)
def test_every_member_of_a_schedule_has_an_example(shape: str, example: dict[str, Any]) -> None:
    for member in members(shape):
        if member not in example:
            pytest.fail(f"the model has {shape}.{member}: add an example and model it")
    assert sorted(example) == members(shape), "an example of a member the model does not have"


def echoed(sent: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The members of ``sent`` that ``got`` does not return as they were sent."""
    return [
        f"{member}: sent {value!r}, got {got.get(member)!r}"
        for member, value in sent.items()
        if member not in NOT_ECHOED and got.get(member) != value
    ]


def test_create_schedule_echoes_every_member(client: Any) -> None:
    client.create_schedule_group(Name="g")
    client.create_schedule(**CREATED)
    assert echoed(CREATED, client.get_schedule(Name="s1", GroupName="g")) == []


def test_update_schedule_echoes_every_member(client: Any) -> None:
    client.create_schedule_group(Name="g")
    client.create_schedule(**CREATED)
    client.update_schedule(**UPDATED)
    assert echoed(UPDATED, client.get_schedule(Name="s1", GroupName="g")) == []


@pytest.mark.parametrize("member", members("Target"))
def test_every_target_member_is_stored_and_echoed(member: str) -> None:
    assert member in BASIC_TARGET_MEMBERS or member in PARAMETER_BLOCKS, (
        f"the model has Target.{member}, which the emulator neither stores nor echoes: "
        "add it to pytest_schedemu.model.resources.PARAMETER_BLOCKS and model it"
    )


def test_the_parameter_blocks_the_emulator_knows_are_the_models() -> None:
    assert set(PARAMETER_BLOCKS) <= set(TARGET_BLOCKS)
    assert set(BLOCK_EXAMPLES) <= set(TARGET_BLOCKS), "an example of a block the model lacks"


@pytest.mark.parametrize("block", TARGET_BLOCKS)
def test_a_parameter_block_comes_back_exactly_as_sent(client: Any, block: str) -> None:
    if block not in BLOCK_EXAMPLES:
        pytest.fail(f"the model has Target.{block}: add an example and model it")
    target = {**BLOCK_EXAMPLES[block], "RoleArn": ROLE}
    client.create_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target=target,
    )
    got = client.get_schedule(Name="s1")["Target"]
    assert got.get(block) == target[block], f"Target.{block} was not echoed as sent"
    assert {member: got[member] for member in got if member != "RetryPolicy"} == target
