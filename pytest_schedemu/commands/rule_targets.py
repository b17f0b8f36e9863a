"""What a PutTargets request makes of its entries, after its checks.

PutTargets refuses the whole request, changing nothing, for what AWS refuses whole (its
messages, recorded against AWS by LocalStack's AWS-validated tests): a target that sets
more than one of ``Input``, ``InputPath`` and ``InputTransformer`` (``Only one of Input,
InputPath, or InputTransformer must be provided for target <id>.``), an ``InputTemplate``
with a placeholder its ``InputPathsMap`` does not define and AWS does not predefine
(``InputTemplate for target <id> contains invalid placeholder <name>.``), an ``Input`` that
is not JSON (``JSON syntax error in input for target <id>: ...``, AWS's opening as users
have reported it), and a rule that would have more than five targets
(``LimitExceededException``, ``The requested resource exceeds the maximum number
allowed.``, the store's count). It fails single targets in ``FailedEntries`` and applies the
rest, as moto and LocalStack do: an ``Arn`` that is not an ARN (``Parameter <arn> is not
valid. Reason: Provided Arn is not in correct format.``), a FIFO queue without
``SqsParameters`` (``Parameter(s) SqsParameters must be specified for target: <id>.``), and
a dead-letter queue that is not a standard SQS queue of the rule's region (AWS accepts only
those; the wording is ours). Two targets with one id in a request: the last wins, as on AWS.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.resources import RetryPolicy
from pytest_schedemu.model.rules import (
    PREDEFINED_PLACEHOLDERS,
    TARGET_PARAMETER_BLOCKS,
    TEMPLATE_PLACEHOLDER,
    RuleTarget,
)

Document = dict[str, Any]

# arn:<partition>:<service>:<region>:<account>:<resource>; region and account may be empty
# (an S3 bucket's), the resource may hold colons (a log group's).
_ARN = re.compile(r"arn:aws[\w-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:.+", re.ASCII)
_INPUTS = ("Input", "InputPath", "InputTransformer")


def target_from(entry: Mapping[str, Any]) -> RuleTarget:
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
            accepted[entry["Id"]] = target_from(entry)
        else:
            target_id = entry["Id"]
            failed.append(
                {"ErrorCode": "ValidationException", "ErrorMessage": problem, "TargetId": target_id}
            )
    return list(accepted.values()), failed


def every_target(entries: Sequence[Mapping[str, Any]], region: str) -> list[RuleTarget]:
    """The targets of a rule created whole (a stack's): as PutTargets checks them, except
    that what PutTargets would fail in ``FailedEntries`` or silently drop (a repeated id)
    refuses them all, since a rule cannot be left with part of its targets."""
    ids = [entry["Id"] for entry in entries]
    repeated = sorted({target_id for target_id in ids if ids.count(target_id) > 1})
    if repeated:
        raise ValidationException(
            f"Targets has more than one target with the Id {', '.join(repeated)}: each "
            "target of a rule needs an Id of its own."
        )
    accepted, failed = sort_entries(entries, region)
    if failed:
        raise ValidationException(failed[0]["ErrorMessage"])
    return accepted
