"""boto3 delivery: attempts and dead letters land in real service APIs (moto, in process)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from pytest_schedemu import Emulator
from pytest_schedemu.wire.server import ServerThread
from tests.constants import ACCOUNT, ROLE

AT = "at(2026-03-01T10:00:00)"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SQS", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


@pytest.fixture
def no_instance_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without credentials, botocore would ask the EC2 instance metadata service for some."""
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def emu(aws: None) -> Iterator[Emulator]:
    # Under moto's mock_aws nothing can reach AWS: no opt-in is needed.
    with Emulator(start="2026-03-01T10:00:00Z", delivery="boto3", transport="inprocess") as emu:
        yield emu


def sqs() -> Any:
    return boto3.client("sqs", region_name="us-east-1")


def make_queue(name: str, **attributes: str) -> tuple[str, str]:
    url = sqs().create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, f"arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"


def create(emu: Emulator, target: dict[str, Any], expression: str = AT) -> None:
    emu.client().create_schedule(
        Name="s1",
        ScheduleExpression=expression,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"RoleArn": ROLE, **target},
    )


def receive(url: str) -> list[dict[str, Any]]:
    response = sqs().receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
    )
    return list(response.get("Messages", []))


def test_message_lands_in_a_standard_queue(emu: Emulator) -> None:
    url, arn = make_queue("jobs")
    create(emu, {"Arn": arn, "Input": '{"job": 1}'})
    emu.clock.tick()
    (message,) = receive(url)
    assert json.loads(message["Body"]) == {"job": 1}
    assert emu.deliveries(arn)[0].succeeded


def test_default_event_lands_in_a_fifo_queue(emu: Emulator) -> None:
    url, arn = make_queue("jobs.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    create(emu, {"Arn": arn, "SqsParameters": {"MessageGroupId": "g1"}})
    emu.clock.tick()
    (message,) = receive(url)
    assert json.loads(message["Body"])["detail-type"] == "Scheduled Event"


def test_missing_queue_fails_permanently_into_a_real_dlq(emu: Emulator) -> None:
    dlq_url, dlq = make_queue("dlq")
    create(
        emu,
        {
            "Arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:does-not-exist",
            "Input": "x",
            "DeadLetterConfig": {"Arn": dlq},
        },
    )
    emu.clock.advance(hours=1)
    (attempt,) = emu.attempts()
    assert attempt.retryable is False
    (message,) = receive(dlq_url)
    attributes = {k: v["StringValue"] for k, v in message["MessageAttributes"].items()}
    assert attributes["RETRY_ATTEMPTS"] == "0"
    assert "EXHAUSTED_RETRY_CONDITION" not in attributes
    assert attributes["ERROR_CODE"] == attempt.error_code
    assert json.loads(message["Body"])["MessageBody"] == "x"


def test_missing_lambda_function_goes_to_the_dlq_after_one_attempt(emu: Emulator) -> None:
    dlq_url, dlq = make_queue("dlq")
    function = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:missing"
    create(emu, {"Arn": function, "DeadLetterConfig": {"Arn": dlq}})
    emu.clock.advance(days=1)
    (attempt,) = emu.attempts()
    assert attempt.error_code == "ResourceNotFoundException"
    (message,) = receive(dlq_url)
    assert json.loads(message["Body"])["FunctionName"] == function
    assert message["MessageAttributes"]["TARGET_ARN"]["StringValue"] == function


def test_sns_topic_receives_the_message(emu: Emulator) -> None:
    sns = boto3.client("sns", region_name="us-east-1")
    topic = sns.create_topic(Name="alerts")["TopicArn"]
    url, queue = make_queue("alerts-sub")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"}
    )
    create(emu, {"Arn": topic, "Input": "ping"})
    emu.clock.tick()
    assert [m["Body"] for m in receive(url)] == ["ping"]


def test_step_functions_execution_starts(emu: Emulator) -> None:
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    machine = sfn.create_state_machine(
        name="flow",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn=ROLE,
    )["stateMachineArn"]
    create(emu, {"Arn": machine, "Input": '{"a": 1}'})
    emu.clock.tick()
    (execution,) = sfn.list_executions(stateMachineArn=machine)["executions"]
    assert json.loads(sfn.describe_execution(executionArn=execution["executionArn"])["input"]) == {
        "a": 1
    }


def test_eventbridge_receives_the_event(emu: Emulator) -> None:
    events = boto3.client("events", region_name="us-east-1")
    url, queue = make_queue("bus-sink")
    events.put_rule(Name="all", EventPattern=json.dumps({"source": ["my.app"]}))
    events.put_targets(Rule="all", Targets=[{"Id": "q", "Arn": queue}])
    create(
        emu,
        {
            "Arn": f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default",
            "Input": '{"k": "v"}',
            "EventBridgeParameters": {"DetailType": "Reminder", "Source": "my.app"},
        },
    )
    emu.clock.tick()
    (message,) = receive(url)
    event = json.loads(message["Body"])
    assert event["detail-type"] == "Reminder"
    assert event["detail"] == {"k": "v"}


def test_universal_send_message_target(emu: Emulator) -> None:
    url, _ = make_queue("universal")
    create(
        emu,
        {
            "Arn": "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
            "Input": json.dumps({"QueueUrl": url, "MessageBody": "<aws.scheduler.scheduled-time>"}),
        },
    )
    emu.clock.tick()
    assert [m["Body"] for m in receive(url)] == ["2026-03-01T10:00:00Z"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"MessageBody": "no queue"}, "Missing required parameter"),
        (["not", "an", "object"], "must be a JSON object"),
    ],
)
def test_universal_target_with_unusable_parameters_fails_permanently(
    emu: Emulator, arguments: Any, message: str
) -> None:
    _, dlq = make_queue("universal-dlq")
    create(
        emu,
        {
            "Arn": "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
            "Input": json.dumps(arguments),
            "DeadLetterConfig": {"Arn": dlq},
        },
    )
    emu.clock.advance(hours=1)
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.retryable) == ("ValidationException", False)
    assert message in attempt.error_message
    (letter,) = emu.dead_letters()
    assert letter.attributes["RETRY_ATTEMPTS"] == "0"
    assert "EXHAUSTED_RETRY_CONDITION" not in letter.attributes


def throttling_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    body = json.dumps({"__type": "ThrottlingException", "message": "Rate exceeded"}).encode()
    start_response(
        "429 Too Many Requests",
        [
            ("Content-Type", "application/x-amz-json-1.1"),
            ("x-amzn-ErrorType", "ThrottlingException"),
            ("Content-Length", str(len(body))),
        ],
    )
    return [body]


def test_throttled_target_retries_then_dead_letters_with_the_condition(
    no_instance_metadata: None,
) -> None:
    throttling = ServerThread(throttling_app)
    recorded: list[Any] = []

    class Recording:
        needs_request = True

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def deliver(self, request: Any) -> Any:
            return self.inner.deliver(request)

        def send_dead_letter(self, request: Any) -> Any:
            recorded.append(request)
            from pytest_schedemu.delivery.backends import OK

            return OK

        def close(self) -> None:
            self.inner.close()

    from pytest_schedemu.dispatch.forwarding import Boto3Delivery

    try:
        delivery = Recording(Boto3Delivery(endpoint_url=throttling.url))
        with Emulator(start="2026-03-01T10:00:00Z", delivery=delivery) as emu:
            create(
                emu,
                {
                    "Arn": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:busy",
                    "RetryPolicy": {"MaximumRetryAttempts": 2},
                    "DeadLetterConfig": {"Arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:dlq"},
                },
            )
            emu.clock.advance(hours=1)
            attempts = emu.attempts()
            assert [(a.error_code, a.retryable) for a in attempts] == [
                ("ThrottlingException", True)
            ] * 3
            (letter,) = emu.dead_letters()
            assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumRetryAttempts"
            assert letter.attributes["RETRY_ATTEMPTS"] == "2"
            assert recorded[0].message_attributes["ERROR_CODE"] == {
                "DataType": "String",
                "StringValue": "ThrottlingException",
            }
    finally:
        throttling.stop()


def test_unreachable_endpoint_is_a_retryable_internal_error(no_instance_metadata: None) -> None:
    with Emulator(
        start="2026-03-01T10:00:00Z",
        delivery="boto3",
        delivery_endpoint_url="http://127.0.0.1:9",
    ) as emu:
        create(
            emu,
            {
                "Arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:q",
                "Input": "x",
                "RetryPolicy": {"MaximumRetryAttempts": 0},
            },
        )
        (attempt,) = emu.clock.tick()
        assert attempt.error_code == "AWS.Scheduler.InternalServerError"
        assert attempt.error_message == "Unexpected error occurred while processing the request"
        assert attempt.retryable is True
