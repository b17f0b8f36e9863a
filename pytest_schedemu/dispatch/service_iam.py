"""What IAM the services a boto3 delivery reaches declare: moto's (or another local
emulator's) roles with their trust, inline and attached customer-managed policies, and the
policies of its queues, topics and functions, read as one source of what the emulator
knows (``state.iam``).

Read only where the delivery reaches moto (its ``mock_aws``) or an endpoint of the user's
choosing, never AWS itself: the emulator reads no account's IAM. Only the roles and
resources the live schedules and rule targets name are asked for, at the start of each
clock move (``Dispatcher.run_until``), so that a policy put into moto between two moves
counts at the second; what cannot be read leaves what is known as it was.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any, Callable
from urllib.parse import unquote

from pytest_schedemu.iam import IamDeclarations, Policy, PolicyError, Role, parse_policy

logger = logging.getLogger("pytest_schedemu.delivery.backends")

#: A boto3 client of a service, in a region.
Clients = Callable[[str, str], Any]

#: The prefix of AWS-managed policies' ARNs: the emulator has no copy of them.
AWS_MANAGED = ":iam::aws:policy/"


def _document(value: Any) -> Any:
    # IAM answers a policy document URL-encoded (moto decoded, boto3 as AWS sends it).
    if isinstance(value, str):
        text = value if value.lstrip().startswith("{") else unquote(value)
        return json.loads(text)
    return value


def _role(iam: Any, found: dict[str, Any]) -> tuple[Role, tuple[str, ...]]:
    name, arn = found["RoleName"], found["Arn"]
    trust = parse_policy(
        _document(found["AssumeRolePolicyDocument"]), name=f"{name} trust policy", kind="trust"
    )
    policies: list[Policy] = []
    for policy_name in iam.list_role_policies(RoleName=name)["PolicyNames"]:
        inline = iam.get_role_policy(RoleName=name, PolicyName=policy_name)
        policies.append(parse_policy(_document(inline["PolicyDocument"]), name=policy_name))
    unknown: list[str] = []
    attached = iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]
    for entry in attached:
        policy_arn = entry["PolicyArn"]
        if AWS_MANAGED in policy_arn:
            unknown.append(policy_arn)
            continue
        version = iam.get_policy(PolicyArn=policy_arn)["Policy"]["DefaultVersionId"]
        text = iam.get_policy_version(PolicyArn=policy_arn, VersionId=version)
        document = text["PolicyVersion"]["Document"]
        policies.append(parse_policy(_document(document), name=entry["PolicyName"]))
    return Role(arn, trust=trust, policies=tuple(policies)), tuple(unknown)


def _resource(document: Any, name: str) -> Policy:
    return parse_policy(_document(document), name=name, kind="resource")


def read_service_iam(
    clients: Clients, region: str, roles: Iterable[str], resources: Iterable[str]
) -> IamDeclarations:
    """What the services behind ``clients`` declare of the ``roles`` and of the
    ``resources`` (queues, topics, functions) the live schedules and rule targets name:
    asked one by one, so a move costs a few calls, and only of the services in use. One
    that does not exist there, or whose document is not a policy, is left out (the
    service accepted it, so the emulator knows nothing of it)."""
    from botocore.exceptions import ClientError

    known: dict[str, Role] = {}
    unknown: dict[str, tuple[str, ...]] = {}
    policies: dict[str, Policy] = {}
    for arn in sorted(set(roles)):
        iam = clients("iam", region)
        try:
            found = iam.get_role(RoleName=arn.rsplit("/", 1)[-1])["Role"]
            if found["Arn"] != arn:
                continue  # a role of that name in another account or path
            role, attached = _role(iam, found)
        except (ClientError, PolicyError) as error:
            logger.debug("role %s is not known to the delivery's services: %s", arn, error)
            continue
        known[arn] = role
        if attached:
            unknown[arn] = attached
    for arn in sorted(set(resources)):
        try:
            document = _resource_document(clients, region, arn)
            if document is not None:
                policies[arn] = _resource(document, f"policy of {arn.rsplit(':', 1)[-1]}")
        except (ClientError, PolicyError) as error:
            logger.debug("the policy of %s is not known to the delivery's services: %s", arn, error)
    return IamDeclarations(known, policies, unknown)


def _resource_document(clients: Clients, region: str, arn: str) -> Any:
    """The policy document of the queue, topic or function ``arn``; None without one."""
    service, name = arn.split(":")[2], arn.split(":", 6)[-1]
    if service == "sqs":
        sqs = clients("sqs", region)
        account = arn.split(":")[4]
        url = sqs.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=account)["QueueUrl"]
        # Without a policy, SQS answers no Attributes at all.
        answer = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])
        return answer.get("Attributes", {}).get("Policy")
    if service == "sns":
        answer = clients("sns", region).get_topic_attributes(TopicArn=arn)
        return answer.get("Attributes", {}).get("Policy")
    if service == "lambda":
        functions = clients("lambda", region)
        try:
            return functions.get_policy(FunctionName=arn)["Policy"]
        except functions.exceptions.ResourceNotFoundException:
            return None  # a function without permissions has no policy
    return None
