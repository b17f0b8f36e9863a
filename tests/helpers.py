"""Helpers the tests share: a schedule's arguments, making one, reading a client error or a
raw answer, waiting for a background thread, and how many examples a property test draws."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable

from hypothesis import settings

from tests.constants import QUEUE, ROLE


def schedule_args(name: str = "s1", **overrides: Any) -> dict[str, Any]:
    """CreateSchedule's arguments: every five minutes to ``QUEUE``; ``overrides`` replace
    members whole."""
    args: dict[str, Any] = {
        "Name": name,
        "ScheduleExpression": "rate(5 minutes)",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {"Arn": QUEUE, "RoleArn": ROLE},
    }
    args.update(overrides)
    return args


def create(client: Any, name: str = "s1", expression: str = "rate(1 hour)", **extra: Any) -> str:
    """Create a schedule and return its ARN. ``target`` adds to (or replaces members of) the
    ``QUEUE`` target, ``window`` is the flexible time window, and the rest are arguments."""
    target: dict[str, Any] = {"Arn": QUEUE, "RoleArn": ROLE, **extra.pop("target", {})}
    window = extra.pop("window", {"Mode": "OFF"})
    args = schedule_args(
        name, ScheduleExpression=expression, FlexibleTimeWindow=window, Target=target, **extra
    )
    return str(client.create_schedule(**args)["ScheduleArn"])


@dataclass
class RawResponse:
    """A raw HTTP answer: its status, headers and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def error_of(excinfo: Any) -> dict[str, Any]:
    """The parsed error of a botocore ClientError: code, message, HTTP status."""
    response = excinfo.value.response
    return {
        "code": response["Error"]["Code"],
        "message": response["Error"]["Message"],
        "status": response["ResponseMetadata"]["HTTPStatusCode"],
    }


def wait_for(condition: Callable[[], Any], what: str = "", seconds: float = 10.0) -> None:
    """Wait until a background thread makes ``condition`` true.

    The limit only turns a hang into a failure: long enough for any answer on a loaded
    machine, so a test that reaches it has failed, however slow the machine.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what or condition}"
        time.sleep(0.005)


def examples(scale: float) -> int:
    """``scale`` times the Hypothesis profile's ``max_examples`` (at least one).

    For a property test whose examples cost far more, or far less, than most: it keeps its
    share of the work under every profile, a few in the default suite and many in the
    thorough run, where a fixed number would hold under one only.
    """
    return max(1, round(settings.default.max_examples * scale))


def rule_target(target_id: str, arn: str, **members: Any) -> dict[str, Any]:
    """A PutTargets entry: ``members`` are AWS's (``Input``, ``InputTransformer``,
    ``RetryPolicy``, ``DeadLetterConfig``, ``SqsParameters``…)."""
    return {"Id": target_id, "Arn": arn, **members}


def put_rule(
    emu: Any,
    name: str = "nightly",
    expression: str | None = "rate(5 minutes)",
    *targets: dict[str, Any],
    state: str = "ENABLED",
    pattern: str | None = None,
) -> None:
    """PutRule and PutTargets through the emulator's own EventBridge client, at the clock's
    instant; every target must be accepted."""
    events = emu.client("events")
    rule: dict[str, Any] = {"Name": name, "State": state}
    if expression is not None:
        rule["ScheduleExpression"] = expression
    if pattern is not None:
        rule["EventPattern"] = pattern
    events.put_rule(**rule)
    if targets:
        answer = events.put_targets(Rule=name, Targets=list(targets))
        assert answer["FailedEntryCount"] == 0, answer["FailedEntries"]
