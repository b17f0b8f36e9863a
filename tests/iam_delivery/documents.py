"""The policies the tests of IAM at delivery declare, written the short way."""

from __future__ import annotations

from typing import Any

from tests.constants import ACCOUNT

GROUP = f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule-group/default"
SCHEDULER = "scheduler.amazonaws.com"
EVENTS = "events.amazonaws.com"


def document(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def trusting(service: str = SCHEDULER, **condition: Any) -> dict[str, Any]:
    """A trust policy letting ``service`` assume the role, under ``condition``
    (operator -> {key: value})."""
    statement: dict[str, Any] = {
        "Effect": "Allow",
        "Principal": {"Service": service},
        "Action": "sts:AssumeRole",
    }
    if condition:
        statement["Condition"] = condition
    return document(statement)


def allowing(action: str, resource: str, effect: str = "Allow", **more: Any) -> dict[str, Any]:
    return {"Effect": effect, "Action": action, "Resource": resource, **more}


def letting(service: str, action: str, resource: str, **condition: Any) -> dict[str, Any]:
    """A resource policy statement letting ``service`` do ``action`` on ``resource``."""
    statement: dict[str, Any] = {
        "Effect": "Allow",
        "Principal": {"Service": service},
        "Action": action,
        "Resource": resource,
    }
    if condition:
        statement["Condition"] = condition
    return document(statement)
