"""Delivering into moto, the emulator knows moto's IAM: its roles (trust, inline and
attached customer-managed policies) and its queues' policies, read as each move starts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from pytest_schedemu import Emulator
from tests.constants import ACCOUNT
from tests.iam_delivery.documents import EVENTS, allowing, document, letting, trusting

AT = "at(2026-03-01T10:00:00)"
RULE = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SQS", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with (
        mock_aws(),
        Emulator(start="2026-03-01T10:00:00Z", delivery="boto3", transport="inprocess") as emu,
    ):
        yield emu


def queue(name: str, policy: dict[str, Any] | None = None) -> tuple[str, str]:
    attributes = {"Policy": json.dumps(policy)} if policy is not None else {}
    url = boto3.client("sqs").create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, f"arn:aws:sqs:us-east-1:{ACCOUNT}:{name}"


def role(name: str, *statements: dict[str, Any], attached: bool = False) -> str:
    iam = boto3.client("iam")
    arn: str = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trusting()))[
        "Role"
    ]["Arn"]
    if statements and attached:
        policy = iam.create_policy(
            PolicyName=f"{name}-send", PolicyDocument=json.dumps(document(*statements))
        )["Policy"]["Arn"]
        iam.attach_role_policy(RoleName=name, PolicyArn=policy)
    elif statements:
        iam.put_role_policy(
            RoleName=name, PolicyName="send", PolicyDocument=json.dumps(document(*statements))
        )
    return arn


def schedule(emu: Emulator, target: str, role_arn: str) -> None:
    emu.client().create_schedule(
        Name="s1",
        ScheduleExpression=AT,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": target, "RoleArn": role_arn},
    )


@pytest.mark.parametrize("attached", [False, True])
def test_a_moto_role_that_may_send_delivers_into_moto(emu: Emulator, attached: bool) -> None:
    url, arn = queue("orders")
    schedule(emu, arn, role("sender", allowing("sqs:SendMessage", arn), attached=attached))
    emu.clock.advance(minutes=1)
    assert emu.attempts()[0].succeeded
    assert "Messages" in boto3.client("sqs").receive_message(QueueUrl=url)


def test_a_moto_role_that_may_not_send_sends_nothing(emu: Emulator) -> None:
    url, arn = queue("orders")
    role_arn = role("reader", allowing("sqs:ReceiveMessage", arn))
    schedule(emu, arn, role_arn)
    emu.clock.advance(minutes=1)
    attempt = emu.attempts()[0]
    assert attempt.error_code == "AccessDeniedException"
    assert attempt.error_message.startswith(f"{role_arn} is not authorized to perform")
    assert "Messages" not in boto3.client("sqs").receive_message(QueueUrl=url)


def test_a_moto_queue_policy_decides_for_a_rule(emu: Emulator) -> None:
    _, arn = queue("orders", letting("sns.amazonaws.com", "sqs:SendMessage", "*"))
    events = emu.client("events")
    events.put_rule(Name="nightly", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="nightly", Targets=[{"Id": "q", "Arn": arn}])
    emu.clock.advance(hours=1, seconds=1)
    assert emu.attempts()[0].error_code == "NO_PERMISSIONS"
    boto3.client("sqs").set_queue_attributes(
        QueueUrl=boto3.client("sqs").get_queue_url(QueueName="orders")["QueueUrl"],
        Attributes={"Policy": json.dumps(letting(EVENTS, "sqs:SendMessage", arn))},
    )
    emu.clock.advance(hours=1)
    assert emu.attempts()[-1].succeeded
