"""IAM: may principal P do action A on resource R, in context C? Decided the way AWS's
policy evaluation logic decides it, and when the answer is no, said why.

A pure wing: policies in, a ``Decision`` out; no I/O, no clock. Everything it takes is
frozen and hashable, so a caller caches a decision under the request itself (with the
role's name) and drops the cache when a policy changes.

::

    trust = parse_policy(document, name="Role trust", kind="trust")
    decision = evaluate_trust(
        trust,
        Principal.service("scheduler.amazonaws.com"),
        role_arn=ROLE,
        context=Context.of({"aws:SourceAccount": "123456789012"}),
    )
    decision.allowed, decision.reason

    request = Request("sqs:SendMessage", QUEUE)
    evaluate_identity([inline, attached], request)
"""

from pytest_schedemu.iam.decision import (
    ALLOWED,
    EXPLICIT_DENY,
    IMPLICIT_DENY,
    UNTRUSTED,
    Decision,
)
from pytest_schedemu.iam.errors import PolicyError
from pytest_schedemu.iam.evaluation import (
    ASSUME_ROLE,
    authorize,
    evaluate_identity,
    evaluate_resource,
    evaluate_trust,
)
from pytest_schedemu.iam.policy import Policy, parse_policy
from pytest_schedemu.iam.request import EMPTY_CONTEXT, Context, Principal, Request

__all__ = [
    "ALLOWED",
    "ASSUME_ROLE",
    "EMPTY_CONTEXT",
    "EXPLICIT_DENY",
    "IMPLICIT_DENY",
    "UNTRUSTED",
    "Context",
    "Decision",
    "Policy",
    "PolicyError",
    "Principal",
    "Request",
    "authorize",
    "evaluate_identity",
    "evaluate_resource",
    "evaluate_trust",
    "parse_policy",
]
