"""An ECS target's attempts pass the task definition's roles to the task: the delivering
role needs ``iam:PassRole`` on each of them (with ``iam:PassedToService`` the ECS tasks'
service) besides ``ecs:RunTask``, as AWS asks of a schedule's execution role and of a rule
target's role. A task definition is known from a stack, or declared by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import ACCOUNT, ROLE
from tests.helpers import create, put_rule, rule_target
from tests.iam_delivery.documents import EVENTS, allowing, document, trusting

AT = "at(2026-03-01T10:00:00)"
CLUSTER = f"arn:aws:ecs:us-east-1:{ACCOUNT}:cluster/jobs"
DEFINITION = f"arn:aws:ecs:us-east-1:{ACCOUNT}:task-definition/nightly:3"
TASK_ROLE = f"arn:aws:iam::{ACCOUNT}:role/nightly-task"
EXECUTION_ROLE = f"arn:aws:iam::{ACCOUNT}:role/nightly-execution"
TO_ECS_TASKS = {"StringEquals": {"iam:PassedToService": "ecs-tasks.amazonaws.com"}}


def passing(*roles: Any, condition: dict[str, Any] | None = None) -> dict[str, Any]:
    """A statement letting the role pass ``roles`` (ARNs, or a template's references) to
    ECS tasks, or under ``condition``."""
    return allowing("iam:PassRole", list(roles), Condition=condition or TO_ECS_TASKS)


def running(
    emu: Emulator, client: Any, *statements: dict[str, Any], definition: str = DEFINITION
) -> Any:
    """The one attempt of a schedule running ``definition`` on ``CLUSTER``, its role
    allowed RunTask and ``statements``."""
    emu.iam.role(
        ROLE, trust=trusting(), policies=[document(allowing("ecs:RunTask", "*"), *statements)]
    )
    create(
        client,
        expression=AT,
        target={"Arn": CLUSTER, "EcsParameters": {"TaskDefinitionArn": definition}},
    )
    emu.clock.advance(minutes=1)
    (attempt,) = emu.attempts()
    return attempt


def declared(emu: Emulator) -> None:
    emu.iam.task_definition(DEFINITION, task_role=TASK_ROLE, execution_role=EXECUTION_ROLE)


def test_a_role_that_may_pass_both_task_roles_runs_the_task(emu: Emulator, client: Any) -> None:
    declared(emu)
    assert running(emu, client, passing(TASK_ROLE, EXECUTION_ROLE)).succeeded


def test_a_role_that_may_not_pass_the_execution_role_is_refused_naming_it(
    emu: Emulator, client: Any
) -> None:
    declared(emu)
    attempt = running(emu, client, passing(TASK_ROLE))
    assert (attempt.error_code, attempt.retryable) == ("AccessDeniedException", False)
    assert attempt.error_message == (
        f"{ROLE} is not authorized to perform iam:PassRole on {EXECUTION_ROLE}: "
        f"no statement allows iam:PassRole on {EXECUTION_ROLE}"
    )


def test_passing_is_asked_for_the_ecs_tasks_service(emu: Emulator, client: Any) -> None:
    declared(emu)
    to_lambda = {"StringEquals": {"iam:PassedToService": "lambda.amazonaws.com"}}
    attempt = running(emu, client, passing(TASK_ROLE, EXECUTION_ROLE, condition=to_lambda))
    assert "iam:PassedToService is ecs-tasks.amazonaws.com, not lambda.amazonaws.com" in (
        attempt.error_message
    )


@pytest.mark.parametrize("name", ["nightly:3", "nightly", DEFINITION.rsplit(":", 1)[0]])
def test_a_target_naming_the_definition_by_its_family_is_checked_too(
    emu: Emulator, client: Any, name: str
) -> None:
    declared(emu)
    attempt = running(emu, client, passing(TASK_ROLE), definition=name)
    assert f"iam:PassRole on {EXECUTION_ROLE}" in attempt.error_message


def test_a_task_definition_without_roles_passes_none(emu: Emulator, client: Any) -> None:
    emu.iam.task_definition(DEFINITION)
    assert running(emu, client).succeeded


@pytest.mark.parametrize(("mode", "delivered"), [("enforce", True), ("strict", False)])
def test_an_unknown_task_definition_is_allowed_unless_strict(
    emu: Emulator, client: Any, mode: str, delivered: bool
) -> None:
    emu.configure(iam=mode)
    attempt = running(emu, client)
    assert attempt.succeeded is delivered
    if not delivered:
        assert attempt.error_message == (
            f"task definition {DEFINITION} is not known to the emulator: the roles it passes "
            "(iam:PassRole) cannot be checked"
        )


def test_a_rule_targets_role_must_pass_them_too(emu: Emulator) -> None:
    events_role = f"arn:aws:iam::{ACCOUNT}:role/events"
    declared(emu)
    emu.iam.role(
        events_role,
        trust=trusting(EVENTS),
        policies=[document(allowing("ecs:RunTask", DEFINITION), passing(EXECUTION_ROLE))],
    )
    target = rule_target(
        "job", CLUSTER, RoleArn=events_role, EcsParameters={"TaskDefinitionArn": DEFINITION}
    )
    put_rule(emu, "nightly", "rate(1 hour)", target)
    emu.clock.advance(hours=1, seconds=1)
    attempt = emu.attempts()[0]
    assert (attempt.error_code, attempt.retryable) == ("NO_PERMISSIONS", False)
    assert attempt.error_message.startswith(
        f"{events_role} is not authorized to perform iam:PassRole on {TASK_ROLE}"
    )


def _template(passed: list[str]) -> dict[str, Any]:
    ecs_tasks = trusting("ecs-tasks.amazonaws.com")
    return {
        "Resources": {
            "Jobs": {"Type": "AWS::ECS::Cluster", "Properties": {"ClusterName": "jobs"}},
            "TaskRole": {
                "Type": "AWS::IAM::Role",
                "Properties": {"AssumeRolePolicyDocument": ecs_tasks, "Path": "/jobs/"},
            },
            "ExecutionRole": {
                "Type": "AWS::IAM::Role",
                "Properties": {"AssumeRolePolicyDocument": ecs_tasks},
            },
            "Nightly": {
                "Type": "AWS::ECS::TaskDefinition",
                "Properties": {
                    "Family": "nightly",
                    # A task role by its name, as CloudFormation takes it.
                    "TaskRoleArn": {"Ref": "TaskRole"},
                    "ExecutionRoleArn": {"Fn::GetAtt": ["ExecutionRole", "Arn"]},
                },
            },
            "SchedulerRole": {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "AssumeRolePolicyDocument": trusting(),
                    "Policies": [
                        {
                            "PolicyName": "run",
                            "PolicyDocument": document(
                                allowing("ecs:RunTask", {"Ref": "Nightly"}),
                                passing(*[{"Fn::GetAtt": [role, "Arn"]} for role in passed]),
                            ),
                        }
                    ],
                },
            },
            "Schedule": {
                "Type": "AWS::Scheduler::Schedule",
                "Properties": {
                    "Name": "nightly-job",
                    "ScheduleExpression": AT,
                    "FlexibleTimeWindow": {"Mode": "OFF"},
                    "Target": {
                        "Arn": {"Fn::GetAtt": ["Jobs", "Arn"]},
                        "RoleArn": {"Fn::GetAtt": ["SchedulerRole", "Arn"]},
                        "EcsParameters": {"TaskDefinitionArn": {"Ref": "Nightly"}},
                    },
                },
            },
        }
    }


@pytest.mark.parametrize(
    "passed", [["TaskRole", "ExecutionRole"], ["TaskRole"]], ids=["both", "task-role-only"]
)
def test_a_stacks_task_definition_declares_the_roles_its_schedule_must_pass(
    emu: Emulator, tmp_path: Path, passed: list[str]
) -> None:
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(_template(passed)))
    stack = emu.load_stack(path)
    emu.clock.advance(minutes=1)
    (attempt,) = emu.attempts()
    execution_role = stack.resource("ExecutionRole").arn
    assert stack.resource("TaskRole").arn.startswith(f"arn:aws:iam::{ACCOUNT}:role/jobs/")
    if len(passed) == 2:
        assert attempt.succeeded
    else:
        assert attempt.error_code == "AccessDeniedException"
        assert f"iam:PassRole on {execution_role}: no statement allows" in attempt.error_message
