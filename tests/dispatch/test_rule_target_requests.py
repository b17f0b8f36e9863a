"""The request each rule target's attempt sends: Scheduler's per-service requests where the
service is the same, EventBridge's where it differs (Kinesis's partition key, an event bus,
ECS's parameters)."""

from __future__ import annotations

import base64
import json
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import FUNCTION
from tests.helpers import put_rule, rule_target

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"
ACCOUNT = "arn:aws:{service}:us-east-1:123456789012:{resource}"


def arn(service: str, resource: str) -> str:
    return ACCOUNT.format(service=service, resource=resource)


def first_request(emu: Emulator, target: Any) -> Any:
    put_rule(emu, "nightly", "rate(1 hour)", target)
    [attempt] = emu.clock.advance(hours=1)
    assert attempt.succeeded
    return attempt


def test_a_fifo_queue_gets_the_message_group_of_its_sqs_parameters(emu: Emulator) -> None:
    queue = arn("sqs", "orders.fifo")
    attempt = first_request(emu, rule_target("q", queue, SqsParameters={"MessageGroupId": "g1"}))
    assert attempt.request == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo",
        "MessageBody": attempt.input,
        "MessageGroupId": "g1",
    }


def test_lambda_sns_and_step_functions_get_scheduler_shaped_requests(emu: Emulator) -> None:
    topic, machine = arn("sns", "alerts"), arn("states", "stateMachine:flow")
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("f", FUNCTION),
        rule_target("t", topic),
        rule_target("m", machine, Input='{"go": true}'),
    )
    function, sns, states = emu.clock.advance(hours=1)
    assert function.request == {
        "FunctionName": FUNCTION,
        "InvocationType": "Event",
        "Payload": function.input,
    }
    assert sns.request == {"TopicArn": topic, "Message": sns.input}
    assert states.request == {"stateMachineArn": machine, "input": '{"go": true}'}


def test_kinesis_is_keyed_by_the_event_id_unless_a_path_says(emu: Emulator) -> None:
    stream = arn("kinesis", "stream/clicks")
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("k1", stream),
        rule_target("k2", stream, KinesisParameters={"PartitionKeyPath": "$.region"}),
    )
    default, chosen = emu.clock.advance(hours=1)
    assert default.request["PartitionKey"] == default.event_id
    assert chosen.request["PartitionKey"] == "us-east-1"
    assert chosen.request["StreamARN"] == stream
    assert base64.b64decode(chosen.request["Data"]).decode() == chosen.input


def test_an_event_bus_is_sent_the_scheduled_event(emu: Emulator) -> None:
    bus = arn("events", "event-bus/audit")
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("b", bus),
        rule_target("c", bus, Input='{"custom": 1}'),
    )
    plain, custom = emu.clock.advance(hours=1)
    assert plain.request == {
        "Entries": [
            {
                "Source": "aws.events",
                "DetailType": "Scheduled Event",
                "Detail": "{}",
                "EventBusName": bus,
                "Resources": [RULE],
            }
        ]
    }
    assert custom.request["Entries"][0]["Detail"] == '{"custom": 1}'


def test_ecs_runs_its_task_with_eventbridges_parameters(emu: Emulator) -> None:
    cluster = arn("ecs", "cluster/jobs")
    block = {
        "TaskDefinitionArn": arn("ecs", "task-definition/nightly:3"),
        "TaskCount": 2,
        "LaunchType": "FARGATE",
        "NetworkConfiguration": {
            "awsvpcConfiguration": {"Subnets": ["subnet-1"], "AssignPublicIp": "DISABLED"}
        },
        "Tags": [{"Key": "team", "Value": "data"}],
    }
    overrides = '{"containerOverrides": [{"name": "app", "command": ["run"]}]}'
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("plain", cluster, EcsParameters=block),
        rule_target("over", cluster, Input=overrides, EcsParameters=block),
    )
    plain, over = emu.clock.advance(hours=1)
    assert plain.request == {
        "cluster": cluster,
        "taskDefinition": block["TaskDefinitionArn"],
        "count": 2,
        "launchType": "FARGATE",
        "networkConfiguration": {
            "awsvpcConfiguration": {"subnets": ["subnet-1"], "assignPublicIp": "DISABLED"}
        },
        "tags": [{"key": "team", "value": "data"}],
    }
    # The scheduled event is never RunTask's: without an input of its own nothing is sent.
    assert plain.input is None
    assert over.request["overrides"] == json.loads(overrides)


def test_firehose_and_codebuild_get_scheduler_shaped_requests(emu: Emulator) -> None:
    stream, project = arn("firehose", "deliverystream/logs"), arn("codebuild", "project/build")
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("h", stream),
        rule_target("b", project, Input='{"sourceVersion": "main"}'),
    )
    firehose, codebuild = emu.clock.advance(hours=1)
    assert firehose.request["DeliveryStreamName"] == "logs"
    assert base64.b64decode(firehose.request["Record"]["Data"]).decode() == firehose.input
    assert codebuild.request == {"projectName": "build", "sourceVersion": "main"}


def test_a_target_of_no_known_api_is_recorded_as_a_generic_request(emu: Emulator) -> None:
    group = arn("logs", "log-group:/aws/events/nightly")
    attempt = first_request(emu, rule_target("l", group, InputPath="$.time"))
    assert attempt.request == {"TargetArn": group, "Input": '"2026-03-01T11:00:00Z"'}
