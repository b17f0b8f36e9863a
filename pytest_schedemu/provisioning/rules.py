"""A stack's ``AWS::Events::Rule`` resources, as PutRule and then PutTargets create them.

CloudFormation's properties of a rule are PutRule's members and ``Targets``, each target a
PutTargets entry under the API's names, except where an ECS target's spelling differs
(``_CLOUDFORMATION_NAMES``). Each request is shape-validated by the ``events`` model after
CloudFormation's type conversions (``stack_requests.typed``), then checked by the events
API's own checks (``check_rule_request``, ``sort_entries``), so a template can never hold
a rule the API would refuse. What CloudFormation does differently from a client calling
the API (docs/stacks.md, "Scheduled rules"):

- ``EventPattern`` is JSON in a template, an object or a string; PutRule takes its text;
- a target PutTargets would answer in ``FailedEntries`` fails the resource, as a stack
  cannot be left with part of a rule;
- two targets with one ``Id`` are refused: PutTargets would keep the last, and a template
  that loses a target without a word would let a test pass by accident;
- a rule whose name is taken is refused (``RuleStore.admit``): CloudFormation creates a
  rule, where PutRule would replace it;
- a rule with only an ``EventPattern`` on a bus other than ``default`` is not created: the
  emulator keeps the default bus alone, and such a rule never fires on the clock anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import ApiError, ValidationException
from pytest_schedemu.events_api.app import events_validator
from pytest_schedemu.events_api.lookup import bus_name, event_bus
from pytest_schedemu.events_api.rules import check_rule_request, rule_fields
from pytest_schedemu.events_api.targets import sort_entries
from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, Rule, RuleTarget
from pytest_schedemu.provisioning.requests import failure, refuse_unknown, typed
from pytest_schedemu.stacks import ResolvedStack, StackResource

#: Where CloudFormation's ``AWS::Events::Rule`` names a target's members otherwise than the
#: API: the structure's API name -> {CloudFormation's member name: the API's}. From the
#: resource's property reference (``EcsParameters``: ``TagList``, ``PlacementStrategies``;
#: ``NetworkConfiguration``: ``AwsVpcConfiguration``; the strategies' and constraints'
#: capitalised members), as aws-cdk-lib's ``CfnRule`` writes them.
_CLOUDFORMATION_NAMES: Mapping[str, Mapping[str, str]] = {
    "EcsParameters": {"TagList": "Tags", "PlacementStrategies": "PlacementStrategy"},
    "NetworkConfiguration": {"AwsVpcConfiguration": "awsvpcConfiguration"},
    "CapacityProviderStrategy": {
        "Base": "base",
        "CapacityProvider": "capacityProvider",
        "Weight": "weight",
    },
    "PlacementConstraints": {"Expression": "expression", "Type": "type"},
    "PlacementStrategy": {"Field": "field", "Type": "type"},
}


def stack_rule(call: Call, stack: ResolvedStack, resource: StackResource) -> Rule | None:
    """The rule ``resource`` creates, not yet stored; None for one that is not created (an
    ``EventPattern`` alone on another bus). StackError, naming the resource, for one the
    API would refuse."""
    try:
        return _rule(call, stack, resource)
    except ApiError as error:
        raise failure(stack, resource, error) from None


def _rule(call: Call, stack: ResolvedStack, resource: StackResource) -> Rule | None:
    validator = events_validator()
    put_rule = validator.model.operation_model("PutRule").input_shape
    refuse_unknown(stack, resource, [*put_rule.members, "Targets"])
    request = {key: value for key, value in resource.properties.items() if key != "Targets"}
    if resource.physical_name is not None:
        request["Name"] = resource.physical_name
    pattern = request.get("EventPattern")
    if isinstance(pattern, (Mapping, list)):
        request["EventPattern"] = jsontext.dumps_compact(pattern)
    cleaned = validator["PutRule"].validate(typed(request, put_rule))
    check_rule_request(cleaned)
    targets = _targets(cleaned["Name"], resource.properties.get("Targets", []), call.region)
    bus = bus_name(cleaned.get("EventBusName"))
    if bus != DEFAULT_EVENT_BUS:
        return None  # an EventPattern alone: check_rule_request refused an expression
    event_bus(call, cleaned.get("EventBusName"))  # a default bus of another account
    tags = {tag["Key"]: tag["Value"] for tag in cleaned.get("Tags", ())}
    return Rule(
        account_id=call.account_id,
        region=call.region,
        name=cleaned["Name"],
        creation_date=call.now,
        activated_at=call.now,
        incarnation=0,
        event_bus_name=bus,
        targets=tuple(targets),
        tags=tuple(tags.items()),
        **rule_fields(cleaned),
    )


def _targets(rule: str, entries: Any, region: str) -> list[RuleTarget]:
    """The rule's targets, as PutTargets checks them, all of them or an error."""
    if entries == []:
        return []  # PutTargets takes one target at least; a rule may have none
    put_targets = events_validator().model.operation_model("PutTargets").input_shape
    request = {"Rule": rule, "Targets": _api_named(entries, {})}
    cleaned = events_validator()["PutTargets"].validate(typed(request, put_targets))
    ids = [entry["Id"] for entry in cleaned["Targets"]]
    repeated = sorted({target_id for target_id in ids if ids.count(target_id) > 1})
    if repeated:
        raise ValidationException(
            f"Targets has more than one target with the Id {', '.join(repeated)}: each "
            "target of a rule needs an Id of its own."
        )
    accepted, failed = sort_entries(cleaned["Targets"], region)
    if failed:
        raise ValidationException(failed[0]["ErrorMessage"])
    return accepted


def _api_named(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` with CloudFormation's member names turned into the API's; ``names`` are
    the renames of the structure ``value`` is."""
    if isinstance(value, Mapping):
        renamed: dict[str, Any] = {}
        for key, item in value.items():
            name = names.get(key, key)
            renamed[name] = _api_named(item, _CLOUDFORMATION_NAMES.get(name, {}))
        return renamed
    if isinstance(value, list):
        return [_api_named(item, names) for item in value]
    return value
