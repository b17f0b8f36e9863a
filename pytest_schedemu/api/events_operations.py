"""The EventBridge operations the emulator serves: the thirteen that make, read and change
rules and their targets. Every other ``AWSEvents`` operation (``PutEvents``, event buses,
archives, connections...) is refused by name (``events_app``), and the interception leaves
it to wherever it would have gone without the emulator (``wire/intercept.py``)."""

from __future__ import annotations

from pytest_schedemu.api.events_rules import Handler, RuleHandlers
from pytest_schedemu.api.events_targets import TargetHandlers
from pytest_schedemu.state.store import Store

RULE_OPERATIONS = frozenset(
    {
        "DeleteRule",
        "DescribeRule",
        "DisableRule",
        "EnableRule",
        "ListRuleNamesByTarget",
        "ListRules",
        "ListTagsForResource",
        "ListTargetsByRule",
        "PutRule",
        "PutTargets",
        "RemoveTargets",
        "TagResource",
        "UntagResource",
    }
)


class RuleOperations:
    """Each rule operation's handler, by name."""

    def __init__(self, store: Store) -> None:
        self.handlers: dict[str, Handler] = {
            **RuleHandlers(store.rules).handlers(),
            **TargetHandlers(store.rules).handlers(),
        }
