"""The answer to "may P do A on R?": allowed or not, and when not, why, in words a user
reads in a failed attempt."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_schedemu.iam.request import Request

#: What decided, in AWS's terms (IAM User Guide, "Policy evaluation logic").
ALLOWED = "allowed"
#: A Deny statement matched: nothing else can allow it.
EXPLICIT_DENY = "explicit-deny"
#: No statement allowed it (none matched, or the closest one's condition failed).
IMPLICIT_DENY = "implicit-deny"
#: The trust policy does not let the principal assume the role.
UNTRUSTED = "untrusted"


@dataclass(frozen=True)
class Decision:
    """The outcome of one evaluation, with what was evaluated.

    ``reason`` is one of: ``allowed by <policy> (statement <Sid or index>)``; ``no
    statement allows <action> on <resource>``; ``an explicit Deny in <policy> (statement
    <Sid or index>)``; ``the trust policy does not let <principal> assume it``; or, when the
    closest statement failed only on a condition, ``condition <operator> <key> is <value>,
    not <expected> (<policy>, statement <Sid or index>)``.
    """

    allowed: bool
    kind: str
    reason: str
    #: What was evaluated: the action, the resource, the principal and the context.
    request: Request
    #: ``<policy>, statement <Sid or index>`` of the statement that decided (the allowing
    #: one, the denying one, or the closest one whose condition failed); None otherwise.
    statement: str | None = None

    @property
    def action(self) -> str:
        return self.request.action

    @property
    def resource(self) -> str:
        return self.request.resource

    @property
    def principal(self) -> str | None:
        """The principal's ARN or service name; None for identity policies alone."""
        principal = self.request.principal
        return principal.name if principal is not None else None
