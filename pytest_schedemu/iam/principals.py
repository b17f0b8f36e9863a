"""The ``Principal`` and ``NotPrincipal`` elements of a resource or trust policy, and whom
they name (IAM User Guide, "AWS JSON policy elements: Principal", "...: NotPrincipal").

* ``"*"`` and ``{"AWS": "*"}``: everyone.
* ``{"AWS": "123456789012"}`` and ``{"AWS": "arn:aws:iam::123456789012:root"}``: the account.
  That delegates to the account: the root itself is named, and any other principal of the
  account is let in only as far as its own identity policies allow (an *account* match).
* ``{"AWS": <role or user ARN>}``: that principal, and a role's sessions (a *direct* match).
* ``{"Service": ...}``, ``{"Federated": ...}``, ``{"CanonicalUser": ...}``: that one.

A principal is never matched by a partial wildcard (``arn:aws:iam::*:role/x`` names no one):
AWS allows ``*`` only alone. ``NotPrincipal`` leaves out an AWS principal only when it names
both the principal's account and the principal (or its role): naming the role alone still
denies it, as the account is checked first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.iam.request import AWS, CANONICAL_USER, FEDERATED, SERVICE, Principal

# A malformed policy is the caller's mistake: reported at the caller's line, without
# this module's frames.
__tracebackhide__ = raised_for_the_caller

NO_MATCH = 0
#: The policy names the principal's account: the principal's identity policies must allow.
ACCOUNT = 1
#: The policy names the principal itself (or everyone, or its service).
DIRECT = 2

KINDS = (AWS, SERVICE, FEDERATED, CANONICAL_USER)


def _account_of(entry: str) -> str | None:
    """The account an ``AWS`` entry names as a whole, None for a narrower entry."""
    if entry.isdigit() and len(entry) == 12:
        return entry
    parts = entry.split(":")
    if len(parts) == 6 and parts[0] == "arn" and parts[2] == "iam" and parts[5] == "root":
        return parts[4]
    return None


@dataclass(frozen=True)
class PrincipalSet:
    """Whom one ``Principal`` (or ``NotPrincipal``) element names."""

    anyone: bool
    accounts: frozenset[str]
    arns: frozenset[str]
    services: frozenset[str]
    others: frozenset[tuple[str, str]]

    def match(self, principal: Principal) -> int:
        """``DIRECT``, ``ACCOUNT`` or ``NO_MATCH`` for ``principal``."""
        if self.anyone:
            return DIRECT
        kind = principal.kind
        if kind == SERVICE:
            return DIRECT if principal.name in self.services else NO_MATCH
        if kind == AWS:
            if principal.name in self.arns or principal.role_arn in self.arns:
                return DIRECT
            if principal.account in self.accounts:
                return DIRECT if principal.is_root else ACCOUNT
            return NO_MATCH
        return DIRECT if (kind, principal.name) in self.others else NO_MATCH

    def excludes(self, principal: Principal) -> bool:
        """Whether a ``NotPrincipal`` element leaves ``principal`` out. AWS checks an AWS
        principal as its account, then its role, then itself: the element excludes it only
        when it names the account and the principal (or its role) both."""
        if self.anyone:
            return True
        if principal.kind != AWS:
            return self.match(principal) == DIRECT
        if principal.account not in self.accounts:
            return False
        return principal.is_root or principal.name in self.arns or principal.role_arn in self.arns


def parse_principals(value: Any, fail: Callable[[str], Exception]) -> PrincipalSet:
    """The element's value as a policy writes it; ``fail(problem)`` builds the error."""
    if value == "*":
        return PrincipalSet(True, frozenset(), frozenset(), frozenset(), frozenset())
    if not isinstance(value, Mapping) or not value:
        raise fail(
            f'must be "*" or an object with AWS, Service, Federated or CanonicalUser, not {value!r}'
        )
    accounts: set[str] = set()
    arns: set[str] = set()
    services: set[str] = set()
    others: set[tuple[str, str]] = set()
    anyone = False
    for kind, entries in value.items():
        if kind not in KINDS:
            raise fail(f"names {kind!r}; a principal is one of {', '.join(KINDS)}")
        listed = [entries] if isinstance(entries, str) else entries
        if not isinstance(listed, list) or not listed:
            raise fail(f"{kind} must be a string or a list of strings, not {entries!r}")
        for entry in listed:
            if not isinstance(entry, str) or not entry:
                raise fail(f"{kind} must be a string or a list of strings, not {entry!r}")
            if kind == AWS:
                account = _account_of(entry)
                if entry == "*":
                    anyone = True
                elif account is not None:
                    accounts.add(account)
                else:
                    arns.add(entry)
            elif kind == SERVICE:
                services.add(entry.lower())
            else:
                others.add((kind, entry))
    return PrincipalSet(
        anyone=anyone,
        accounts=frozenset(accounts),
        arns=frozenset(arns),
        services=frozenset(services),
        others=frozenset(others),
    )
