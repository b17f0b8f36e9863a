"""What the IAM of a real aws-cdk-lib synth declares, case by case: the granted schedule and
rule hold what lets them deliver, and each of the six AWS refuses holds what refuses it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.iam import Context, Decision, Principal, Request, evaluate_resource
from pytest_schedemu.iam.declarations import IamDeclarations
from pytest_schedemu.stacks import ResolvedStack, read_stack
from pytest_schedemu.stacks.permissions import declared_iam

ACCOUNT, REGION = "123456789012", "eu-west-1"
SCHEDULER = Principal.service("scheduler.amazonaws.com")
EVENTS = Principal.service("events.amazonaws.com")
#: What Scheduler says of itself when it assumes a role for a schedule of this account.
AS_SCHEDULER = Context.of({"aws:SourceAccount": ACCOUNT})


class Case:
    """One stack of the assembly, read, with the IAM it declares."""

    def __init__(self, assembly: Path, name: str) -> None:
        self.stack: ResolvedStack = read_stack(
            assembly, account="000000000000", region="us-east-1", seed=7, stack_name=name
        )
        self.iam: IamDeclarations = declared_iam(self.stack)

    def target(self, schedule: str) -> dict[str, Any]:
        target: dict[str, Any] = self.stack.resource(schedule).properties["Target"]
        return target

    def role_of(self, schedule: str) -> Any:
        return self.iam.roles[self.target(schedule)["RoleArn"]]

    def rule_delivery(self, rule: str, action: str) -> Decision:
        """The resource policy's answer when the rule's one target gets its event."""
        resource = self.stack.resource(rule)
        (target,) = resource.properties["Targets"]
        context = Context.of({"aws:SourceArn": resource.arn, "aws:SourceAccount": ACCOUNT})
        request = Request(action, target["Arn"], EVENTS, context)
        return evaluate_resource(self.iam.resource_policies[target["Arn"]], request)


@pytest.fixture(scope="module")
def permissions(iam_assembly: Path) -> Case:
    return Case(iam_assembly, "Permissions")


def test_the_stacks_are_deployed_where_the_app_says(permissions: Case) -> None:
    assert (permissions.stack.account, permissions.stack.region) == (ACCOUNT, REGION)


def test_the_granted_schedules_role_is_trusted_and_may_send(permissions: Case) -> None:
    role = permissions.role_of("GrantedSchedule")
    assert role.arn == permissions.stack.resource("GrantedRole").arn
    assert role.assumable_by(SCHEDULER, AS_SCHEDULER).allowed
    # The grant (queue.grantSendMessages) is the role's default policy.
    sent = role.allows("sqs:SendMessage", permissions.target("GrantedSchedule")["Arn"])
    assert sent.allowed
    assert sent.reason.startswith("allowed by GrantedRoleDefaultPolicy")


def test_the_granted_rules_queue_policy_lets_that_rule_send(permissions: Case) -> None:
    assert permissions.rule_delivery("GrantedRule", "sqs:SendMessage").allowed


def test_a_role_with_no_permission_allows_nothing(permissions: Case) -> None:
    role = permissions.role_of("UnpermittedSchedule")
    assert role.policies == () and permissions.iam.unknown_policies.get(role.arn) is None
    assert role.assumable_by(SCHEDULER, AS_SCHEDULER).allowed
    queue = permissions.target("UnpermittedSchedule")["Arn"]
    refused = role.allows("sqs:SendMessage", queue)
    assert (refused.kind, refused.reason) == (
        "implicit-deny",
        f"no statement allows sqs:SendMessage on {queue}",
    )


def test_an_explicit_deny_beside_the_grant_wins(permissions: Case) -> None:
    role = permissions.role_of("DeniedSchedule")
    refused = role.allows("sqs:SendMessage", permissions.target("DeniedSchedule")["Arn"])
    assert refused.kind == "explicit-deny"
    assert refused.reason.startswith("an explicit Deny in DeniedRoleDefaultPolicy")
    assert refused.reason.endswith("(statement NoSending)")


def test_a_role_only_lambda_may_assume(iam_assembly: Path) -> None:
    case = Case(iam_assembly, "LambdaTrust")
    role = case.role_of("LambdaRoleSchedule")
    refused = role.assumable_by(SCHEDULER, AS_SCHEDULER)
    assert refused.kind == "untrusted"
    assert refused.reason == "the trust policy does not let scheduler.amazonaws.com assume it"
    # Its permission is there: only the trust refuses it.
    assert role.allows("sqs:SendMessage", case.target("LambdaRoleSchedule")["Arn"]).allowed


def test_a_trust_condition_on_another_account(iam_assembly: Path) -> None:
    case = Case(iam_assembly, "ForeignTrust")
    role = case.role_of("ForeignSchedule")
    refused = role.assumable_by(SCHEDULER, AS_SCHEDULER)
    assert refused.kind == "untrusted"
    assert f"aws:SourceAccount is {ACCOUNT}, not 111111111111" in refused.reason
    assert role.assumable_by(SCHEDULER, Context.of({"aws:SourceAccount": "111111111111"})).allowed


def test_a_function_with_no_lambda_permission(permissions: Case) -> None:
    assert permissions.stack.of_type("AWS::Lambda::Permission") == ()
    refused = permissions.rule_delivery("UninvitedRule", "lambda:InvokeFunction")
    assert refused.kind == "implicit-deny"
    assert refused.reason.startswith("no statement allows lambda:InvokeFunction on ")


def test_a_queue_whose_policy_lets_only_sns_send(permissions: Case) -> None:
    refused = permissions.rule_delivery("RefusedRule", "sqs:SendMessage")
    assert not refused.allowed
    (target,) = permissions.stack.resource("RefusedRule").properties["Targets"]
    policy = permissions.iam.resource_policies[target["Arn"]]
    sns = Request("sqs:SendMessage", target["Arn"], Principal.service("sns.amazonaws.com"))
    assert evaluate_resource(policy, sns).reason.endswith("(statement FromSns)")
