"""Policy documents written the short way: one call per policy, statements as dicts."""

from __future__ import annotations

from typing import Any

from pytest_schedemu.iam import Context, Decision, Policy, Request, evaluate_identity, parse_policy

VERSION = "2012-10-17"


def document(*statements: dict[str, Any], version: str | None = VERSION) -> dict[str, Any]:
    found: dict[str, Any] = {"Statement": list(statements)}
    if version is not None:
        found["Version"] = version
    return found


def identity(*statements: dict[str, Any], name: str = "identity") -> Policy:
    return parse_policy(document(*statements), name=name)


def resource(*statements: dict[str, Any], name: str = "resource policy") -> Policy:
    return parse_policy(document(*statements), name=name, kind="resource")


def trust(*statements: dict[str, Any], name: str = "trust policy") -> Policy:
    return parse_policy(document(*statements), name=name, kind="trust")


def allow(
    action: str | list[str] = "*", resource: str | list[str] = "*", **more: Any
) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **more}


def deny(
    action: str | list[str] = "*", resource: str | list[str] = "*", **more: Any
) -> dict[str, Any]:
    return {"Effect": "Deny", "Action": action, "Resource": resource, **more}


def ask(policy: Policy, action: str, resource: str = "*", **context: Any) -> Decision:
    """The identity decision on one request, the context given by keyword (``:`` as ``__``)."""
    keys = {key.replace("__", ":"): value for key, value in context.items()}
    return evaluate_identity([policy], Request(action, resource, context=Context.of(keys)))


def when(operator: str, key: str, values: Any, **more: Any) -> dict[str, Any]:
    """An Allow of ``*`` on ``*`` under one condition."""
    return allow(Condition={operator: {key: values}}, **more)
