"""What one source declares, and two sources' declarations together."""

from __future__ import annotations

from pytest_schedemu.iam import (
    IamDeclarations,
    Principal,
    Request,
    Role,
    evaluate_resource,
    merge_policies,
)
from pytest_schedemu.iam.declarations import task_definition_names
from tests.iam.documents import resource, trust

QUEUE = "arn:aws:sqs:us-east-1:123456789012:orders"
ROLE = "arn:aws:iam::123456789012:role/runner"
EVENTS = Principal.service("events.amazonaws.com")


def _send(sid: str, principal: str) -> dict[str, object]:
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Principal": {"Service": principal},
        "Action": "sqs:SendMessage",
        "Resource": QUEUE,
    }


def test_a_resource_declared_by_two_sources_is_allowed_by_either_policy() -> None:
    first = IamDeclarations(resource_policies={QUEUE: resource(_send("A", "sns.amazonaws.com"))})
    second = IamDeclarations(
        resource_policies={QUEUE: resource(_send("A", "events.amazonaws.com"), name="stack")}
    )
    both = first.merged(second).resource_policies[QUEUE]
    decision = evaluate_resource(both, Request("sqs:SendMessage", QUEUE, EVENTS))
    assert decision.allowed
    # The repeated Sid is told apart by the policy it came from.
    assert decision.reason == "allowed by resource policy + stack (statement A (stack))"


def test_a_role_declared_twice_is_the_later_sources_and_unknown_policies_add_up() -> None:
    old = Role(ROLE, trust=trust({"Effect": "Allow", "Principal": "*", "Action": "*"}))
    new = Role(ROLE, trust=trust({"Effect": "Allow", "Principal": "*", "Action": "*"}, name="new"))
    managed = "arn:aws:iam::aws:policy/AmazonSQSFullAccess"
    other = "arn:aws:iam::aws:policy/AWSLambda_FullAccess"
    first = IamDeclarations(roles={ROLE: old}, unknown_policies={ROLE: (managed,)})
    second = IamDeclarations(roles={ROLE: new}, unknown_policies={ROLE: (managed, other)})
    merged = first.merged(second)
    assert merged.roles[ROLE] is new
    assert merged.unknown_policies[ROLE] == (managed, other)


def test_merging_one_policy_gives_it_back() -> None:
    policy = resource(_send("A", "events.amazonaws.com"))
    assert merge_policies([policy]) is policy


def test_a_task_definition_goes_by_each_name_run_task_takes_and_the_later_source_wins() -> None:
    arn = "arn:aws:ecs:us-east-1:123456789012:task-definition/nightly:3"
    assert task_definition_names(arn) == (
        arn,
        "nightly:3",
        "arn:aws:ecs:us-east-1:123456789012:task-definition/nightly",
        "nightly",
    )
    first = IamDeclarations(task_roles={arn: (ROLE,)})
    second = IamDeclarations(task_roles={arn: ()})
    assert first.merged(second).task_roles == {arn: ()}
    assert second.merged(first).task_roles == {arn: (ROLE,)}
