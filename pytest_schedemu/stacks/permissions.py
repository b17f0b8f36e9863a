"""What IAM a resolved stack declares: its roles with their trust and identity policies, and
the resource policies its functions, queues, topics and event buses are given.

- ``AWS::IAM::Role``: ``AssumeRolePolicyDocument`` is its trust policy, ``Policies`` its
  inline policies; ``ManagedPolicyArns`` attaches the stack's ``AWS::IAM::ManagedPolicy``
  resources by ARN, and any other ARN (an AWS-managed policy, a policy made outside the
  stack) is listed as unknown: the emulator holds no copy of it.
- ``AWS::IAM::Policy`` and ``AWS::IAM::ManagedPolicy`` attach to the stack's roles their
  ``Roles`` name (role names, as ``Ref`` of a role answers).
- ``AWS::Lambda::Permission``: one statement of its function's policy, as Lambda's
  AddPermission writes it; the permissions of one function make one policy.
- ``AWS::SQS::QueuePolicy`` (``Queues``: URLs), ``AWS::SQS::QueueInlinePolicy``,
  ``AWS::SNS::TopicPolicy`` (``Topics``: ARNs), ``AWS::SNS::TopicInlinePolicy``,
  ``AWS::Events::EventBusPolicy`` and an ``AWS::Events::EventBus``'s ``Policy``: the
  statements given to one resource make its one policy.
- A function, queue or topic of the stack given none of these has an empty policy.
- ``AWS::ECS::TaskDefinition``: its ``TaskRoleArn`` and ``ExecutionRoleArn`` (an ARN, or a
  role's name in the stack's account), the roles a schedule or rule running it must pass.

A document IAM would refuse is a StackError naming the resource and the policy's fault.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_schedemu.errors import StackError, raised_for_the_caller
from pytest_schedemu.iam.declarations import (
    IamDeclarations,
    merge_policies,
    task_definition_names,
)
from pytest_schedemu.iam.errors import PolicyError
from pytest_schedemu.iam.policy import (
    CURRENT_VERSION,
    IDENTITY,
    RESOURCE_POLICY,
    TRUST,
    Policy,
    parse_policy,
)
from pytest_schedemu.iam.role import Role
from pytest_schedemu.stacks.stack import ResolvedStack, StackResource

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

ROLE = "AWS::IAM::Role"
POLICY = "AWS::IAM::Policy"
MANAGED_POLICY = "AWS::IAM::ManagedPolicy"
LAMBDA_PERMISSION = "AWS::Lambda::Permission"
QUEUE_POLICY = "AWS::SQS::QueuePolicy"
QUEUE_INLINE_POLICY = "AWS::SQS::QueueInlinePolicy"
TOPIC_POLICY = "AWS::SNS::TopicPolicy"
TOPIC_INLINE_POLICY = "AWS::SNS::TopicInlinePolicy"
EVENT_BUS_POLICY = "AWS::Events::EventBusPolicy"
EVENT_BUS = "AWS::Events::EventBus"
TASK_DEFINITION = "AWS::ECS::TaskDefinition"

#: The resources whose policy decides whether a service may deliver to them.
_POLICY_HOLDERS = ("AWS::Lambda::Function", "AWS::SQS::Queue", "AWS::SNS::Topic")

#: The queue URLs SQS answers: ``https://sqs.<region>.<suffix>/<account>/<name>``, and the
#: older ``https://<region>.queue.amazonaws.com/...`` and ``https://queue.amazonaws.com/...``
#: (us-east-1).
_QUEUE_URL = re.compile(
    r"^https?://(?:sqs\.(?P<region>[a-z0-9-]+)\.[^/]+|(?:(?P<old>[a-z0-9-]+)\.)?queue\.amazonaws\.com)"
    r"/(?P<account>\d{12})/(?P<name>[^/]+)$"
)

#: Lambda's AddPermission conditions, as it writes them into the function's policy.
_PERMISSION_CONDITIONS = (
    ("SourceArn", "ArnLike", "AWS:SourceArn"),
    ("SourceAccount", "StringEquals", "AWS:SourceAccount"),
    ("PrincipalOrgID", "StringEquals", "aws:PrincipalOrgID"),
    ("EventSourceToken", "StringEquals", "lambda:EventSourceToken"),
    ("FunctionUrlAuthType", "StringEquals", "lambda:FunctionUrlAuthType"),
)


def declared_iam(stack: ResolvedStack) -> IamDeclarations:
    """The roles and resource policies ``stack`` declares (see the module's docstring)."""
    reader = _Reader(stack)
    return IamDeclarations(
        roles=reader.roles(),
        resource_policies=reader.resource_policies(),
        unknown_policies=reader.unknown,
        task_roles=reader.task_roles(),
    )


class _Reader:
    def __init__(self, stack: ResolvedStack) -> None:
        self.stack = stack
        self.unknown: dict[str, tuple[str, ...]] = {}
        self._policies: dict[str, list[Policy]] = {}

    # -- roles ------------------------------------------------------------------------

    def roles(self) -> dict[str, Role]:
        stack = self.stack
        roles = stack.of_type(ROLE)
        by_name = {role.physical_name: role for role in roles}
        attached: dict[str, list[Policy]] = {role.logical_id: [] for role in roles}
        managed = {}
        for resource in stack.of_type(MANAGED_POLICY):
            policy = self._document(resource, "PolicyDocument", resource.logical_id, IDENTITY)
            managed[resource.arn] = policy
            for role in self._named_roles(resource, by_name):
                attached[role.logical_id].append(policy)
        for resource in stack.of_type(POLICY):
            policy = self._document(resource, "PolicyDocument", resource.logical_id, IDENTITY)
            for role in self._named_roles(resource, by_name):
                attached[role.logical_id].append(policy)
        found = {}
        for role in roles:
            assert role.arn is not None  # every role has one (``resources.KINDS``)
            inline = self._inline(role)
            listed = self._strings(role, "ManagedPolicyArns")
            by_arn = [managed[arn] for arn in listed if arn in managed]
            unknown = tuple(arn for arn in listed if arn not in managed)
            if unknown:
                self.unknown[role.arn] = unknown
            policies = _once([*inline, *by_arn, *attached[role.logical_id]])
            trust = self._document(
                role, "AssumeRolePolicyDocument", f"{role.logical_id} trust policy", TRUST
            )
            found[role.arn] = Role(role.arn, trust=trust, policies=tuple(policies))
        return found

    def _inline(self, role: StackResource) -> list[Policy]:
        listed = role.properties.get("Policies") or []
        if not isinstance(listed, list):
            raise self._error(role, "Policies", f"must be a list of policies, not {listed!r}")
        policies = []
        for index, item in enumerate(listed):
            name = item.get("PolicyName") if isinstance(item, Mapping) else None
            if not isinstance(name, str) or "PolicyDocument" not in item:
                raise self._error(
                    role,
                    f"Policies.{index}",
                    f"an inline policy has a PolicyName and a PolicyDocument, not {item!r}",
                )
            policies.append(
                self._parsed(
                    role,
                    item["PolicyDocument"],
                    f"Policies.{index}.PolicyDocument",
                    f"{role.logical_id}/{name}",
                    IDENTITY,
                )
            )
        return policies

    def _named_roles(
        self, resource: StackResource, by_name: Mapping[str | None, StackResource]
    ) -> list[StackResource]:
        # A role made outside the stack is not known here: what is attached to it is not
        # either (its trust policy, which an attempt asks first, is nowhere to be read).
        return [by_name[name] for name in self._strings(resource, "Roles") if name in by_name]

    def task_roles(self) -> dict[str, tuple[str, ...]]:
        """The roles each ECS task definition gives its tasks, by each name it goes by."""
        found: dict[str, tuple[str, ...]] = {}
        stack = self.stack
        # CloudFormation takes a task role by its name too: the stack's role of that name
        # (its ARN has its path), else the account's.
        by_name = {role.physical_name: role.arn for role in stack.of_type(ROLE)}
        for resource in stack.of_type(TASK_DEFINITION):
            assert resource.arn is not None  # every task definition has one
            roles = []
            for element in ("TaskRoleArn", "ExecutionRoleArn"):
                if resource.properties.get(element) is None:
                    continue
                role = self._string(resource, element)
                if not role.startswith("arn:"):
                    role = (
                        by_name.get(role)
                        or f"arn:{stack.partition}:iam::{stack.account}:role/{role}"
                    )
                roles.append(role)
            found.update(dict.fromkeys(task_definition_names(resource.arn), tuple(roles)))
        return found

    # -- resource policies ------------------------------------------------------------

    def resource_policies(self) -> dict[str, Policy]:
        stack = self.stack
        for resource in stack.of_type(LAMBDA_PERMISSION):
            self._permission(resource)
        for resource in stack.of_type(QUEUE_POLICY):
            policy = self._given(resource)
            for url in self._strings(resource, "Queues"):
                self._give(self._queue_arn(resource, url), policy)
        for resource in stack.of_type(QUEUE_INLINE_POLICY):
            url = self._string(resource, "Queue")
            self._give(self._queue_arn(resource, url), self._given(resource))
        for resource in stack.of_type(TOPIC_POLICY):
            policy = self._given(resource)
            for arn in self._strings(resource, "Topics"):
                self._give(arn, policy)
        for resource in stack.of_type(TOPIC_INLINE_POLICY):
            self._give(self._string(resource, "TopicArn"), self._given(resource))
        for resource in stack.of_type(EVENT_BUS):
            if resource.properties.get("Policy") is not None:
                assert resource.arn is not None
                self._give(resource.arn, self._given(resource, "Policy"))
        for resource in stack.of_type(EVENT_BUS_POLICY):
            self._bus_statement(resource)
        # A function, queue or topic of the stack that is given no policy has none: no
        # service may invoke it or send to it (rather than an unknown resource, allowed).
        for resource_type in _POLICY_HOLDERS:
            for resource in stack.of_type(resource_type):
                if resource.arn is not None and resource.arn not in self._policies:
                    name = f"{resource.logical_id} (no resource policy)"
                    document = {"Version": CURRENT_VERSION, "Statement": []}
                    self._policies[resource.arn] = [
                        parse_policy(document, name=name, kind=RESOURCE_POLICY)
                    ]
        # Every statement given to a resource is evaluated together, as AWS keeps them in
        # one policy (a function's permissions; several queue policies: docs/iam.md).
        return {arn: merge_policies(policies) for arn, policies in self._policies.items()}

    def _given(self, resource: StackResource, element: str = "PolicyDocument") -> Policy:
        """The resource policy document the resource gives, named by the resource."""
        if element not in resource.properties:
            raise self._error(resource, element, "is missing; the resource needs it")
        document = resource.properties[element]
        return self._parsed(resource, document, element, resource.logical_id, RESOURCE_POLICY)

    def _give(self, arn: str, policy: Policy) -> None:
        given = self._policies.setdefault(arn, [])
        if policy not in given:
            given.append(policy)

    def _statement(self, resource: StackResource, statement: Mapping[str, Any], at: str) -> Policy:
        """The one statement a resource adds to a resource's policy, as its policy."""
        document = {"Version": CURRENT_VERSION, "Statement": [statement]}
        return self._parsed(resource, document, at, resource.logical_id, RESOURCE_POLICY)

    def _permission(self, resource: StackResource) -> None:
        """The statement Lambda's AddPermission adds to the function's policy."""
        function = self._function_arn(self._string(resource, "FunctionName"))
        statement: dict[str, Any] = {
            "Sid": resource.logical_id,
            "Effect": "Allow",
            "Principal": _principal(self._string(resource, "Principal")),
            "Action": self._string(resource, "Action"),
            "Resource": function,
        }
        condition: dict[str, dict[str, str]] = {}
        for element, operator, key in _PERMISSION_CONDITIONS:
            value = resource.properties.get(element)
            if value is not None:
                condition.setdefault(operator, {})[key] = str(value)
        if condition:
            statement["Condition"] = condition
        self._give(function, self._statement(resource, statement, "Properties"))

    def _bus_statement(self, resource: StackResource) -> None:
        """An ``AWS::Events::EventBusPolicy``: its ``Statement``, or the statement its older
        ``Action``, ``Principal`` and ``Condition`` make, as PutPermission adds it."""
        properties = resource.properties
        stack = self.stack
        bus = str(properties.get("EventBusName") or "default")
        arn = bus
        if not arn.startswith("arn:"):
            arn = f"arn:{stack.partition}:events:{stack.region}:{stack.account}:event-bus/{bus}"
        sid = self._string(resource, "StatementId")
        given = properties.get("Statement")
        if given is not None:
            if not isinstance(given, Mapping):
                raise self._error(resource, "Statement", f"must be a statement, not {given!r}")
            self._give(arn, self._statement(resource, {"Sid": sid, **given}, "Statement"))
            return
        principal = self._string(resource, "Principal")
        statement: dict[str, Any] = {
            "Sid": sid,
            "Effect": "Allow",
            "Principal": "*" if principal == "*" else {"AWS": principal},
            "Action": self._string(resource, "Action"),
            "Resource": arn,
        }
        condition = properties.get("Condition")
        if isinstance(condition, Mapping):
            statement["Condition"] = {
                condition.get("Type"): {condition.get("Key"): condition.get("Value")}
            }
        self._give(arn, self._statement(resource, statement, "Properties"))

    # -- reading the properties -------------------------------------------------------

    def _document(self, resource: StackResource, element: str, name: str, kind: str) -> Policy:
        if element not in resource.properties:
            raise self._error(resource, element, "is missing; the resource needs it")
        return self._parsed(resource, resource.properties[element], element, name, kind)

    def _parsed(
        self, resource: StackResource, document: Any, element: str, name: str, kind: str
    ) -> Policy:
        try:
            return parse_policy(document, name=name, kind=kind)
        except PolicyError as error:
            raise self._error(resource, element, str(error)) from None

    def _string(self, resource: StackResource, element: str) -> str:
        value = resource.properties.get(element)
        if not isinstance(value, str) or not value:
            raise self._error(resource, element, f"must be a string, not {value!r}")
        return value

    def _strings(self, resource: StackResource, element: str) -> list[str]:
        value = resource.properties.get(element) or []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self._error(resource, element, f"must be a list of strings, not {value!r}")
        return value

    def _function_arn(self, function: str) -> str:
        """The function a permission names by name, ARN or partial ARN (with its
        qualifier, if any), as an ARN."""
        if function.startswith("arn:"):
            return function
        stack = self.stack
        prefix = f"arn:{stack.partition}:lambda:{stack.region}:"
        if ":function:" in function:
            return prefix + function
        return f"{prefix}{stack.account}:function:{function}"

    def _queue_arn(self, resource: StackResource, url: str) -> str:
        for queue in self.stack.of_type("AWS::SQS::Queue"):
            if queue.ref == url and queue.arn is not None:
                return queue.arn
        match = _QUEUE_URL.match(url)
        if match is None:
            raise self._error(resource, "Queues", f"{url!r} is not a queue's URL")
        stack = self.stack
        region = match["region"] or match["old"] or "us-east-1"
        return f"arn:{stack.partition}:sqs:{region}:{match['account']}:{match['name']}"

    def _error(self, resource: StackResource, element: str, problem: str) -> StackError:
        where = "Properties" if element == "Properties" else f"Properties.{element}"
        return StackError(
            f"{self.stack.source.name}: resource {resource.logical_id} ({resource.type}): "
            f"{problem} (at {where})"
        )


def _principal(principal: str) -> Any:
    """A permission's ``Principal`` as Lambda writes it into the policy: a service by its
    name, an account or an ARN as an AWS principal, ``*`` as everyone."""
    if principal == "*":
        return "*"
    if principal.isdigit() or principal.startswith("arn:"):
        return {"AWS": principal}
    return {"Service": principal}


def _once(policies: list[Policy]) -> list[Policy]:
    """Each policy once, in the order first attached (a managed policy may be attached by
    the role's ``ManagedPolicyArns`` and by its own ``Roles`` both)."""
    seen: list[Policy] = []
    for policy in policies:
        if not any(policy is kept for kept in seen):
            seen.append(policy)
    return seen
