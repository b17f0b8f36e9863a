"""What a decision tells its reader, and what a caller keys a cache on: the reason a user
reads in a failed attempt names the action, resource, policy, statement or condition; the
inputs are frozen and hashable."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

import pytest

from pytest_schedemu.iam import (
    ALLOWED,
    IMPLICIT_DENY,
    Context,
    Principal,
    Request,
    Role,
    authorize,
    evaluate_identity,
)

from .documents import allow, ask, deny, identity, resource, trust, when

QUEUE = "arn:aws:sqs:us-east-1:123456789012:orders"


def test_an_allowed_decision_names_the_statement_that_allowed_it() -> None:
    policy = identity(allow("sqs:SendMessage", QUEUE, Sid="SendOrders"), name="role/inline")
    decision = ask(policy, "sqs:SendMessage", QUEUE)
    assert (decision.allowed, decision.kind) == (True, ALLOWED)
    assert decision.reason == "allowed by role/inline (statement SendOrders)"
    assert decision.statement == "role/inline, statement SendOrders"
    assert (decision.action, decision.resource, decision.principal) == (
        "sqs:SendMessage",
        QUEUE,
        None,
    )


def test_with_no_statement_near_the_reason_names_the_action_and_resource() -> None:
    decision = ask(identity(allow("sns:Publish", "*")), "sqs:SendMessage", QUEUE)
    assert decision.kind == IMPLICIT_DENY
    assert decision.reason == f"no statement allows sqs:SendMessage on {QUEUE}"
    assert decision.statement is None


def test_the_reason_is_the_first_failing_condition_of_the_closest_statement() -> None:
    """The first Allow whose action and resource match but whose conditions fail is the
    closest; its first failing condition is the reason."""
    policy = identity(
        allow("sns:Publish", "*", Condition={"StringEquals": {"aws:SourceAccount": "1"}}),
        allow(
            "sqs:SendMessage",
            QUEUE,
            Sid="FromMyRule",
            Condition={
                "StringEquals": {"aws:SourceAccount": "123456789012"},
                "ArnEquals": {"aws:SourceArn": "arn:aws:events:us-east-1:123456789012:rule/r"},
            },
        ),
        allow("sqs:SendMessage", QUEUE, Condition={"Bool": {"aws:SecureTransport": "true"}}),
        name="role/inline",
    )
    decision = ask(policy, "sqs:SendMessage", QUEUE, aws__SourceAccount="123456789012")
    assert decision.reason == (
        "condition ArnEquals aws:SourceArn is absent, not "
        "arn:aws:events:us-east-1:123456789012:rule/r (role/inline, statement FromMyRule)"
    )
    assert decision.statement == "role/inline, statement FromMyRule"


def test_a_deny_whose_condition_fails_is_not_the_reason() -> None:
    policy = identity(
        when("StringEquals", "aws:SourceAccount", "123456789012"),
        deny(Condition={"Bool": {"aws:SecureTransport": "false"}}),
    )
    decision = ask(policy, "sqs:SendMessage", QUEUE, aws__SecureTransport=True)
    assert decision.reason.startswith("condition StringEquals aws:SourceAccount is absent")


def test_several_values_are_shown_as_the_request_and_policy_have_them() -> None:
    policy = identity(when("ForAnyValue:StringLike", "aws:TagKeys", ["team", "env*"]))
    decision = ask(policy, "ec2:CreateTags", aws__TagKeys=["owner", "cost"])
    assert decision.reason.startswith(
        "condition ForAnyValue:StringLike aws:TagKeys is [owner, cost], not team or env*"
    )


def test_a_decision_and_its_inputs_are_frozen() -> None:
    decision = ask(identity(allow()), "sqs:SendMessage", QUEUE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.allowed = False  # type: ignore[misc]
    request = Request("sqs:SendMessage", QUEUE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.action = "sqs:DeleteQueue"  # type: ignore[misc]


def test_equal_requests_are_one_cache_key() -> None:
    scheduler = Principal.service("scheduler.amazonaws.com")
    first = Request(
        "sqs:SendMessage",
        QUEUE,
        scheduler,
        Context.of({"aws:SourceAccount": "123456789012", "aws:SourceArn": "arn:x"}),
    )
    second = Request(
        "sqs:SendMessage",
        QUEUE,
        Principal.service("Scheduler.amazonaws.com"),
        Context.of(aws_sourcearn="arn:x", **{"AWS:SourceAccount": "123456789012"}).merged(
            Context()
        ),
    )
    # aws_sourcearn is another key than aws:SourceArn: a request names its keys exactly.
    assert first != second
    third = Request(
        "sqs:SendMessage",
        QUEUE,
        Principal.service("SCHEDULER.amazonaws.com"),
        Context.of({"AWS:SOURCEARN": "arn:x"}).merged(
            Context.of({"aws:sourceaccount": "123456789012"})
        ),
    )
    assert first == third
    cache = {(("role", "r"), first): "decision"}
    assert cache[(("role", "r"), third)] == "decision"


def test_equal_policies_are_one_cache_key_and_a_changed_one_is_another() -> None:
    first = identity(allow("sqs:SendMessage", QUEUE), name="p")
    again = identity(allow("sqs:SendMessage", QUEUE), name="p")
    changed = identity(allow("sqs:SendMessage", "*"), name="p")
    assert first == again and hash(first) == hash(again)
    assert first != changed


def test_a_context_takes_text_numbers_booleans_times_bytes_and_lists() -> None:
    context = Context.of(
        {
            "s3:max-keys": 10,
            "aws:SecureTransport": True,
            "aws:CurrentTime": datetime(2026, 12, 7, 14, 0, tzinfo=timezone.utc),
            "key": b"\x00\x01",
            "aws:TagKeys": ["a", "b"],
            "aws:username": None,
        }
    )
    assert context.get("S3:MAX-KEYS") == ("10",)
    assert context.get("aws:securetransport") == ("true",)
    assert context.get("aws:CurrentTime") == ("2026-12-07T14:00:00Z",)
    assert context.get("key") == ("AAE=",)
    assert context.get("aws:TagKeys") == ("a", "b")
    assert context.get("aws:username") is None


def test_one_key_spelt_two_ways_in_one_context_is_refused() -> None:
    with pytest.raises(ValueError, match="are one key"):
        Context.of({"aws:SourceAccount": "1", "aws:sourceaccount": "2"})
    with pytest.raises(TypeError, match="a context value must be"):
        Context.of({"k": [object()]})  # type: ignore[list-item]


def test_authorize_without_a_principal_is_the_identity_decision() -> None:
    policies = [identity(allow("sqs:SendMessage", QUEUE))]
    request = Request("sqs:SendMessage", QUEUE)
    assert authorize(request, identity=policies) == evaluate_identity(policies, request)


def test_a_deny_in_the_resource_policy_wins_over_the_identity_allow() -> None:
    worker = Principal.aws("arn:aws:iam::123456789012:role/worker")
    closed = resource(deny("sqs:*", QUEUE, Principal="*", Sid="Closed"), name="orders policy")
    decision = authorize(
        Request("sqs:SendMessage", QUEUE, worker),
        identity=[identity(allow())],
        resource_policy=closed,
    )
    assert decision.reason == "an explicit Deny in orders policy (statement Closed)"
    assert decision.principal == "arn:aws:iam::123456789012:role/worker"


def test_a_role_answers_the_two_questions_of_an_attempt() -> None:
    """EventBridge Scheduler User Guide, "Setting up the execution role": Scheduler must be
    able to assume the role, and the role must allow the target's action."""
    allow_assume = {
        "Effect": "Allow",
        "Principal": {"Service": "scheduler.amazonaws.com"},
        "Action": "sts:AssumeRole",
    }
    trust_policy = trust(allow_assume, name="scheduler-role trust")
    role = Role(
        "arn:aws:iam::123456789012:role/scheduler-role",
        trust=trust_policy,
        policies=(identity(allow("sqs:SendMessage", QUEUE), name="scheduler-role/inline"),),
    )
    assert role.assumable_by(Principal.service("scheduler.amazonaws.com")).allowed
    assert not role.assumable_by(Principal.service("events.amazonaws.com")).allowed
    assert role.allows("sqs:SendMessage", QUEUE).allowed
    assert role.allows("lambda:InvokeFunction", "*").reason == (
        "no statement allows lambda:InvokeFunction on *"
    )
    same = Role(
        role.arn, trust=trust(allow_assume, name="scheduler-role trust"), policies=role.policies
    )
    assert same == role and hash(same) == hash(role)
    changed = Role(role.arn, trust=trust_policy, policies=())
    assert changed != role


def test_a_role_takes_a_trust_policy_and_identity_policies() -> None:
    trust_policy = trust(
        {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}, name="t"
    )
    with pytest.raises(ValueError, match="must be parsed as a trust policy, not 'identity'"):
        Role("arn:aws:iam::123456789012:role/r", trust=identity(allow()))
    with pytest.raises(ValueError, match="must be identity policies: t"):
        Role("arn:aws:iam::123456789012:role/r", trust=trust_policy, policies=(trust_policy,))
