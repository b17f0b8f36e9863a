"""What each target kind receives: payloads, default events, context attributes, requests."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import FUNCTION, QUEUE, ROLE, SCHEDULE_ARN
from tests.helpers import create

AT = "at(2030-01-01T00:00:00)"


def only_attempt(emu: Emulator) -> Any:
    emu.clock.move_to("2030-01-01T00:00:00Z")
    (attempt,) = emu.attempts()
    return attempt


def test_default_event_when_input_is_absent(emu: Emulator, client: Any) -> None:
    create(client, expression=AT, target={"Arn": FUNCTION})
    attempt = only_attempt(emu)
    assert attempt.input == (
        '{"version":"0","id":"3cbed432-1adb-59b0-8fb9-615f20b69f61",'
        '"detail-type":"Scheduled Event","source":"aws.scheduler",'
        '"account":"123456789012","time":"2030-01-01T00:00:00Z","region":"us-east-1",'
        f'"resources":["{SCHEDULE_ARN}"],"detail":"{{}}"}}'
    )
    assert attempt.payload["detail"] == "{}"
    assert attempt.request == {
        "FunctionName": FUNCTION,
        "InvocationType": "Event",
        "Payload": attempt.input,
    }


def test_ids_match_the_vectors(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail(times=2)
    create(client, expression=AT, target={"Arn": FUNCTION})
    emu.clock.move_to("2030-01-02T00:00:00Z")
    attempts = emu.attempts()
    assert {a.event_id for a in attempts} == {"3cbed432-1adb-59b0-8fb9-615f20b69f61"}
    assert [a.execution_id for a in attempts] == [
        "e8eae1163291d0ea",
        "f98d39ab5964fb9c",
        "ad7ee5f20f63297f",
    ]


def test_context_attributes_are_substituted_per_attempt(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail(times=1)
    text = (
        '{"arn": "<aws.scheduler.schedule-arn>", "at": "<aws.scheduler.scheduled-time>", '
        '"id": "<aws.scheduler.execution-id>", "n": <aws.scheduler.attempt-number>, '
        '"other": "<aws.scheduler.unknown>"}'
    )
    create(client, expression=AT, target={"Arn": FUNCTION, "Input": text})
    emu.clock.move_to("2030-01-01T00:05:00Z")
    first, second = emu.attempts()
    assert second.payload == {
        "arn": SCHEDULE_ARN,
        "at": "2030-01-01T00:00:00Z",
        "id": "f98d39ab5964fb9c",
        "n": 2,
        "other": "<aws.scheduler.unknown>",
    }
    assert first.payload["n"] == 1


def test_sqs_standard_request(emu: Emulator, client: Any) -> None:
    create(client, expression=AT, target={"Input": "hello"})
    attempt = only_attempt(emu)
    assert attempt.input == "hello"
    assert attempt.payload is None
    assert attempt.request == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/queue",
        "MessageBody": "hello",
    }


def test_sqs_fifo_request_carries_the_message_group(emu: Emulator, client: Any) -> None:
    fifo = "arn:aws:sqs:us-east-1:123456789012:jobs.fifo"
    create(
        client,
        expression=AT,
        target={"Arn": fifo, "Input": "x", "SqsParameters": {"MessageGroupId": "g1"}},
    )
    assert only_attempt(emu).request == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo",
        "MessageBody": "x",
        "MessageGroupId": "g1",
    }


def test_queue_url_template_points_at_a_local_endpoint() -> None:
    with Emulator(
        start="2026-03-01T10:00:00Z",
        transport="inprocess",
        sqs_queue_url_template="http://127.0.0.1:5000/{account}/{name}",
    ) as emu:
        create(emu.client(), expression="rate(1 hour)", target={"Input": "x"})
        (attempt,) = emu.clock.tick()
        assert attempt.request["QueueUrl"] == "http://127.0.0.1:5000/123456789012/queue"


def test_sns_request(emu: Emulator, client: Any) -> None:
    topic = "arn:aws:sns:us-east-1:123456789012:alerts"
    create(client, expression=AT, target={"Arn": topic, "Input": "ping"})
    assert only_attempt(emu).request == {"TopicArn": topic, "Message": "ping"}


def test_step_functions_request(emu: Emulator, client: Any) -> None:
    machine = "arn:aws:states:us-east-1:123456789012:stateMachine:flow"
    create(client, expression=AT, target={"Arn": machine, "Input": '{"a":1}'})
    assert only_attempt(emu).request == {"stateMachineArn": machine, "input": '{"a":1}'}


def test_eventbridge_request(emu: Emulator, client: Any) -> None:
    bus = "arn:aws:events:us-east-1:123456789012:event-bus/default"
    create(
        client,
        expression=AT,
        target={
            "Arn": bus,
            "Input": '{"k":"v"}',
            "EventBridgeParameters": {"DetailType": "Reminder", "Source": "my.app"},
        },
    )
    assert only_attempt(emu).request == {
        "Entries": [
            {
                "Source": "my.app",
                "DetailType": "Reminder",
                "Detail": '{"k":"v"}',
                "EventBusName": bus,
                "Resources": [SCHEDULE_ARN],
            }
        ]
    }


def test_kinesis_request_base64_encodes_the_payload(emu: Emulator, client: Any) -> None:
    stream = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks"
    create(
        client,
        expression=AT,
        target={"Arn": stream, "Input": "é", "KinesisParameters": {"PartitionKey": "p"}},
    )
    request = only_attempt(emu).request
    assert request == {
        "StreamARN": stream,
        "PartitionKey": "p",
        "Data": base64.b64encode("é".encode()).decode(),
    }


def test_ecs_request(emu: Emulator, client: Any) -> None:
    cluster = "arn:aws:ecs:us-east-1:123456789012:cluster/main"
    task = "arn:aws:ecs:us-east-1:123456789012:task-definition/job:3"
    ecs: dict[str, Any] = {
        "TaskDefinitionArn": task,
        "LaunchType": "FARGATE",
        "NetworkConfiguration": {
            "awsvpcConfiguration": {"Subnets": ["subnet-1"], "AssignPublicIp": "DISABLED"}
        },
        "Tags": [{"team": "a", "env": "test"}],
    }
    create(
        client,
        expression=AT,
        target={"Arn": cluster, "Input": '{"containerOverrides": []}', "EcsParameters": ecs},
    )
    assert only_attempt(emu).request == {
        "cluster": cluster,
        "taskDefinition": task,
        "count": 1,
        "launchType": "FARGATE",
        "networkConfiguration": {
            "awsvpcConfiguration": {"subnets": ["subnet-1"], "assignPublicIp": "DISABLED"}
        },
        "tags": [{"key": "team", "value": "a"}, {"key": "env", "value": "test"}],
        "overrides": {"containerOverrides": []},
    }


def test_ecs_strategy_and_placement_keys_come_in_run_task_order(emu: Emulator, client: Any) -> None:
    ecs: dict[str, Any] = {
        "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/job:3",
        "CapacityProviderStrategy": [{"weight": 1, "base": 0, "capacityProvider": "cp"}],
        "PlacementConstraints": [{"expression": "attribute:x == y", "type": "memberOf"}],
        "PlacementStrategy": [{"field": "instanceId", "type": "spread"}],
    }
    create(
        client,
        expression=AT,
        target={"Arn": "arn:aws:ecs:us-east-1:123456789012:cluster/main", "EcsParameters": ecs},
    )
    text = only_attempt(emu).request_text
    assert '"capacityProviderStrategy":[{"capacityProvider":"cp","base":0,"weight":1}]' in text
    assert '"placementConstraints":[{"type":"memberOf","expression":"attribute:x == y"}]' in text
    assert '"placementStrategy":[{"type":"spread","field":"instanceId"}]' in text


def test_sagemaker_request_ignores_the_payload(emu: Emulator, client: Any) -> None:
    pipeline = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/train"
    create(
        client,
        expression=AT,
        target={
            "Arn": pipeline,
            "SageMakerPipelineParameters": {
                "PipelineParameterList": [{"Name": "epochs", "Value": "3"}]
            },
        },
    )
    assert only_attempt(emu).request == {
        "PipelineName": "train",
        "PipelineParameters": [{"Name": "epochs", "Value": "3"}],
    }


def test_universal_target_request_is_the_substituted_input(emu: Emulator, client: Any) -> None:
    universal = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"
    text = (
        '{"QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/q", '
        '"MessageBody": "<aws.scheduler.scheduled-time>"}'
    )
    create(client, expression=AT, target={"Arn": universal, "Input": text})
    attempt = only_attempt(emu)
    assert attempt.request == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/q",
        "MessageBody": "2030-01-01T00:00:00Z",
    }
    assert attempt.input == text.replace("<aws.scheduler.scheduled-time>", "2030-01-01T00:00:00Z")


def test_universal_target_can_be_steered_by_service_action(emu: Emulator, client: Any) -> None:
    universal = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"
    emu.target("sqs:sendMessage").fail(times=1, error_code="ThrottlingException")
    create(client, expression=AT, target={"Arn": universal, "Input": "{}"})
    emu.clock.move_to("2030-01-01T00:05:00Z")
    assert [a.succeeded for a in emu.attempts()] == [False, True]
    assert emu.target("sqs:sendMessage").call_count == 2


def test_generic_target_is_recorded(emu: Emulator, client: Any) -> None:
    other = "arn:aws:iot:us-east-1:123456789012:thing/t"
    create(client, expression=AT, target={"Arn": other, "Input": "x"})
    assert only_attempt(emu).request == {"TargetArn": other, "Input": "x"}


def test_attempt_record_fields(emu: Emulator, client: Any) -> None:
    create(client, expression=AT, target={"Input": "x"})
    attempt = only_attempt(emu)
    assert attempt.schedule_arn == SCHEDULE_ARN
    assert attempt.target_arn == QUEUE
    assert attempt.scheduled_time == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert attempt.attempted_at == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert attempt.attempt_number == 1
    assert attempt.succeeded
    assert attempt.error_code is None and attempt.error_message is None
    assert json.loads(attempt.request_text) == attempt.request
    assert ROLE  # the schedule's role is not part of the request
