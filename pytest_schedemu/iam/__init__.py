"""IAM: may principal P do action A on resource R, in context C? Decided the way AWS's
policy evaluation logic decides it, and when the answer is no, said why.

A pure wing: policies in, a ``Decision`` out; no I/O, no clock. Everything it takes is
frozen and hashable, so a caller caches a decision under the request itself (with the
role's name) and drops the cache when a policy changes.

::

    role = Role(
        ROLE,
        trust=parse_policy(trust_document, name="scheduler-role trust", kind="trust"),
        policies=(parse_policy(inline_document, name="scheduler-role/inline"),),
    )
    context = Context.of({"aws:SourceAccount": "123456789012", "aws:SourceArn": GROUP})
    role.assumable_by(Principal.service("scheduler.amazonaws.com"), context)
    role.allows("sqs:SendMessage", QUEUE).reason

    evaluate_resource(queue_policy, Request("sqs:SendMessage", QUEUE, events, context))
"""

from pytest_schedemu.iam.decision import (
    ALLOWED,
    EXPLICIT_DENY,
    IMPLICIT_DENY,
    UNTRUSTED,
    Decision,
)
from pytest_schedemu.iam.declarations import IamDeclarations, merge_policies
from pytest_schedemu.iam.errors import PolicyError
from pytest_schedemu.iam.evaluation import (
    ASSUME_ROLE,
    allows_action_somewhere,
    authorize,
    evaluate_identity,
    evaluate_resource,
    evaluate_trust,
)
from pytest_schedemu.iam.policy import Policy, parse_policy
from pytest_schedemu.iam.request import EMPTY_CONTEXT, Context, Principal, Request
from pytest_schedemu.iam.role import Role

__all__ = [
    "ALLOWED",
    "ASSUME_ROLE",
    "EMPTY_CONTEXT",
    "EXPLICIT_DENY",
    "IMPLICIT_DENY",
    "UNTRUSTED",
    "Context",
    "Decision",
    "IamDeclarations",
    "Policy",
    "PolicyError",
    "Principal",
    "Request",
    "Role",
    "allows_action_somewhere",
    "authorize",
    "evaluate_identity",
    "evaluate_resource",
    "evaluate_trust",
    "merge_policies",
    "parse_policy",
]
