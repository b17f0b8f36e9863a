"""EventBridge's operations on rules: PutRule, DescribeRule, DeleteRule, ListRules,
EnableRule, DisableRule, ListRuleNamesByTarget and the tags of a rule.

Each handler receives the shape-validated request and returns the answer document; the
changes, and their checks, are the command layer's (``commands/rules.py`` lists them with
AWS's messages). What is answered here follows AWS's API reference: PutRule replaces what
it names and keeps the targets, and a ``State`` left out is ``ENABLED``; DeleteRule of a
rule that does not exist succeeds, and one with targets is refused (``Rule can't be deleted
since it has targets.``, AWS), with or without Force, which only a managed rule heeds; a
missing rule is ``Rule <name> does not exist on EventBus <bus>.`` (AWS).
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.commands.rules import bus_not_found, event_bus, is_callers
from pytest_schedemu.errors import ValidationException, rule_not_found
from pytest_schedemu.events_api.pages import DEFAULT_PAGE_SIZE, Document, named_page
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, EventsArn, Rule

Handler = Callable[[Call, Document], Document]


def rule_document(rule: Rule, *, described: bool = False) -> Document:
    """A rule as ListRules lists it; as DescribeRule answers it with ``described``."""
    document: Document = {
        "Arn": rule.arn,
        "EventBusName": rule.event_bus_name,
        "Name": rule.name,
        "State": rule.state,
    }
    optional = (
        ("Description", rule.description),
        ("EventPattern", rule.event_pattern),
        ("ManagedBy", rule.managed_by),
        ("RoleArn", rule.role_arn),
        ("ScheduleExpression", rule.schedule_expression),
    )
    document.update((key, value) for key, value in optional if value is not None)
    if described:
        # AWS answers the account that created the rule.
        document["CreatedBy"] = rule.created_by or rule.account_id
    return document


class RuleHandlers:
    def __init__(self, commands: Commands) -> None:
        self.commands = commands
        self.rules = commands.store.rules

    def handlers(self) -> dict[str, Handler]:
        return {
            "PutRule": self.put_rule,
            "DescribeRule": self.describe_rule,
            "DeleteRule": self.delete_rule,
            "ListRules": self.list_rules,
            "EnableRule": self.enable_rule,
            "DisableRule": self.disable_rule,
            "ListRuleNamesByTarget": self.list_rule_names_by_target,
            "TagResource": self.tag_resource,
            "UntagResource": self.untag_resource,
            "ListTagsForResource": self.list_tags_for_resource,
        }

    def _rule(self, call: Call, params: Document) -> Rule:
        return self.commands.rule(call, params.get("EventBusName"), params["Name"])

    # -- rules -----------------------------------------------------------------------------

    def put_rule(self, call: Call, params: Document) -> Document:
        return {"RuleArn": self.commands.put_rule(call, params).arn}

    def describe_rule(self, call: Call, params: Document) -> Document:
        return rule_document(self._rule(call, params), described=True)

    def delete_rule(self, call: Call, params: Document) -> Document:
        self.commands.delete_rule(call, params)
        return {}

    def list_rules(self, call: Call, params: Document) -> Document:
        bus = event_bus(call, params.get("EventBusName"))
        prefix = params.get("NamePrefix")
        rules = self.rules.list_rules(call.account_id, call.region, bus, prefix)
        filters = {"operation": "ListRules", "bus": bus, "prefix": prefix}
        first, end, token = named_page(
            [rule.name for rule in rules],
            params.get("NextToken"),
            params.get("Limit", DEFAULT_PAGE_SIZE),
            filters,
        )
        document: Document = {"Rules": [rule_document(rule) for rule in rules[first:end]]}
        if token is not None:
            document["NextToken"] = token
        return document

    def enable_rule(self, call: Call, params: Document) -> Document:
        self.commands.set_rule_state(call, params, "EnableRule", "ENABLED")
        return {}

    def disable_rule(self, call: Call, params: Document) -> Document:
        self.commands.set_rule_state(call, params, "DisableRule", "DISABLED")
        return {}

    def list_rule_names_by_target(self, call: Call, params: Document) -> Document:
        bus = event_bus(call, params.get("EventBusName"))
        target = params["TargetArn"]
        names = self.rules.rule_names_by_target(call.account_id, call.region, bus, target)
        filters = {"operation": "ListRuleNamesByTarget", "bus": bus, "target": target}
        first, end, token = named_page(
            names, params.get("NextToken"), params.get("Limit", DEFAULT_PAGE_SIZE), filters
        )
        document: Document = {"RuleNames": names[first:end]}
        if token is not None:
            document["NextToken"] = token
        return document

    # -- tags ------------------------------------------------------------------------------

    def _tagged(self, call: Call, arn: str) -> Rule:
        """The rule a tag operation's ``ResourceARN`` names."""
        parsed = EventsArn.parse(arn)
        if parsed is None:
            raise ValidationException(
                f"Invalid ResourceARN {arn}: the emulator tags EventBridge rules, "
                "arn:aws:events:<region>:<account>:rule/[<event bus>/]<rule name>."
            )
        if parsed.kind == "event-bus":
            if is_callers(call, parsed) and parsed.name == DEFAULT_EVENT_BUS:
                raise ValidationException(
                    f"The emulator keeps the tags of EventBridge rules only, not of the event "
                    f"bus {arn}."
                )
            raise bus_not_found(parsed.name)
        if not is_callers(call, parsed):
            raise rule_not_found(parsed.name, parsed.event_bus)
        if parsed.event_bus != DEFAULT_EVENT_BUS:
            raise bus_not_found(parsed.event_bus)
        return self.rules.get_rule(call.account_id, call.region, parsed.event_bus, parsed.name)

    def tag_resource(self, call: Call, params: Document) -> Document:
        self.commands.tag_rule(call, self._tagged(call, params["ResourceARN"]), params["Tags"])
        return {}

    def untag_resource(self, call: Call, params: Document) -> Document:
        rule = self._tagged(call, params["ResourceARN"])
        self.commands.untag_rule(call, rule, params["TagKeys"])
        return {}

    def list_tags_for_resource(self, call: Call, params: Document) -> Document:
        rule = self._tagged(call, params["ResourceARN"])
        tags: list[dict[str, Any]] = [{"Key": key, "Value": value} for key, value in rule.tags]
        return {"Tags": tags}
