"""EventBridge's operations on rules: PutRule, DescribeRule, DeleteRule, ListRules,
EnableRule, DisableRule, ListRuleNamesByTarget and the tags of a rule.

Each handler receives the shape-validated request and returns the answer document; the
store of rules (``state/rules.py``) keeps them. The checks and their messages are AWS's
where it is known (the messages below marked AWS were recorded against AWS by LocalStack's
AWS-validated tests, ``tests/aws/services/events``; the rest follow AWS's API reference):

- a rule needs an ``EventPattern`` or a ``ScheduleExpression``: ``Parameter(s) EventPattern
  or ScheduleExpression must be specified.`` (moto's and LocalStack's wording);
- a ``ScheduleExpression`` only on the default bus: ``ScheduleExpression is supported only
  on the default event bus.`` (AWS), checked before the bus is looked up, since it follows
  from the request alone;
- a bad expression: ``Parameter ScheduleExpression is not valid.`` (AWS;
  ``expressions/rules.py`` holds a rule's grammar);
- an ``EventPattern`` must be a JSON object: ``InvalidEventPatternException``, ``Event
  pattern is not valid. Reason: ...`` (AWS's opening). The emulator checks no more of a
  pattern than that: a rule with a pattern alone is stored and answered and never fires;
- PutRule replaces what it names and keeps the targets; on an existing rule the tags it
  gives are ignored (AWS's API reference); a ``State`` left out is ``ENABLED``;
- DeleteRule of a rule that does not exist succeeds (AWS's API reference); one with
  targets is refused, ``Rule can't be deleted since it has targets.`` (AWS), unless Force;
- a missing rule: ``Rule <name> does not exist on EventBus <bus>.`` (AWS).
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import (
    InvalidEventPatternException,
    InvalidScheduleExpression,
    ValidationException,
    rule_not_found,
)
from pytest_schedemu.events_api.lookup import (
    DEFAULT_PAGE_SIZE,
    Document,
    bus_name,
    bus_not_found,
    event_bus,
    is_callers,
    named_page,
    refuse_managed,
)
from pytest_schedemu.expressions.rules import parse_rule_expression
from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, EventsArn, Rule
from pytest_schedemu.state.rules import RuleStore

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


def check_event_pattern(pattern: str) -> None:
    """Refuse a pattern that is not a JSON object."""
    try:
        parsed = jsontext.loads(pattern)
    except ValueError as error:
        raise InvalidEventPatternException(
            f"Event pattern is not valid. Reason: Filter is not valid JSON: {error}"
        ) from None
    if not isinstance(parsed, dict):
        raise InvalidEventPatternException(
            "Event pattern is not valid. Reason: Filter is not an object"
        )


def check_rule_request(params: Document) -> None:
    """PutRule's checks of what its request says, before any of what it names is looked
    up (its bus)."""
    expression: str | None = params.get("ScheduleExpression")
    pattern: str | None = params.get("EventPattern")
    if expression is None and pattern is None:
        raise ValidationException(
            "Parameter(s) EventPattern or ScheduleExpression must be specified."
        )
    if expression is not None:
        if bus_name(params.get("EventBusName")) != DEFAULT_EVENT_BUS:
            raise ValidationException(
                "ScheduleExpression is supported only on the default event bus."
            )
        try:
            parse_rule_expression(expression)
        except InvalidScheduleExpression:
            raise ValidationException("Parameter ScheduleExpression is not valid.") from None
    if pattern is not None:
        check_event_pattern(pattern)


def rule_fields(params: Document) -> dict[str, Any]:
    """What a PutRule request defines of its rule, by the ``Rule`` record's field names: all
    of it, since "the old values for those arguments are not kept" (AWS's PutRule)."""
    return {
        "state": params.get("State", "ENABLED"),
        "schedule_expression": params.get("ScheduleExpression"),
        "event_pattern": params.get("EventPattern"),
        "description": params.get("Description"),
        "role_arn": params.get("RoleArn"),
    }


class RuleHandlers:
    def __init__(self, rules: RuleStore) -> None:
        self.rules = rules

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
        bus = event_bus(call, params.get("EventBusName"))
        return self.rules.get_rule(call.account_id, call.region, bus, params["Name"])

    # -- rules -----------------------------------------------------------------------------

    def put_rule(self, call: Call, params: Document) -> Document:
        check_rule_request(params)
        bus = event_bus(call, params.get("EventBusName"))
        name = params["Name"]
        existing = self.rules.find_rule(call.account_id, call.region, bus, name)
        if existing is not None:
            refuse_managed(existing, "PutRule")
        tags = None
        if existing is None:
            tags = {tag["Key"]: tag["Value"] for tag in params.get("Tags", ())}
        rule = self.rules.put_rule(
            call.account_id, call.region, name, call.now, bus=bus, tags=tags, **rule_fields(params)
        )
        return {"RuleArn": rule.arn}

    def describe_rule(self, call: Call, params: Document) -> Document:
        return rule_document(self._rule(call, params), described=True)

    def delete_rule(self, call: Call, params: Document) -> Document:
        bus = event_bus(call, params.get("EventBusName"))
        name, force = params["Name"], params.get("Force", False)
        rule = self.rules.find_rule(call.account_id, call.region, bus, name)
        if rule is not None:
            refuse_managed(rule, "DeleteRule", force)
            self.rules.delete_rule(call.account_id, call.region, bus, name, force=force)
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

    def _set_state(self, call: Call, params: Document, operation: str, state: str) -> Document:
        rule = self._rule(call, params)
        refuse_managed(rule, operation)
        if state == "ENABLED" and rule.enabled:
            # Enabling an enabled rule changes nothing, and its rate() keeps counting.
            return {}
        self.rules.set_state(
            call.account_id, call.region, rule.event_bus_name, rule.name, state, call.now
        )
        return {}

    def enable_rule(self, call: Call, params: Document) -> Document:
        return self._set_state(call, params, "EnableRule", "ENABLED")

    def disable_rule(self, call: Call, params: Document) -> Document:
        return self._set_state(call, params, "DisableRule", "DISABLED")

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
        rule = self._tagged(call, params["ResourceARN"])
        refuse_managed(rule, "TagResource")
        tags = {tag["Key"]: tag["Value"] for tag in params["Tags"]}
        self.rules.tag_rule(call.account_id, call.region, rule.event_bus_name, rule.name, tags)
        return {}

    def untag_resource(self, call: Call, params: Document) -> Document:
        rule = self._tagged(call, params["ResourceARN"])
        refuse_managed(rule, "UntagResource")
        keys = params["TagKeys"]
        self.rules.untag_rule(call.account_id, call.region, rule.event_bus_name, rule.name, keys)
        return {}

    def list_tags_for_resource(self, call: Call, params: Document) -> Document:
        rule = self._tagged(call, params["ResourceARN"])
        tags: list[dict[str, Any]] = [{"Key": key, "Value": value} for key, value in rule.tags]
        return {"Tags": tags}
