"""What the rule tests share: a rule's and a target's arguments, and the stored rules."""

from __future__ import annotations

import json
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.model.rules import Rule
from tests.constants import ACCOUNT, QUEUE

RULE_ARN = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/r1"
#: An event pattern, as a rule with no schedule has.
PATTERN = json.dumps({"source": ["orders"]})


def target(target_id: str = "t1", arn: str = QUEUE, **members: Any) -> dict[str, Any]:
    """A PutTargets entry for ``QUEUE`` unless told otherwise."""
    return {"Id": target_id, "Arn": arn, **members}


def stored_rules(emu: Emulator) -> tuple[Rule, ...]:
    """The rules as the store keeps them, for the dispatcher: the store's snapshot (the
    emulator's debug door) holds them second, after the schedules' partitions."""
    _, rules, _ = emu.debug.state_snapshot()
    return tuple(rules)


def without_metadata(response: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}
