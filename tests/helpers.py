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


def rule_target(target_id: str, arn: str, **fields: Any) -> Any:
    """A rule's target as PutTargets stores it: ``fields`` are ``RuleTarget``'s (``input``,
    ``input_path``, ``input_transformer``, ``retry_policy``, ``dead_letter_config``,
    ``parameters``…)."""
    from pytest_schedemu.model.rules import RuleTarget

    return RuleTarget(id=target_id, arn=arn, raw={"Id": target_id, "Arn": arn}, **fields)


def put_rule(
    emu: Any,
    name: str = "nightly",
    expression: str | None = "rate(5 minutes)",
    *targets: Any,
    state: str = "ENABLED",
    pattern: str | None = None,
) -> Any:
    """Put a rule and its ``targets`` (``rule_target``s) in the emulator's store of rules, as
    the events API's PutRule and PutTargets do, at the clock's instant; return the rule.
    Tests of firing use it where no API call is their subject."""
    rules = emu.debug.rules
    account, region = emu.account_id, emu.region
    rules.put_rule(
        account,
        region,
        name,
        emu.clock.now(),
        bus="default",
        state=state,
        schedule_expression=expression,
        event_pattern=pattern,
    )
    if targets:
        rules.put_targets(account, region, "default", name, list(targets))
    return rules.get_rule(account, region, "default", name)
