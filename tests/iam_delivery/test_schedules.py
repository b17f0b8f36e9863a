"""A schedule's attempts meet IAM as Scheduler's do: the execution role must be assumable
by scheduler.amazonaws.com with the schedule's account and group, and allow the target's
action; a refusal is permanent, says why, and never reaches the target."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import DeliveryAssertionError
from tests.constants import ACCOUNT, DLQ, QUEUE, ROLE
from tests.helpers import create
from tests.iam_delivery.documents import GROUP, allowing, document, trusting

ASSUME = "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."
AT = "at(2026-03-01T10:00:00)"


def granted(emu: Emulator, *statements: dict[str, Any], **trust: Any) -> None:
    emu.iam.role(
        ROLE,
        trust=trusting(**trust) if trust else trusting(StringEquals={"aws:SourceAccount": ACCOUNT}),
        policies=[document(*statements)] if statements else [],
    )


def only_attempt(emu: Emulator) -> Any:
    (attempt,) = emu.attempts()
    return attempt


def test_a_role_that_allows_the_targets_action_delivers(emu: Emulator, client: Any) -> None:
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded


def test_a_role_without_the_action_fails_once_for_good_and_says_why(
    emu: Emulator, client: Any
) -> None:
    granted(emu, allowing("sqs:ReceiveMessage", QUEUE))
    create(client, expression=AT)
    emu.clock.advance(hours=2)
    attempt = only_attempt(emu)  # permanent: no retry
    assert (attempt.error_code, attempt.retryable) == ("AccessDeniedException", False)
    assert attempt.error_message == (
        f"{ROLE} is not authorized to perform sqs:SendMessage on {QUEUE}: "
        f"no statement allows sqs:SendMessage on {QUEUE}"
    )
    assert emu.executions("s1")[0].status == "invocation_error"


def test_an_explicit_deny_beside_an_allow_wins(emu: Emulator, client: Any) -> None:
    granted(
        emu,
        allowing("sqs:*", "*"),
        allowing("sqs:SendMessage", QUEUE, effect="Deny", Sid="NoOrders"),
    )
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).error_message.endswith(
        "an explicit Deny in scheduler policy 0 (statement NoOrders)"
    )


def test_a_trust_condition_on_another_account_refuses_the_role_at_the_attempt(
    emu: Emulator, client: Any
) -> None:
    granted(
        emu,
        allowing("sqs:SendMessage", QUEUE),
        StringEquals={"aws:SourceAccount": "111111111111"},
    )
    create(client, expression=AT)  # the condition is the attempt's to evaluate
    emu.clock.advance(minutes=1)
    attempt = only_attempt(emu)
    assert attempt.error_code == "AccessDeniedException"
    assert attempt.error_message == (
        f"{ASSUME} sts:AssumeRole on {ROLE}: the trust policy does not let "
        "scheduler.amazonaws.com assume it: condition StringEquals aws:SourceAccount is "
        f"{ACCOUNT}, not 111111111111 (scheduler trust policy, statement 0)"
    )


@pytest.mark.parametrize(
    ("group_arn", "delivered"),
    [(GROUP, True), (GROUP.replace("default", "other"), False)],
)
def test_the_source_arn_scheduler_sets_is_the_schedules_group(
    emu: Emulator, client: Any, group_arn: str, delivered: bool
) -> None:
    granted(emu, allowing("sqs:SendMessage", QUEUE), ArnEquals={"aws:SourceArn": group_arn})
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded is delivered


def test_a_role_the_emulator_does_not_know_delivers(emu: Emulator, client: Any) -> None:
    emu.iam.role("arn:aws:iam::123456789012:role/another", trust=trusting())
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded


def test_strict_refuses_a_role_the_emulator_does_not_know(emu: Emulator, client: Any) -> None:
    emu.configure(iam="strict")
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    attempt = only_attempt(emu)
    assert attempt.error_code == "AccessDeniedException"
    assert attempt.error_message == f"{ASSUME} role {ROLE} is not known to the emulator"


def test_off_delivers_what_iam_refuses(emu: Emulator, client: Any) -> None:
    granted(emu)
    emu.configure(iam="off")
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded


@pytest.mark.parametrize(("iam", "delivered"), [("enforce", True), ("strict", False)])
def test_an_attached_policy_the_emulator_has_no_copy_of(
    emu: Emulator, client: Any, iam: str, delivered: bool
) -> None:
    managed = "arn:aws:iam::aws:policy/AmazonSQSFullAccess"
    emu.iam.role(ROLE, trust=trusting(), unknown_policies=[managed])
    emu.configure(iam=iam)
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    attempt = only_attempt(emu)
    assert attempt.succeeded is delivered
    if not delivered:
        assert attempt.error_message.endswith(
            f"attached {managed}, which the emulator does not know"
        )


def test_a_customer_managed_key_needs_kms_decrypt(emu: Emulator, client: Any) -> None:
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    client.create_schedule(
        Name="s1",
        ScheduleExpression=AT,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
        KmsKeyArn=key,
    )
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).error_message == (
        f"{ROLE} is not authorized to perform kms:Decrypt on {key}: "
        f"no statement allows kms:Decrypt on {key}"
    )


def test_a_universal_targets_action_is_its_service_and_api(emu: Emulator, client: Any) -> None:
    universal = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"
    granted(emu, allowing("sqs:ReceiveMessage", "*"))
    create(
        client,
        expression=AT,
        target={"Arn": universal, "Input": '{"QueueUrl": "q", "MessageBody": "b"}'},
    )
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).error_message == (
        f"{ROLE} is not authorized to perform sqs:SendMessage on *: "
        "no statement allows sqs:SendMessage on any resource"
    )


def test_a_universal_target_is_let_through_where_its_action_is_allowed_on_some_resource(
    emu: Emulator, client: Any
) -> None:
    # The queue is named in the target's parameters, which the emulator does not read: a
    # role allowed to send to some queue may be allowed to send to this one; only strict
    # refuses what it cannot show.
    universal = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    target = {"Arn": universal, "Input": '{"QueueUrl": "q", "MessageBody": "b"}'}
    create(client, expression=AT, target=target)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded
    emu.configure(iam="strict")
    create(client, "s2", expression="at(2026-03-01T10:05:00)", target=target)
    emu.clock.advance(minutes=5)
    assert "is not authorized to perform sqs:SendMessage on *" in (
        emu.attempts()[-1].error_message or ""
    )


def test_a_refused_attempt_goes_to_the_dead_letter_queue_the_role_may_send_to(
    emu: Emulator, client: Any
) -> None:
    granted(emu, allowing("sqs:SendMessage", DLQ))
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(minutes=1)
    (letter,) = emu.dead_letters(DLQ)
    assert letter.attributes["ERROR_CODE"] == "AccessDeniedException"
    assert "sqs:SendMessage on " + QUEUE in letter.attributes["ERROR_MESSAGE"]


def test_a_dead_letter_the_role_may_not_send_is_not_sent_and_says_why(
    emu: Emulator, client: Any
) -> None:
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    emu.target(QUEUE).fail(retryable=False)
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(minutes=1)
    assert emu.dead_letters() == []
    (failed,) = [a for a in emu.activity() if a.kind == "dlq_failed"]
    assert failed.detail == (
        f"AccessDeniedException: {ROLE} is not authorized to perform sqs:SendMessage on "
        f"{DLQ}: no statement allows sqs:SendMessage on {DLQ}"
    )


def test_a_policy_declared_later_is_evaluated_at_the_next_attempt(
    emu: Emulator, client: Any
) -> None:
    granted(emu)
    create(client, expression="rate(1 hour)")  # fires now, then every hour
    emu.clock.advance(minutes=30)
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    emu.clock.advance(hours=1)
    assert [a.succeeded for a in emu.attempts()] == [False, True]


def test_a_long_move_refuses_every_attempt_and_plays_granted_ones_in_bulk(
    emu: Emulator, client: Any
) -> None:
    other = "arn:aws:iam::123456789012:role/other"
    granted(emu)  # ROLE may do nothing
    emu.iam.role(other, trust=trusting(), policies=[document(allowing("sqs:*", "*"))])
    create(client, "denied", expression="rate(1 minute)")
    emu.clock.advance(days=1)
    assert len(emu.attempts()) == 24 * 60 + 1  # both ends of the day
    assert not any(a.succeeded for a in emu.attempts())
    client.delete_schedule(Name="denied")
    create(client, "granted", expression="rate(1 minute)", target={"RoleArn": other})
    runs = emu.debug.bulk_runs
    emu.clock.advance(days=1)
    assert emu.debug.bulk_runs > runs
    assert all(a.succeeded for a in emu.attempts() if a.schedule_arn.endswith("granted"))


def test_deny_role_still_refuses_a_role_iam_allows(emu: Emulator, client: Any) -> None:
    granted(emu, allowing("sqs:SendMessage", QUEUE))
    emu.deny_role(ROLE)
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).error_message == ASSUME


def test_an_assertions_failure_names_the_refusal(emu: Emulator, client: Any) -> None:
    granted(emu)
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    with pytest.raises(DeliveryAssertionError) as raised:
        emu.assert_delivered(QUEUE)
    assert f"no statement allows sqs:SendMessage on {QUEUE}" in str(raised.value)


def test_the_timeline_shows_a_refused_attempt_with_its_reason(emu: Emulator, client: Any) -> None:
    granted(emu, allowing("sqs:SendMessage", QUEUE, effect="Deny", Sid="NoOrders"))
    create(client, expression=AT)
    emu.clock.advance(minutes=1)
    svg = emu.timeline_svg()
    assert "AccessDeniedException: " in svg
    assert "an explicit Deny in scheduler policy 0 (statement NoOrders)" in svg


def test_a_fired_schedule_and_an_async_move_are_refused_alike(emu: Emulator, client: Any) -> None:
    granted(emu)
    create(client, expression="rate(1 hour)")
    assert emu.fire("s1").error_code == "AccessDeniedException"

    async def move() -> None:
        await emu.clock.advance_async(minutes=1)

    asyncio.run(move())
    assert [a.error_code for a in emu.attempts()] == ["AccessDeniedException"] * 2


def test_a_role_declared_after_its_schedule_refuses_its_next_attempts(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="rate(1 hour)")  # its role unknown: allowed
    emu.clock.advance(minutes=30)
    granted(emu)  # now known, and allowed nothing
    emu.clock.advance(days=1)
    assert emu.attempts()[0].succeeded
    assert not any(a.succeeded for a in emu.attempts()[1:])


def test_an_ecs_target_needs_run_task_on_its_task_definition(emu: Emulator, client: Any) -> None:
    cluster = "arn:aws:ecs:us-east-1:123456789012:cluster/jobs"
    definition = "arn:aws:ecs:us-east-1:123456789012:task-definition/nightly:3"
    granted(emu, allowing("ecs:RunTask", definition))
    create(
        client,
        expression=AT,
        target={"Arn": cluster, "EcsParameters": {"TaskDefinitionArn": definition}},
    )
    emu.clock.advance(minutes=1)
    assert only_attempt(emu).succeeded
