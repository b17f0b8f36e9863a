"""Policy documents read into frozen statements, ready to evaluate (IAM User Guide, "IAM
JSON policy element reference", "IAM JSON policy grammar").

A policy is one of three kinds, which differ in the elements a statement may or must have:

* ``identity``: a role's inline or attached policy. ``Resource`` or ``NotResource`` is
  required; ``Principal`` is refused (the principal is the identity it is attached to).
* ``resource``: a queue's, topic's, function's or bus's policy. ``Principal`` or
  ``NotPrincipal`` and ``Resource`` or ``NotResource`` are required.
* ``trust``: a role's trust policy. ``Principal`` is required, ``NotPrincipal`` and
  ``Resource`` refused (the resource is the role).

``NotPrincipal`` goes only with ``Deny`` (AWS JSON policy elements: NotPrincipal).

Anything else the grammar refuses is a ``PolicyError`` naming the statement and element.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats import jsontext
from pytest_schedemu.iam.conditions import Condition, parse_conditions
from pytest_schedemu.iam.errors import PolicyError
from pytest_schedemu.iam.patterns import FREE, RESOURCE, PatternSet, pattern_set
from pytest_schedemu.iam.principals import PrincipalSet, parse_principals

# A malformed policy is the caller's mistake: reported at the caller's line, without
# this module's frames.
__tracebackhide__ = raised_for_the_caller

IDENTITY = "identity"
RESOURCE_POLICY = "resource"
TRUST = "trust"
KINDS = (IDENTITY, RESOURCE_POLICY, TRUST)

#: Policy variables are replaced only in this version; in ``2008-10-17`` (and when a
#: policy names no version) ``${aws:username}`` is plain text.
CURRENT_VERSION = "2012-10-17"
VERSIONS = (CURRENT_VERSION, "2008-10-17")
ALLOW = "Allow"
DENY = "Deny"

_TOP_LEVEL = ("Version", "Id", "Statement")
_ELEMENTS = (
    "Sid",
    "Effect",
    "Action",
    "NotAction",
    "Resource",
    "NotResource",
    "Principal",
    "NotPrincipal",
    "Condition",
)


@dataclass(frozen=True)
class Statement:
    """One statement, each element ready to match. A ``None`` resource set matches any
    resource (a trust policy's statements have none); a ``None`` principal set is an
    identity policy's, which speaks for the identity it is attached to."""

    index: int
    sid: str | None
    effect: str
    actions: PatternSet
    not_action: bool
    resources: PatternSet | None
    not_resource: bool
    principals: PrincipalSet | None
    not_principal: bool
    conditions: tuple[Condition, ...]

    @property
    def allows(self) -> bool:
        return self.effect == ALLOW

    @property
    def label(self) -> str:
        """How messages name it: ``statement <Sid>``, or ``statement <index>`` without one."""
        return f"statement {self.sid if self.sid else self.index}"


@dataclass(frozen=True)
class Policy:
    """A parsed policy. Two policies are equal when their names, kinds and documents are:
    the hash is that of a few cached strings, so a policy is a cheap part of a cache key."""

    name: str
    kind: str
    document: str  # canonical JSON of what was given
    version: str = field(compare=False)
    statements: tuple[Statement, ...] = field(compare=False, repr=False)


def parse_policy(
    document: str | bytes | Mapping[str, Any], *, name: str, kind: str = IDENTITY
) -> Policy:
    """The policy ``document`` (JSON text, or the parsed object), called ``name`` in every
    message about it; ``kind`` is ``"identity"``, ``"resource"`` or ``"trust"``."""
    if kind not in KINDS:
        raise ValueError(f"a policy's kind is one of {', '.join(KINDS)}, not {kind!r}")
    if isinstance(document, (str, bytes)):
        try:
            document = jsontext.loads(document)
        except ValueError as error:
            raise PolicyError(f"is not JSON: {error}", policy=name) from None
    if not isinstance(document, Mapping):
        raise PolicyError(f"must be a JSON object, not {document!r}", policy=name)
    unknown = [key for key in document if key not in _TOP_LEVEL]
    if unknown:
        raise PolicyError(
            f"has {', '.join(map(str, unknown))}; a policy has only {', '.join(_TOP_LEVEL)}",
            policy=name,
        )
    version = document.get("Version", "2008-10-17")
    if version not in VERSIONS:
        raise PolicyError(
            f"is {version!r}; a policy's version is {' or '.join(VERSIONS)}",
            policy=name,
            element="Version",
        )
    if "Statement" not in document:
        raise PolicyError("is missing", policy=name, element="Statement")
    listed = document["Statement"]
    if isinstance(listed, Mapping):
        listed = [listed]
    if not isinstance(listed, list):
        raise PolicyError(
            f"must be an object or a list of them, not {listed!r}",
            policy=name,
            element="Statement",
        )
    variables = version == CURRENT_VERSION
    statements = tuple(
        _statement(item, index, name, kind, variables) for index, item in enumerate(listed)
    )
    sids = [statement.sid for statement in statements if statement.sid]
    repeated = sorted({sid for sid in sids if sids.count(sid) > 1})
    if repeated:
        raise PolicyError(
            f"{', '.join(repeated)} appears more than once; a Sid is unique in its policy",
            policy=name,
            element="Sid",
        )
    # A lone statement and a list of it are one policy: equal, and one cache key.
    canonical = jsontext.dumps_canonical({**document, "Statement": listed})
    return Policy(name, kind, canonical, version, statements)


def _strings(value: Any) -> tuple[str, ...] | None:
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, list) or not listed:
        return None
    if not all(isinstance(item, str) and item for item in listed):
        return None
    return tuple(listed)


def _statement(item: Any, index: int, policy: str, kind: str, variables: bool) -> Statement:
    label = f"statement {index}"

    def fail(problem: str, element: str | None = None) -> PolicyError:
        return PolicyError(problem, policy=policy, statement=label, element=element)

    if not isinstance(item, Mapping):
        raise fail(f"must be an object, not {item!r}")
    sid = item.get("Sid")
    if sid is not None:
        if not isinstance(sid, str):
            raise fail(f"must be a string, not {sid!r}", "Sid")
        if sid:
            label = f"statement {sid}"
    unknown = [key for key in item if key not in _ELEMENTS]
    if unknown:
        raise fail(
            f"has {', '.join(map(str, unknown))}; a statement has only {', '.join(_ELEMENTS)}"
        )
    effect = item.get("Effect")
    if effect not in (ALLOW, DENY):
        raise fail(f"must be {ALLOW} or {DENY}, not {effect!r}", "Effect")

    action_element = _one_of(item, "Action", "NotAction", fail, required=True)
    assert action_element is not None
    actions = _strings(item[action_element])
    if actions is None:
        raise fail(
            f"must be a string or a list of strings, not {item[action_element]!r}", action_element
        )
    for action in actions:
        if action != "*" and (":" not in action or action.startswith(":")):
            raise fail(f"{action!r} is not service:action (or *)", action_element)

    resource_element = _one_of(item, "Resource", "NotResource", fail, required=kind != TRUST)
    if kind == TRUST and resource_element is not None:
        raise fail("is refused in a trust policy: the resource is the role", resource_element)
    resources: PatternSet | None = None
    if resource_element is not None:
        texts = _strings(item[resource_element])
        if texts is None:
            raise fail(
                f"must be a string or a list of strings, not {item[resource_element]!r}",
                resource_element,
            )
        resources = pattern_set(texts, wildcard=RESOURCE, variables=variables)

    principal_element = _one_of(item, "Principal", "NotPrincipal", fail, required=kind != IDENTITY)
    if kind == IDENTITY and principal_element is not None:
        raise fail(
            "is refused in an identity policy: the principal is the identity it is attached to",
            principal_element,
        )
    if kind == TRUST and principal_element == "NotPrincipal":
        raise fail("is refused in a trust policy: name who may assume the role", principal_element)
    if effect == ALLOW and principal_element == "NotPrincipal":
        raise fail(
            "is only used with Deny: an Allow of everyone but some is refused", principal_element
        )
    principals: PrincipalSet | None = None
    if principal_element is not None:
        principals = parse_principals(
            item[principal_element], lambda problem: fail(problem, principal_element)
        )

    conditions: tuple[Condition, ...] = ()
    if "Condition" in item:
        conditions = parse_conditions(
            item["Condition"], variables=variables, fail=lambda problem: fail(problem, "Condition")
        )
    return Statement(
        index=index,
        sid=sid or None,
        effect=effect,
        actions=pattern_set(actions, wildcard=FREE, ignore_case=True),
        not_action=action_element == "NotAction",
        resources=resources,
        not_resource=resource_element == "NotResource",
        principals=principals,
        not_principal=principal_element == "NotPrincipal",
        conditions=conditions,
    )


def _one_of(
    item: Mapping[str, Any], plain: str, negated: str, fail: Any, *, required: bool
) -> str | None:
    """Which of the element and its ``Not`` form the statement has (one at most)."""
    if plain in item and negated in item:
        raise fail(f"has both {plain} and {negated}; a statement has one of them")
    if plain in item:
        return plain
    if negated in item:
        return negated
    if required:
        raise fail(f"has neither {plain} nor {negated}; it needs one of them")
    return None
