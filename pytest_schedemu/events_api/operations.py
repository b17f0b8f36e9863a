"""Each EventBridge rule operation's handler, by name (``events_protocol.RULE_OPERATIONS``)."""

from __future__ import annotations

from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.events_api.rules import Handler, RuleHandlers
from pytest_schedemu.events_api.targets import TargetHandlers


class RuleOperations:
    """Each rule operation's handler, by name."""

    def __init__(self, commands: Commands) -> None:
        self.handlers: dict[str, Handler] = {
            **RuleHandlers(commands).handlers(),
            **TargetHandlers(commands).handlers(),
        }
