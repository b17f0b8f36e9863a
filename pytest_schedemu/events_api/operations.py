"""Each EventBridge rule operation's handler, by name (``events_protocol.RULE_OPERATIONS``)."""

from __future__ import annotations

from pytest_schedemu.events_api.rules import Handler, RuleHandlers
from pytest_schedemu.events_api.targets import TargetHandlers
from pytest_schedemu.state.store import Store


class RuleOperations:
    """Each rule operation's handler, by name."""

    def __init__(self, store: Store) -> None:
        self.handlers: dict[str, Handler] = {
            **RuleHandlers(store.rules).handlers(),
            **TargetHandlers(store.rules).handlers(),
        }
