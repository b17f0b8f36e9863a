"""A scheduled rule's targets meet IAM as EventBridge's do: a function, queue or topic by
its own policy (events.amazonaws.com, the rule's ARN as aws:SourceArn), any other target by
its role; refusals are EventBridge's NO_PERMISSIONS and FAILED_TO_ASSUME_ROLE."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import ACCOUNT, DLQ, FUNCTION, QUEUE
from tests.helpers import put_rule, rule_target
from tests.iam_delivery.documents import EVENTS, allowing, document, letting, trusting

RULE = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"
STREAM = f"arn:aws:kinesis:us-east-1:{ACCOUNT}:stream/clicks"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/events"


def first_attempt(emu: Emulator) -> Any:
    return emu.attempts()[0]


@pytest.mark.parametrize(
    ("source_arn", "delivered"),
    [(RULE, True), (RULE.replace("nightly", "hourly"), False)],
)
def test_a_queue_policy_lets_the_rule_send(emu: Emulator, source_arn: str, delivered: bool) -> None:
    emu.iam.resource_policy(
        QUEUE, letting(EVENTS, "sqs:SendMessage", QUEUE, ArnEquals={"aws:SourceArn": source_arn})
    )
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1, seconds=1)
    assert first_attempt(emu).succeeded is delivered


def test_a_queue_whose_policy_does_not_let_eventbridge_send_fails_with_no_permissions(
    emu: Emulator,
) -> None:
    emu.iam.resource_policy(QUEUE, letting("sns.amazonaws.com", "sqs:SendMessage", QUEUE))
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE, DeadLetterConfig={"Arn": DLQ}))
    emu.clock.advance(hours=1, seconds=1)
    [attempt] = emu.attempts()  # permanent: no retry
    assert (attempt.error_code, attempt.retryable) == ("NO_PERMISSIONS", False)
    assert attempt.error_message == (
        f"the policy of {QUEUE} does not let events.amazonaws.com perform sqs:SendMessage: "
        f"no statement allows sqs:SendMessage on {QUEUE}"
    )
    [letter] = emu.dead_letters()
    assert letter.attributes["ERROR_CODE"] == "NO_PERMISSIONS"


def test_a_function_without_a_permission_for_eventbridge_is_not_invoked(emu: Emulator) -> None:
    emu.iam.resource_policy(
        FUNCTION, letting("s3.amazonaws.com", "lambda:InvokeFunction", FUNCTION)
    )
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("f", FUNCTION))
    emu.clock.advance(hours=1, seconds=1)
    assert first_attempt(emu).error_code == "NO_PERMISSIONS"


def test_a_target_role_eventbridge_may_not_assume_fails_to_assume_it(emu: Emulator) -> None:
    emu.iam.role(
        ROLE,
        trust=trusting("lambda.amazonaws.com"),
        policies=[document(allowing("kinesis:PutRecord", STREAM))],
    )
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target(
            "k",
            STREAM,
            RoleArn=ROLE,
            KinesisParameters={"PartitionKeyPath": "$.id"},
            DeadLetterConfig={"Arn": DLQ},
        ),
    )
    emu.clock.advance(hours=1, seconds=1)
    attempt = first_attempt(emu)
    assert attempt.error_code == "FAILED_TO_ASSUME_ROLE"
    assert attempt.error_message.startswith(f"sts:AssumeRole on {ROLE}: the trust policy")
    assert emu.dead_letters()[0].attributes["ERROR_CODE"] == "FAILED_TO_ASSUME_ROLE"


def test_a_target_role_needs_the_targets_action(emu: Emulator) -> None:
    emu.iam.role(ROLE, trust=trusting(EVENTS), policies=[document(allowing("kinesis:*", "*"))])
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("k", STREAM, RoleArn=ROLE, KinesisParameters={"PartitionKeyPath": "$.id"}),
    )
    emu.clock.advance(hours=1, seconds=1)
    assert first_attempt(emu).succeeded


def test_a_dead_letter_queue_whose_policy_refuses_eventbridge_gets_nothing(
    emu: Emulator,
) -> None:
    emu.iam.resource_policy(QUEUE, letting("sns.amazonaws.com", "sqs:SendMessage", QUEUE))
    emu.iam.resource_policy(DLQ, letting("sns.amazonaws.com", "sqs:SendMessage", DLQ))
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE, DeadLetterConfig={"Arn": DLQ}))
    emu.clock.advance(hours=1, seconds=1)
    assert emu.dead_letters() == []
    (failed,) = [a for a in emu.activity() if a.kind == "dlq_failed"]
    assert failed.detail.startswith(
        f"NO_PERMISSIONS: the dead letter: the policy of {DLQ} does not let "
        "events.amazonaws.com perform sqs:SendMessage"
    )


def test_strict_refuses_a_queue_whose_policy_the_emulator_does_not_know(emu: Emulator) -> None:
    emu.configure(iam="strict")
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1, seconds=1)
    assert first_attempt(emu).error_message == (
        f"the policy of {QUEUE} is not known to the emulator"
    )


def test_a_queue_target_is_reached_by_its_policy_whatever_role_it_names(emu: Emulator) -> None:
    emu.iam.role(ROLE, trust=trusting("lambda.amazonaws.com"))
    emu.iam.resource_policy(QUEUE, letting(EVENTS, "sqs:SendMessage", QUEUE))
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE, RoleArn=ROLE))
    emu.clock.advance(hours=1, seconds=1)
    assert first_attempt(emu).succeeded
