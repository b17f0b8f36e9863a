"""EventBridge's operations on a rule's targets: PutTargets, RemoveTargets and
ListTargetsByRule.

What PutTargets refuses whole, and what it fails in ``FailedEntries`` while it applies the
rest, is the command layer's (``commands/rule_targets.py``, with AWS's messages).
RemoveTargets reports each id the rule does not have in ``FailedEntries``
(``ResourceNotFoundException``), so that a mistyped id is never taken for a removal; the
others are removed. ListTargetsByRule answers each target as PutTargets sent it.
"""

from __future__ import annotations

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.events_api.pages import DEFAULT_PAGE_SIZE, Document, indexed_page
from pytest_schedemu.events_api.rules import Handler


class TargetHandlers:
    def __init__(self, commands: Commands) -> None:
        self.commands = commands

    def handlers(self) -> dict[str, Handler]:
        return {
            "PutTargets": self.put_targets,
            "RemoveTargets": self.remove_targets,
            "ListTargetsByRule": self.list_targets_by_rule,
        }

    def put_targets(self, call: Call, params: Document) -> Document:
        failed = self.commands.put_targets(call, params)
        return {"FailedEntries": failed, "FailedEntryCount": len(failed)}

    def remove_targets(self, call: Call, params: Document) -> Document:
        rule, missing = self.commands.remove_targets(call, params)
        failed = [
            {
                "ErrorCode": "ResourceNotFoundException",
                "ErrorMessage": f"Rule {rule.name} does not have a target with the Id {target_id}.",
                "TargetId": target_id,
            }
            for target_id in dict.fromkeys(missing)
        ]
        return {"FailedEntries": failed, "FailedEntryCount": len(failed)}

    def list_targets_by_rule(self, call: Call, params: Document) -> Document:
        rule = self.commands.rule(call, params.get("EventBusName"), params["Rule"])
        filters = {"operation": "ListTargetsByRule", "bus": rule.event_bus_name, "rule": rule.name}
        first, end, token = indexed_page(
            len(rule.targets),
            params.get("NextToken"),
            params.get("Limit", DEFAULT_PAGE_SIZE),
            filters,
        )
        document: Document = {"Targets": [dict(t.raw) for t in rule.targets[first:end]]}
        if token is not None:
            document["NextToken"] = token
        return document
