"""Evaluation: explicit Deny wins, then Allow, else the request is implicitly denied (IAM
User Guide, "Policy evaluation logic", "How AWS enforcement code logic evaluates requests to
allow or deny access", "Policy evaluation for requests within a single account",
"Cross-account policy evaluation logic").

Three questions, and one that joins the first two:

* ``evaluate_identity``: may a role (its inline and attached policies) do A on R?
* ``evaluate_resource``: does a resource's policy let principal P do A on it? (A service
  principal such as ``events.amazonaws.com`` has no identity policies: this alone decides.)
* ``evaluate_trust``: may principal P assume the role (``sts:AssumeRole``)? A role's trust
  policy must allow it explicitly; the caller's identity policies never suffice alone.
* ``authorize``: identity and resource policies together. In one account either allowing
  suffices, unless the resource policy names only the account (then the identity policy
  must allow); across accounts both must allow.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_schedemu.iam.conditions import Condition, first_failing
from pytest_schedemu.iam.decision import (
    ALLOWED,
    EXPLICIT_DENY,
    IMPLICIT_DENY,
    UNTRUSTED,
    Decision,
)
from pytest_schedemu.iam.policy import Policy, Statement
from pytest_schedemu.iam.principals import DIRECT, NO_MATCH
from pytest_schedemu.iam.request import AWS, EMPTY_CONTEXT, Context, Principal, Request

ASSUME_ROLE = "sts:AssumeRole"

_Found = tuple[Policy, Statement]
_Allowing = tuple[Policy, Statement, int]
_Near = tuple[Policy, Statement, Condition]


def _applies(statement: Statement, request: Request, principal: Principal | None) -> int:
    """How the statement's Action, Resource and Principal meet the request: ``NO_MATCH``,
    or the strength of the principal's match (``DIRECT`` where no principal is named)."""
    lookup = request.context.values
    if statement.actions.matches(request.action_key, lookup) == statement.not_action:
        return NO_MATCH
    resources = statement.resources
    if (
        resources is not None
        and resources.matches(request.resource, lookup) == statement.not_resource
    ):
        return NO_MATCH
    principals = statement.principals
    if principals is None:
        return DIRECT
    if principal is None:
        return NO_MATCH
    if statement.not_principal:
        return NO_MATCH if principals.excludes(principal) else DIRECT
    return principals.match(principal)


def _scan(
    policies: Iterable[Policy], request: Request, principal: Principal | None
) -> tuple[_Found | None, _Allowing | None, _Near | None]:
    """The first matching Deny (which ends the scan), the strongest matching Allow, and
    the first Allow that matched but for a condition."""
    lookup = request.context.values
    allowing: _Allowing | None = None
    near: _Near | None = None
    for policy in policies:
        for statement in policy.statements:
            strength = _applies(statement, request, principal)
            if not strength:
                continue
            if statement.conditions:
                failing = first_failing(statement.conditions, lookup)
                if failing is not None:
                    if near is None and statement.allows:
                        near = (policy, statement, failing)
                    continue
            if not statement.allows:
                return (policy, statement), allowing, near
            if allowing is None or strength > allowing[2]:
                allowing = (policy, statement, strength)
    return None, allowing, near


def _where(policy: Policy, statement: Statement) -> str:
    return f"{policy.name}, {statement.label}"


def _decision(
    request: Request, allowed: bool, kind: str, reason: str, statement: str | None
) -> Decision:
    return Decision(allowed, kind, reason, request, statement)


def _allowed(request: Request, allowing: _Allowing) -> Decision:
    policy, statement, _ = allowing
    where = _where(policy, statement)
    return _decision(request, True, ALLOWED, f"allowed by {policy.name} ({statement.label})", where)


def _denied(request: Request, deny: _Found) -> Decision:
    policy, statement = deny
    return _decision(
        request,
        False,
        EXPLICIT_DENY,
        f"an explicit Deny in {policy.name} ({statement.label})",
        _where(policy, statement),
    )


def _implicit(request: Request, near: _Near | None) -> Decision:
    if near is None:
        return _decision(
            request,
            False,
            IMPLICIT_DENY,
            f"no statement allows {request.action} on {request.resource}",
            None,
        )
    policy, statement, condition = near
    where = _where(policy, statement)
    failure = condition.failure(request.context.values)
    return _decision(request, False, IMPLICIT_DENY, f"{failure} ({where})", where)


def allows_action_somewhere(policies: Iterable[Policy], action: str) -> bool:
    """Whether some Allow of the policies names ``action``, on some resource: all that can
    be said of a request whose resource is not known. No such Allow means no resource it
    could name is allowed."""
    key = action.lower()
    return any(
        statement.allows and statement.actions.matches(key, {}) != statement.not_action
        for policy in policies
        for statement in policy.statements
    )


def evaluate_identity(policies: Iterable[Policy], request: Request) -> Decision:
    """Whether the identity policies (a role's inline and attached ones) allow the request."""
    deny, allowing, near = _scan(policies, request, None)
    if deny is not None:
        return _denied(request, deny)
    if allowing is not None:
        return _allowed(request, allowing)
    return _implicit(request, near)


def evaluate_resource(policy: Policy, request: Request) -> Decision:
    """Whether a resource policy alone lets ``request.principal`` do the request: what
    decides for a service principal, which has no identity policies. A statement that
    names only the principal's account does not suffice (it delegates to the account's
    identity policies, which ``authorize`` weighs)."""
    return authorize(request, resource_policy=policy)


def resource_account(arn: str) -> str | None:
    """The account an ARN names (its fifth part); None for one without (an S3 bucket's)."""
    parts = arn.split(":", 5)
    return (parts[4] or None) if len(parts) == 6 else None


def authorize(
    request: Request,
    *,
    identity: Iterable[Policy] = (),
    resource_policy: Policy | None = None,
    account: str | None = None,
    resource_must_allow: bool = False,
) -> Decision:
    """The decision on ``request`` with the principal's identity policies and the
    resource's policy together. ``account`` is the resource's account, by default the one
    its ARN names; a request with neither (an S3 bucket) is taken as within one account.

    Within one account an Allow in either suffices, except that a resource policy that
    names the principal's account (not the principal) delegates to the identity policies;
    across accounts both must allow. ``resource_must_allow`` makes the resource's policy
    necessary within one account too, as a KMS key policy is. A service principal is
    allowed by the resource policy alone. An explicit Deny in either wins.
    """
    principal = request.principal
    resources = (resource_policy,) if resource_policy is not None else ()
    deny, identity_allow, identity_near = _scan(identity, request, None)
    if deny is not None:
        return _denied(request, deny)
    if principal is None:
        return _identity_only(request, identity_allow, identity_near)
    deny, resource_allow, resource_near = _scan(resources, request, principal)
    if deny is not None:
        return _denied(request, deny)
    if principal.kind != AWS:
        granted = resource_allow if resource_allow and resource_allow[2] == DIRECT else None
        return _allowed(request, granted) if granted else _implicit(request, resource_near)
    owner = account if account is not None else resource_account(request.resource)
    same_account = owner is None or principal.account is None or owner == principal.account
    if same_account and resource_allow is not None and resource_allow[2] == DIRECT:
        return _allowed(request, resource_allow)
    if identity_allow is not None:
        if same_account and not resource_must_allow:
            return _allowed(request, identity_allow)
        if resource_allow is not None:
            return _allowed(request, resource_allow)
        if resource_near is None:
            why = (
                f"the policy of {request.resource} must allow it"
                if same_account
                else f"{principal.name} is of another account than {request.resource}, so "
                "the resource's policy must allow it"
            )
            return _decision(
                request,
                False,
                IMPLICIT_DENY,
                f"{why} too, and no statement of it allows {request.action}",
                None,
            )
    return _implicit(request, identity_near or resource_near)


def _identity_only(request: Request, allowing: _Allowing | None, near: _Near | None) -> Decision:
    return _allowed(request, allowing) if allowing is not None else _implicit(request, near)


def evaluate_trust(
    trust: Policy,
    principal: Principal,
    *,
    role_arn: str,
    context: Context = EMPTY_CONTEXT,
    identity: Iterable[Policy] = (),
    action: str = ASSUME_ROLE,
) -> Decision:
    """Whether ``principal`` may assume the role whose trust policy is ``trust``, by
    ``action`` (``sts:AssumeRoleWithWebIdentity`` for a federated principal).

    The trust policy must allow it: naming the principal (or its service) suffices within
    the role's account; naming only the account, or a principal of another account, needs
    the principal's own identity policies (``identity``) to allow ``sts:AssumeRole`` too.
    Any failure is ``untrusted``; the reason says which statement or condition refused.
    """
    request = Request(action, role_arn, principal, context)
    deny, allowing, near = _scan((trust,), request, principal)
    refused = f"the trust policy does not let {principal.name} assume it"
    if deny is not None:
        denied = _denied(request, deny)
        return _untrusted(request, f"{refused}: {denied.reason}", denied.statement)
    if allowing is not None:
        same_account = principal.account in (None, resource_account(role_arn))
        if allowing[2] == DIRECT and same_account:
            return _allowed(request, allowing)
        if principal.kind == AWS:
            own = evaluate_identity(identity, request)
            if own.allowed:
                return _allowed(request, allowing)
            return _untrusted(
                request,
                f"{refused} on its own: {principal.name}'s policies must allow "
                f"{action} too, and {own.reason}",
                own.statement,
            )
    if near is not None:
        implicit = _implicit(request, near)
        return _untrusted(request, f"{refused}: {implicit.reason}", implicit.statement)
    return _untrusted(request, refused, None)


def _untrusted(request: Request, reason: str, statement: str | None) -> Decision:
    return _decision(request, False, UNTRUSTED, reason, statement)
