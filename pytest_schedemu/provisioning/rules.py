"""A stack's ``AWS::Events::Rule`` resources, as PutRule and then PutTargets create them.

CloudFormation's properties of a rule are PutRule's members and ``Targets``, each target a
PutTargets entry under the API's names, except where an ECS target's spelling differs
(``_CLOUDFORMATION_NAMES``). Each request is shape-validated by the ``events`` model after
CloudFormation's type conversions (``requests.typed``), then added to the load's batch of
the command layer (``Batch.rule``), whose checks are PutRule's and PutTargets' own, so a
template can never hold a rule the API would refuse. What CloudFormation does differently
from a client calling the API (docs/guide/stacks.md, "Scheduled rules"):

- ``EventPattern`` is JSON in a template, an object or a string; PutRule takes its text;
- a target PutTargets would answer in ``FailedEntries`` fails the resource, as a stack
  cannot be left with part of a rule;
- two targets with one ``Id`` are refused: PutTargets would keep the last, and a template
  that loses a target without a word would let a test pass by accident;
- a rule whose name is taken is refused (``RuleStore.admit``, when the batch is applied):
  CloudFormation creates a rule, where PutRule would replace it;
- a rule with only an ``EventPattern`` on a bus other than ``default`` is not created: the
  emulator keeps the default bus alone, and such a rule never fires on the clock anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_schedemu.commands.batch import Batch
from pytest_schedemu.errors import ApiError, raised_for_the_caller
from pytest_schedemu.events_api.app import events_validator
from pytest_schedemu.formats import jsontext
from pytest_schedemu.provisioning.requests import failure, refuse_unknown, typed
from pytest_schedemu.stacks import ResolvedStack, StackResource

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

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


def add_rule(batch: Batch, stack: ResolvedStack, resource: StackResource) -> None:
    """Add the rule ``resource`` creates to ``batch`` (not one that is not created: an
    ``EventPattern`` alone on another bus). StackError, naming the resource, for one the
    API would refuse."""
    try:
        _add(batch, stack, resource)
    except ApiError as error:
        raise failure(stack, resource, error) from None


def _add(batch: Batch, stack: ResolvedStack, resource: StackResource) -> None:
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

    def targets() -> list[dict[str, Any]]:
        entries = resource.properties.get("Targets", [])
        if entries == []:
            return []  # PutTargets takes one target at least; a rule may have none
        put_targets = validator.model.operation_model("PutTargets").input_shape
        targets_request = {"Rule": cleaned["Name"], "Targets": _api_named(entries, {})}
        checked = validator["PutTargets"].validate(typed(targets_request, put_targets))
        return list(checked["Targets"])

    batch.rule(cleaned, targets, resource)


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
