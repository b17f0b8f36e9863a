"""May an attempt reach its target? What AWS asks of IAM before a schedule or a rule target
delivers, asked of what the emulator knows (docs/iam.md).

``ACTIONS`` is the one table of the action each target kind's delivery needs. A producer
states its facts once (``Delivering``: who delivers, on whose behalf, with which role, to
which target and dead-letter queue); ``attempt_verdict`` and ``dead_letter_verdict`` answer
for any producer alike, and ``creation_verdict`` is CreateSchedule's check of the role.
Each answer is None (allowed) or a ``Refusal`` with the code and message the delivering
service reports. Pure: the caller caches answers under the knowledge's ``version``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from pytest_schedemu.errors import ROLE_NOT_ASSUMABLE
from pytest_schedemu.formats import jsontext
from pytest_schedemu.iam import (
    EMPTY_CONTEXT,
    IMPLICIT_DENY,
    Context,
    Decision,
    Policy,
    Principal,
    Request,
    Role,
    allows_action_somewhere,
    authorize,
    evaluate_resource,
    evaluate_trust,
    parse_policy,
)
from pytest_schedemu.model.arns import schedule_group_arn
from pytest_schedemu.model.resources import Schedule, Target
from pytest_schedemu.targets.kinds import UNIVERSAL, target_kind

SCHEDULER = "scheduler.amazonaws.com"
EVENTS = "events.amazonaws.com"

ENFORCE, STRICT, OFF = "enforce", "strict", "off"

#: The IAM action a delivery to each kind of target makes [aws: Scheduler User Guide,
#: "Set up the execution role", its per-target permissions; EventBridge User Guide,
#: "Amazon EventBridge targets"]. A universal target's is its ARN's ``service:Action``;
#: a generic target names no API, so nothing is asked of it.
ACTIONS: Mapping[str, str] = {
    "lambda": "lambda:InvokeFunction",
    "sqs": "sqs:SendMessage",
    "sns": "sns:Publish",
    "states": "states:StartExecution",
    "events": "events:PutEvents",
    "eventsv2": "events:PutEvents",
    "kinesis": "kinesis:PutRecord",
    "firehose": "firehose:PutRecord",
    "ecs": "ecs:RunTask",
    "sagemaker": "sagemaker:StartPipelineExecution",
    "codebuild": "codebuild:StartBuild",
    "codepipeline": "codepipeline:StartPipelineExecution",
    "inspector": "inspector:StartAssessmentRun",
}

#: The kinds EventBridge reaches through the target's own resource policy, not a role
#: [aws: EventBridge User Guide, "Using resource-based policies for Amazon EventBridge"].
RESOURCE_POLICY_KINDS = frozenset({"lambda", "sqs", "sns"})

#: Each service's codes for a role it may not assume and for a missing permission: the
#: Scheduler's AccessDeniedException; EventBridge's dead-letter categories.
CODES: Mapping[str, tuple[str, str]] = {
    SCHEDULER: ("AccessDeniedException", "AccessDeniedException"),
    EVENTS: ("FAILED_TO_ASSUME_ROLE", "NO_PERMISSIONS"),
}


class Knowledge(Protocol):
    """What evaluation reads of what the emulator knows (``state.iam.IamKnowledge``)."""

    def role(self, arn: str) -> Role | None: ...

    def resource_policy(self, arn: str) -> Policy | None: ...

    def unknown_policies(self, role_arn: str) -> tuple[str, ...]: ...

    def task_roles(self, task_definition: str) -> tuple[str, ...] | None: ...


@dataclass(frozen=True)
class Delivering:
    """What an attempt of one producer asks of IAM, as the producer states it."""

    #: The service principal that delivers: ``scheduler.amazonaws.com`` or
    #: ``events.amazonaws.com``.
    principal: str
    #: The condition keys the service sets: the owner's account, and the ARN it
    #: delivers for (the schedule's group, the rule).
    account: str
    source_arn: str
    target_arn: str
    #: The role it delivers with; None when the target's own policy decides.
    role_arn: str | None
    #: The action and the resource it is asked on; no action: nothing is asked.
    action: str | None
    resource: str
    kms_key_arn: str | None = None
    dead_letter_arn: str | None = None
    #: The ECS task definition an attempt runs, whose roles the role must pass.
    task_definition: str | None = None
    #: Whether the role sends the dead letter (Scheduler), or the service principal
    #: itself under the queue's policy (EventBridge).
    dead_letter_by_role: bool = True

    @property
    def context(self) -> Context:
        return _context(self.account, self.source_arn)


@lru_cache(maxsize=1024)
def _context(account: str, source_arn: str) -> Context:
    return Context.of({"aws:SourceAccount": account, "aws:SourceArn": source_arn})


@dataclass(frozen=True)
class Refusal:
    """Why an attempt (or its dead letter) may not go: the code and message its service
    reports, and the decision that refused it (None for what the emulator does not know,
    under ``strict``)."""

    code: str
    message: str
    decision: Decision | None = None


def _action(target: Target) -> tuple[str | None, str]:
    """The action a delivery to ``target`` makes, and the resource it is asked on."""
    kind = target_kind(target.arn)
    if kind.name == UNIVERSAL:
        # The resource is in the request's parameters, which AWS reads and this does not.
        return f"{kind.service}:{kind.operation}", "*"
    if kind.name == "ecs":
        return ACTIONS["ecs"], _task_definition(target) or target.arn
    return ACTIONS.get(kind.name), target.arn


def _task_definition(target: Target) -> str | None:
    """The task definition an ECS target runs, as its ``EcsParameters`` name it."""
    if target_kind(target.arn).name != "ecs":
        return None
    definition = target.parameters.get("EcsParameters", {}).get("TaskDefinitionArn")
    return definition if isinstance(definition, str) and definition else None


def scheduler_delivering(schedule: Schedule) -> Delivering:
    """A schedule's attempts: Scheduler assumes the execution role, with the schedule's
    account and its group's ARN as ``aws:SourceAccount`` and ``aws:SourceArn`` [aws:
    Scheduler User Guide, "Set up the execution role", "Cross-service confused deputy
    prevention"]."""
    target = schedule.target
    action, resource = _action(target)
    return Delivering(
        principal=SCHEDULER,
        account=schedule.account_id,
        source_arn=schedule_group_arn(schedule.region, schedule.account_id, schedule.group_name),
        target_arn=target.arn,
        role_arn=target.role_arn or None,
        action=action,
        resource=resource,
        kms_key_arn=schedule.kms_key_arn,
        dead_letter_arn=target.dead_letter_arn,
        task_definition=_task_definition(target),
    )


def rule_delivering(rule_arn: str, account: str, target: Target) -> Delivering:
    """A rule target's attempts: EventBridge reaches a function, queue or topic under its
    own policy, any other target with the target's role; ``aws:SourceArn`` is the rule's
    ARN. Its dead letter goes under the queue's policy."""
    action, resource = _action(target)
    by_policy = target_kind(target.arn).name in RESOURCE_POLICY_KINDS
    return Delivering(
        principal=EVENTS,
        account=account,
        source_arn=rule_arn,
        target_arn=target.arn,
        role_arn=None if by_policy else target.role_arn or None,
        action=action,
        resource=resource,
        dead_letter_arn=target.dead_letter_arn,
        dead_letter_by_role=False,
        task_definition=_task_definition(target),
    )


# -- the verdicts ---------------------------------------------------------------------------


def attempt_verdict(delivering: Delivering, knowledge: Knowledge, mode: str) -> Refusal | None:
    """Whether an attempt may reach its target: None, or why not. With ``mode``
    ``enforce`` what the emulator knows nothing of is allowed, with ``strict`` refused,
    with ``off`` nothing is asked."""
    action = delivering.action
    if mode == OFF or action is None:
        return None
    if delivering.role_arn is None:
        return _by_policy(delivering, action, delivering.resource, knowledge, mode, "")
    role, refusal = _assumed(delivering, knowledge, mode)
    if role is None:
        return refusal
    refusal = _permitted(delivering, role, action, delivering.resource, knowledge, mode)
    if refusal is None and delivering.task_definition is not None:
        refusal = _passed(delivering, role, delivering.task_definition, knowledge, mode)
    if refusal is None and delivering.kms_key_arn is not None:
        refusal = _permitted(
            delivering, role, "kms:Decrypt", delivering.kms_key_arn, knowledge, mode
        )
    return refusal


def dead_letter_verdict(delivering: Delivering, knowledge: Knowledge, mode: str) -> Refusal | None:
    """Whether the dead letter may be sent to the producer's queue (``sqs:SendMessage``):
    by the execution role, which must be assumed first, or under the queue's policy."""
    queue = delivering.dead_letter_arn
    if mode == OFF or queue is None:
        return None
    action = "sqs:SendMessage"
    if not delivering.dead_letter_by_role:
        return _by_policy(delivering, action, queue, knowledge, mode, "the dead letter: ")
    role, refusal = _assumed(delivering, knowledge, mode)
    if role is None:
        return refusal
    return _permitted(delivering, role, action, queue, knowledge, mode)


def creation_verdict(
    role_arn: str, knowledge: Knowledge, mode: str, principal: str = SCHEDULER
) -> str | None:
    """CreateSchedule's and UpdateSchedule's check of a role the emulator knows: None, or
    why ``principal`` may not assume it. Only the trust policy's principals are read: its
    conditions are the attempt's to evaluate, with the attempt's context [choice]."""
    role = knowledge.role(role_arn)
    if mode == OFF or role is None:
        return None
    decision = evaluate_trust(
        _unconditional(role.trust), Principal.service(principal), role_arn=role_arn
    )
    return None if decision.allowed else f"{role_arn}: {decision.reason}"


@lru_cache(maxsize=256)
def _unconditional(trust: Policy) -> Policy:
    """The trust policy as creation reads it: each Allow whatever its condition, each Deny
    only when it has none (a conditional Deny is the attempt's to weigh)."""
    document = jsontext.loads(trust.document)
    statements: list[Any] = document["Statement"]
    bare = [
        {key: value for key, value in item.items() if key != "Condition"}
        for item in statements
        if item.get("Effect") == "Allow" or "Condition" not in item
    ]
    return parse_policy({**document, "Statement": bare}, name=trust.name, kind=trust.kind)


def _assumed(
    delivering: Delivering, knowledge: Knowledge, mode: str
) -> tuple[Role | None, Refusal | None]:
    """The role, when the service may assume it; else None and why not (None too for a
    role the emulator does not know, under ``enforce``)."""
    role_arn = delivering.role_arn
    assert role_arn is not None
    role = knowledge.role(role_arn)
    code = CODES[delivering.principal][0]
    prefix = f"{ROLE_NOT_ASSUMABLE} " if delivering.principal == SCHEDULER else ""
    if role is None:
        if mode == STRICT:
            return None, Refusal(code, f"{prefix}role {role_arn} is not known to the emulator")
        return None, None
    decision = role.assumable_by(Principal.service(delivering.principal), delivering.context)
    if decision.allowed:
        return role, None
    message = f"{prefix}sts:AssumeRole on {role_arn}: {decision.reason}"
    return None, Refusal(code, message, decision)


#: What ``iam:PassRole`` is asked with when the role is passed to an ECS task [aws: IAM
#: User Guide, "IAM and AWS STS condition context keys", ``iam:PassedToService``].
_TO_ECS_TASKS = Context.of({"iam:PassedToService": "ecs-tasks.amazonaws.com"})


def _passed(
    delivering: Delivering, role: Role, task_definition: str, knowledge: Knowledge, mode: str
) -> Refusal | None:
    """Whether the role may pass each role of the ECS task definition to its task
    (``iam:PassRole`` on the role's ARN) [aws: ECS Developer Guide, "Amazon ECS EventBridge
    IAM Role": a task role and a task execution role need ``iam:PassRole``]. A task
    definition the emulator does not know passes nothing it can check: allowed, refused
    under ``strict``."""
    passed = knowledge.task_roles(task_definition)
    if passed is None:
        if mode != STRICT:
            return None
        code = CODES[delivering.principal][1]
        return Refusal(
            code,
            f"task definition {task_definition} is not known to the emulator: the roles it "
            "passes (iam:PassRole) cannot be checked",
        )
    for passed_role in passed:
        refusal = _permitted(
            delivering, role, "iam:PassRole", passed_role, knowledge, mode, _TO_ECS_TASKS
        )
        if refusal is not None:
            return refusal
    return None


def _permitted(
    delivering: Delivering,
    role: Role,
    action: str,
    resource: str,
    knowledge: Knowledge,
    mode: str,
    context: Context | None = None,
) -> Refusal | None:
    """Whether the role may do ``action`` on ``resource``: its policies, with the
    resource's own policy when the emulator knows one (a Deny there wins; across accounts
    both must allow)."""
    policy = knowledge.resource_policy(resource)
    principal = Principal.aws(role.arn)
    request = Request(action, resource, principal, context or EMPTY_CONTEXT)
    decision = authorize(
        request,
        identity=role.policies,
        resource_policy=policy,
        resource_must_allow=policy is not None and action.startswith("kms:"),
    )
    if decision.allowed:
        return None
    if decision.kind == IMPLICIT_DENY:
        unknown = knowledge.unknown_policies(role.arn)
        if mode != STRICT and unknown:
            # A policy the emulator has no copy of might allow it: what is not known is
            # allowed.
            return None
        if resource == "*":
            # A universal target's resource is in its parameters, which this does not
            # read: a role that allows the action on some resource may be allowing this
            # one (strict refuses what it cannot show), one that allows it nowhere is not.
            somewhere = allows_action_somewhere(role.policies, action)
            if somewhere and mode != STRICT:
                return None
            if not somewhere:
                reason = f"no statement allows {action} on any resource"
                return _refused(delivering, role.arn, action, resource, reason, decision)
        if unknown:
            listed = ", ".join(unknown)
            reason = f"{decision.reason}; attached {listed}, which the emulator does not know"
            return _refused(delivering, role.arn, action, resource, reason, decision)
    return _refused(delivering, role.arn, action, resource, decision.reason, decision)


def _refused(
    delivering: Delivering,
    who: str,
    action: str,
    resource: str,
    reason: str,
    decision: Decision | None,
) -> Refusal:
    code = CODES[delivering.principal][1]
    return Refusal(
        code, f"{who} is not authorized to perform {action} on {resource}: {reason}", decision
    )


def _by_policy(
    delivering: Delivering,
    action: str,
    resource: str,
    knowledge: Knowledge,
    mode: str,
    what: str,
) -> Refusal | None:
    """Whether the resource's own policy lets the service principal do ``action``."""
    policy = knowledge.resource_policy(resource) or _unqualified_policy(resource, knowledge)
    code = CODES[delivering.principal][1]
    if policy is None:
        if mode == STRICT:
            return Refusal(code, f"{what}the policy of {resource} is not known to the emulator")
        return None
    principal = Principal.service(delivering.principal)
    decision = evaluate_resource(policy, Request(action, resource, principal, delivering.context))
    if decision.allowed:
        return None
    message = (
        f"{what}the policy of {resource} does not let {principal.name} perform {action}: "
        f"{decision.reason}"
    )
    return Refusal(code, message, decision)


def _unqualified_policy(resource: str, knowledge: Knowledge) -> Policy | None:
    """A function's policy, for a target that names one of its aliases or versions."""
    if target_kind(resource).name != "lambda" or resource.count(":") < 7:
        return None
    return knowledge.resource_policy(resource.rsplit(":", 1)[0])
