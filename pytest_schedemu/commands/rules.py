"""What a PutRule request makes, after its checks, and what the rule operations share: the
event bus a request names, and the refusal to change a rule another service manages.

The checks and their messages are AWS's where it is known (the messages below marked AWS
were recorded against AWS by LocalStack's AWS-validated tests, ``tests/aws/services/events``;
the rest follow AWS's API reference):

- a rule needs an ``EventPattern`` or a ``ScheduleExpression``: ``Parameter(s) EventPattern
  or ScheduleExpression must be specified.`` (moto's and LocalStack's wording);
- a ``ScheduleExpression`` only on the default bus: ``ScheduleExpression is supported only
  on the default event bus.`` (AWS), checked before the bus is looked up, since it follows
  from the request alone;
- a bad expression: ``Parameter ScheduleExpression is not valid.`` (AWS;
  ``expressions/rules.py`` holds a rule's grammar);
- an ``EventPattern`` must be a JSON object: ``InvalidEventPatternException``, ``Event
  pattern is not valid. Reason: ...`` (AWS's opening). The emulator checks no more of a
  pattern than that: a rule with a pattern alone is stored and answered and never fires.

The emulator keeps one event bus per account and region, ``default``: it serves no
``CreateEventBus``, and a scheduled rule may only be on the default bus anyway. A request
naming another bus, by name or by ARN, is answered as AWS answers one naming a bus that
does not exist: ``ResourceNotFoundException``, ``Event bus <name> does not exist.`` (AWS's
message, as LocalStack recorded it against AWS).
"""

from __future__ import annotations

from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import (
    InvalidEventPatternException,
    InvalidScheduleExpression,
    ManagedRuleException,
    ResourceNotFoundException,
    ValidationException,
)
from pytest_schedemu.expressions.rules import parse_rule_expression
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import floor_epoch, from_epoch
from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, EventsArn, Rule

Document = dict[str, Any]


# -- the event bus a request names ---------------------------------------------------------


def bus_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Event bus {name} does not exist.")


def bus_name(value: str | None) -> str:
    """The name of the bus ``EventBusName`` gives, by name or by ARN (None: the default)."""
    if value is None:
        return DEFAULT_EVENT_BUS
    parsed = EventsArn.parse(value)
    return value if parsed is None or parsed.kind != "event-bus" else parsed.name


def event_bus(call: Call, value: str | None) -> str:
    """The event bus ``EventBusName`` names, which must exist: the caller's default bus."""
    if value is None:
        return DEFAULT_EVENT_BUS
    parsed = EventsArn.parse(value)
    if parsed is not None:
        if parsed.kind != "event-bus" or not is_callers(call, parsed):
            raise bus_not_found(value)
        value = parsed.name
    if value != DEFAULT_EVENT_BUS:
        raise bus_not_found(value)
    return value


def is_callers(call: Call, arn: EventsArn) -> bool:
    """Whether ``arn`` names something in the caller's partition, account and region."""
    return (arn.partition, arn.account, arn.region) == (
        partition_for_region(call.region),
        call.account_id,
        call.region,
    )


def refuse_managed(rule: Rule, operation: str, force: bool = False) -> None:
    """Refuse to change a rule another AWS service manages, unless ``force`` may (AWS: such
    a rule is changed by no operation but DeleteRule and RemoveTargets with Force)."""
    if rule.managed_by is None or force:
        return
    if operation in ("DeleteRule", "RemoveTargets"):
        raise ManagedRuleException(
            f"Rule {rule.name} is managed by {rule.managed_by}; {operation} changes it only "
            "with Force set to true."
        )
    raise ManagedRuleException(
        f"Rule {rule.name} is managed by {rule.managed_by} and cannot be changed with {operation}."
    )


def deletes_with_targets(rule: Rule, force: bool) -> bool:
    """Whether DeleteRule takes ``rule``'s targets with it: only a managed rule's, with
    Force. AWS's API reference (DeleteRule): Force "is ignored for rules that are not
    managed rules", and "before you can delete the rule, you must remove all targets"."""
    return force and rule.managed_by is not None


# -- PutRule -------------------------------------------------------------------------------


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


def rule_from(call: Call, params: Document, bus: str) -> Rule:
    """The rule a checked PutRule request defines on ``bus``, as new: all of its definition,
    since "the old values for those arguments are not kept" (AWS's PutRule), its tags as
    given, its dates the call's to the second, and no incarnation or targets yet."""
    now = from_epoch(floor_epoch(call.now))
    return Rule(
        account_id=call.account_id,
        region=call.region,
        name=params["Name"],
        creation_date=now,
        activated_at=now,
        incarnation=0,
        event_bus_name=bus,
        tags=tuple({tag["Key"]: tag["Value"] for tag in params.get("Tags", ())}.items()),
        state=params.get("State", "ENABLED"),
        schedule_expression=params.get("ScheduleExpression"),
        event_pattern=params.get("EventPattern"),
        description=params.get("Description"),
        role_arn=params.get("RoleArn"),
    )
