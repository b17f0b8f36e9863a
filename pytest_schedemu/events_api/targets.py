"""EventBridge's operations on a rule's targets: PutTargets, RemoveTargets and
ListTargetsByRule.

PutTargets refuses the whole request, changing nothing, for what AWS refuses whole (its
messages, recorded against AWS by LocalStack's AWS-validated tests): a target that sets
more than one of ``Input``, ``InputPath`` and ``InputTransformer`` (``Only one of Input,
InputPath, or InputTransformer must be provided for target <id>.``), an ``InputTemplate``
with a placeholder its ``InputPathsMap`` does not define and AWS does not predefine
(``InputTemplate for target <id> contains invalid placeholder <name>.``), an ``Input`` that
is not JSON (``JSON syntax error in input for target <id>: ...``, AWS's opening as users
have reported it), and a rule that would have more than five targets
(``LimitExceededException``, ``The requested resource exceeds the maximum number
allowed.``). It fails single targets in ``FailedEntries`` and applies the rest, as moto and
LocalStack do: an ``Arn`` that is not an ARN (``Parameter <arn> is not valid. Reason:
Provided Arn is not in correct format.``), a FIFO queue without ``SqsParameters``
(``Parameter(s) SqsParameters must be specified for target: <id>.``), and a dead-letter
queue that is not a standard SQS queue of the rule's region (AWS accepts only those; the
wording is ours). Two
targets with one id in a request: the last wins, as on AWS.

RemoveTargets reports each id the rule does not have in ``FailedEntries``
(``ResourceNotFoundException``), so that a mistyped id is never taken for a removal; the
others are removed. ListTargetsByRule answers each target as PutTargets sent it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.events_api.lookup import (
    DEFAULT_PAGE_SIZE,
    Document,
    event_bus,
    indexed_page,
    refuse_managed,
)
from pytest_schedemu.events_api.rules import Handler
from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.resources import (
    RetryPolicy,
)
from pytest_schedemu.model.rules import (
    PREDEFINED_PLACEHOLDERS,
    TARGET_PARAMETER_BLOCKS,
    TEMPLATE_PLACEHOLDER,
    Rule,
    RuleTarget,
)
from pytest_schedemu.state.rules import RuleStore

# arn:<partition>:<service>:<region>:<account>:<resource>; region and account may be empty
# (an S3 bucket's), the resource may hold colons (a log group's).
_ARN = re.compile(r"arn:aws[\w-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:.+", re.ASCII)
_INPUTS = ("Input", "InputPath", "InputTransformer")


def build_target(entry: Mapping[str, Any]) -> RuleTarget:
    """A target as stored, from its validated PutTargets entry (kept as ``raw``)."""
    return RuleTarget(
        id=entry["Id"],
        arn=entry["Arn"],
        raw=dict(entry),
        role_arn=entry.get("RoleArn"),
        input=entry.get("Input"),
        input_path=entry.get("InputPath"),
        input_transformer=entry.get("InputTransformer"),
        retry_policy=RetryPolicy.from_request(entry.get("RetryPolicy")),
        dead_letter_config=entry.get("DeadLetterConfig"),
        parameters={block: entry[block] for block in TARGET_PARAMETER_BLOCKS if block in entry},
    )


def check_input(entry: Mapping[str, Any]) -> None:
    """Refuse the request for a target whose input AWS refuses."""
    target_id = entry["Id"]
    if sum(1 for member in _INPUTS if member in entry) > 1:
        raise ValidationException(
            "Only one of Input, InputPath, or InputTransformer must be provided for target "
            f"{target_id}."
        )
    if "Input" in entry:
        try:
            jsontext.loads(entry["Input"])
        except ValueError as error:
            raise ValidationException(
                f"JSON syntax error in input for target {target_id}: {error}"
            ) from None
    transformer = entry.get("InputTransformer")
    if transformer is not None:
        paths = transformer.get("InputPathsMap") or {}
        for name in TEMPLATE_PLACEHOLDER.findall(transformer["InputTemplate"]):
            if name not in paths and name not in PREDEFINED_PLACEHOLDERS:
                raise ValidationException(
                    f"InputTemplate for target {target_id} contains invalid placeholder {name}."
                )


def entry_problem(entry: Mapping[str, Any], region: str) -> str | None:
    """Why this one target fails while the others are applied; None when it does not."""
    arn = entry["Arn"]
    if _ARN.fullmatch(arn) is None:
        return f"Parameter {arn} is not valid. Reason: Provided Arn is not in correct format."
    if ":sqs:" in arn and arn.endswith(".fifo") and "SqsParameters" not in entry:
        return f"Parameter(s) SqsParameters must be specified for target: {entry['Id']}."
    letters = (entry.get("DeadLetterConfig") or {}).get("Arn")
    # A dead-letter queue is a standard SQS queue (AWS's dead-letter guide); anything else
    # would swallow the dead letters it was meant to keep.
    if letters is not None and (
        _ARN.fullmatch(letters) is None
        or letters.split(":")[2:4] != ["sqs", region]
        or letters.endswith(".fifo")
    ):
        return (
            f"Parameter {letters} is not valid. Reason: the dead-letter queue of target "
            f"{entry['Id']} must be the ARN of a standard Amazon SQS queue in {region}."
        )
    return None


def sort_entries(
    entries: Sequence[Mapping[str, Any]], region: str
) -> tuple[list[RuleTarget], list[Document]]:
    """PutTargets' checks of its entries: raise for what refuses the whole request; else the
    targets to put (by id, the last entry of an id winning, in the order the ids first
    came) and the ``FailedEntries`` of the others."""
    for entry in entries:
        check_input(entry)
    failed: list[Document] = []
    accepted: dict[str, RuleTarget] = {}
    for entry in entries:
        problem = entry_problem(entry, region)
        if problem is None:
            accepted[entry["Id"]] = build_target(entry)
        else:
            target_id = entry["Id"]
            failed.append(
                {"ErrorCode": "ValidationException", "ErrorMessage": problem, "TargetId": target_id}
            )
    return list(accepted.values()), failed


class TargetHandlers:
    def __init__(self, rules: RuleStore) -> None:
        self.rules = rules

    def handlers(self) -> dict[str, Handler]:
        return {
            "PutTargets": self.put_targets,
            "RemoveTargets": self.remove_targets,
            "ListTargetsByRule": self.list_targets_by_rule,
        }

    def _rule(self, call: Call, params: Document) -> Rule:
        bus = event_bus(call, params.get("EventBusName"))
        return self.rules.get_rule(call.account_id, call.region, bus, params["Rule"])

    def put_targets(self, call: Call, params: Document) -> Document:
        rule = self._rule(call, params)
        refuse_managed(rule, "PutTargets")
        accepted, failed = sort_entries(params["Targets"], call.region)
        if accepted:
            self.rules.put_targets(
                call.account_id,
                call.region,
                rule.event_bus_name,
                rule.name,
                accepted,
            )
        return {"FailedEntries": failed, "FailedEntryCount": len(failed)}

    def remove_targets(self, call: Call, params: Document) -> Document:
        rule = self._rule(call, params)
        refuse_managed(rule, "RemoveTargets", params.get("Force", False))
        _, missing = self.rules.remove_targets(
            call.account_id, call.region, rule.event_bus_name, rule.name, params["Ids"]
        )
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
        rule = self._rule(call, params)
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
