"""What IAM one source declared (a loaded stack, the user by hand, moto): its roles, the
resource policies of its queues, topics, functions and buses, ready to be evaluated, and the
roles its ECS task definitions pass to their tasks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats import jsontext
from pytest_schedemu.iam.policy import CURRENT_VERSION, RESOURCE_POLICY, Policy, parse_policy
from pytest_schedemu.iam.role import Role

# A malformed policy is the caller's mistake: reported at the caller's line, without
# this module's frames.
__tracebackhide__ = raised_for_the_caller


@dataclass(frozen=True)
class IamDeclarations:
    """What IAM a source declared: roles by ARN, resource policies by resource ARN."""

    roles: Mapping[str, Role] = field(default_factory=dict)  # role ARN -> Role
    resource_policies: Mapping[str, Policy] = field(
        default_factory=dict
    )  # resource ARN -> merged policy
    # role ARN -> ARNs of managed policies attached that the emulator has no copy of
    unknown_policies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # ECS task definition, by each name a target may give it (``task_definition_names``)
    # -> the ARNs of the roles its tasks are given (task role, execution role)
    task_roles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def merged(self, other: IamDeclarations) -> IamDeclarations:
        """Both sources' declarations: a role both declare is ``other``'s; the policies
        both declare for one resource are merged into one (their statements together, as
        AWS evaluates every permission of a resource together); a task definition both
        declare is ``other``'s."""
        policies = dict(self.resource_policies)
        for arn, policy in other.resource_policies.items():
            mine = policies.get(arn)
            policies[arn] = policy if mine is None else merge_policies((mine, policy))
        unknown = dict(self.unknown_policies)
        for arn, names in other.unknown_policies.items():
            unknown[arn] = tuple(dict.fromkeys((*unknown.get(arn, ()), *names)))
        return IamDeclarations(
            {**self.roles, **other.roles},
            policies,
            unknown,
            {**self.task_roles, **other.task_roles},
        )


NOTHING = IamDeclarations()

#: An ECS task definition's ARN: ``...:task-definition/<family>:<revision>``.
_TASK_DEFINITION = re.compile(
    r"^(?P<unversioned>arn:[^:]+:ecs:[^:]*:\d*:task-definition/(?P<family>[^:/]+))"
    r":(?P<revision>\d+)$"
)


def task_definition_names(arn: str) -> tuple[str, ...]:
    """Each name that ``RunTask`` takes for the task definition ``arn``: its ARN, and its
    ``family:revision``; without a revision, the family and its ARN name the latest one,
    which the declared revision is taken to be [aws: ECS API reference, ``RunTask``,
    ``taskDefinition``]. An ARN of another shape is its one name."""
    match = _TASK_DEFINITION.match(arn)
    if match is None:
        return (arn,)
    family = match["family"]
    return (arn, f"{family}:{match['revision']}", match["unversioned"], family)


def merge_policies(policies: Iterable[Policy]) -> Policy:
    """One resource policy holding every statement of ``policies`` (several Lambda
    permissions, or a queue's policies from two sources). A ``Sid`` that repeats is told
    apart by the name of the policy it came from, so messages still point at it."""
    listed = list(policies)
    if len(listed) == 1:
        return listed[0]
    statements: list[object] = []
    seen: set[str] = set()
    for policy in listed:
        document = jsontext.loads(policy.document)
        found = document["Statement"]
        for statement in found if isinstance(found, list) else [found]:
            sid = statement.get("Sid")
            if isinstance(sid, str) and sid:
                if sid in seen:
                    statement = {**statement, "Sid": f"{sid} ({policy.name})"}
                seen.add(statement["Sid"])
            statements.append(statement)
    # Policy variables are read only in the current version: keep them if any part has it.
    version = (
        CURRENT_VERSION
        if any(policy.version == CURRENT_VERSION for policy in listed)
        else listed[0].version
    )
    name = " + ".join(dict.fromkeys(policy.name for policy in listed))
    return parse_policy(
        {"Version": version, "Statement": statements}, name=name, kind=RESOURCE_POLICY
    )
