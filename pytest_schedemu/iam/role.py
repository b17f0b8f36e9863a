"""A role as evaluation sees it: its ARN, its trust policy and its identity policies (inline
and attached), with the two questions an execution role is asked at each attempt."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_schedemu.iam.decision import Decision
from pytest_schedemu.iam.evaluation import evaluate_identity, evaluate_trust
from pytest_schedemu.iam.policy import IDENTITY, TRUST, Policy
from pytest_schedemu.iam.request import EMPTY_CONTEXT, Context, Principal, Request


@dataclass(frozen=True)
class Role:
    """A role: frozen, and hashed by its ARN and its policies' cached texts, so that a
    caller may key a cache on ``(role, request)`` and a changed policy makes a new key."""

    arn: str
    trust: Policy
    policies: tuple[Policy, ...] = ()

    def __post_init__(self) -> None:
        if self.trust.kind != TRUST:
            raise ValueError(
                f"the trust policy of {self.arn} must be parsed as a trust policy, "
                f"not {self.trust.kind!r}: {self.trust.name}"
            )
        wrong = [policy.name for policy in self.policies if policy.kind != IDENTITY]
        if wrong:
            raise ValueError(
                f"the policies of {self.arn} must be identity policies: {', '.join(wrong)}"
            )

    def assumable_by(self, principal: Principal, context: Context = EMPTY_CONTEXT) -> Decision:
        """Whether ``principal`` (``scheduler.amazonaws.com``, ``events.amazonaws.com``) may
        assume the role, with the context the service sets (``aws:SourceAccount``...)."""
        return evaluate_trust(self.trust, principal, role_arn=self.arn, context=context)

    def allows(self, action: str, resource: str, context: Context = EMPTY_CONTEXT) -> Decision:
        """Whether the role's policies allow ``action`` on ``resource``."""
        return evaluate_identity(self.policies, Request(action, resource, context=context))
