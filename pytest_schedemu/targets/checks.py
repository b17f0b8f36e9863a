"""The target checks of CreateSchedule and UpdateSchedule (§5.10), in the reference's order."""

from __future__ import annotations

import re

from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.arns import schedule_arn
from pytest_schedemu.model.partitions import PARTITION_NAME
from pytest_schedemu.model.resources import (
    DEFAULT_ACCOUNT_ID,
    DEFAULT_GROUP,
    PARAMETER_BLOCKS,
    Target,
)
from pytest_schedemu.targets import events
from pytest_schedemu.targets.kinds import (
    BLOCK_KINDS,
    PARTITION,
    UNIVERSAL,
    requires_json_input,
    target_kind,
)

# §5.10 step 0: what an ARN looks like at all (universal ARNs have this form too).
_ANY_ARN = re.compile(rf"arn:{PARTITION_NAME}:[^:]+:[^:]*:[^:]*:.+", re.DOTALL)
_UNIVERSAL_PREFIX = re.compile(rf"arn:{PARTITION}:scheduler:::aws-sdk:")
_SDK_WITH_LOCATION = re.compile(
    rf"arn:{PARTITION}:scheduler:(?P<region>[^:]*):(?P<account>[^:]*):aws-sdk:"
)

_READ_ONLY_ACTION = re.compile(
    "(?:get|describe|list|poll|receive|search|scan|query|select|read|lookup|discover|validate"
    "|batchGet|batchDescribe|batchRead|transactGet|adminGet|adminList|testMigration|retrieve"
    "|testConnection|translateDocument|isAuthorized|invokeModel)(?:[A-Z0-9].*)?"
)

# Step 11 checks Input with these sample values in place of the context attributes. Any
# schedule ARN gives the same verdict: ARNs hold no character that JSON would escape.
_SAMPLE_TIME = 946684800  # 2000-01-01T00:00:00Z
_SAMPLE_EXECUTION_ID = "0000000000000000"


def check_target(target: Target, *, region: str) -> str | None:
    """The message of the first §5.10 check ``target`` fails, or None when it passes all."""
    arn = target.arn
    if not _ANY_ARN.fullmatch(arn):
        # A queue URL, a bare name or a typo would otherwise be "delivered" as generic.
        return f"Invalid target ARN {arn}."
    kind = target_kind(arn)
    spec = kind.spec
    located = _SDK_WITH_LOCATION.match(arn)
    if located is not None and (located["region"] or located["account"]):
        return "scheduler is not a supported service for a target"
    if kind.name != UNIVERSAL and _UNIVERSAL_PREFIX.match(arn):
        return f"Invalid target ARN {arn}."
    action = kind.action
    if action is not None:
        # "GetQueueUrl" reaches the same operation as "getQueueUrl", so it is read-only too.
        if _READ_ONLY_ACTION.fullmatch(action[:1].lower() + action[1:]):
            return f"{action} API is not supported"
        if target.input is None:
            return "You must provide an input to set this target for your schedule"
    parameters = target.parameters
    for block in PARAMETER_BLOCKS:
        if block in parameters and BLOCK_KINDS[block] != kind.name:
            return f"Parameters {block} not supported for the target"
    if kind.templated and kind.region != region:
        return f"The target ARN provided does not match the current region {region}."
    if kind.name == "sqs":
        group_id = parameters.get("SqsParameters", {}).get("MessageGroupId")
        if kind.fifo and group_id is None:
            return "Parameters SqsParameters must be specified"
        if not kind.fifo and group_id is not None:
            return "Parameters MessageGroupId not valid for the target"
    given = [block for block in spec.blocks if block in parameters]
    if spec.requires_block and not given:
        return f"Parameters {' or '.join(spec.blocks)} must be specified"
    if len(given) > 1:
        return f"Parameters {' and '.join(given)} cannot be specified together"
    ecs = parameters.get("EcsParameters")
    if ecs is not None and ecs.get("LaunchType") == "FARGATE":
        network = ecs.get("NetworkConfiguration") or {}
        if network.get("awsvpcConfiguration") is None:
            return (
                "Parameter NetworkConfiguration must be specified for the target "
                "when launch type is FARGATE"
            )
    if requires_json_input(kind, parameters) and target.input is not None:
        sample_arn = schedule_arn(region, DEFAULT_ACCOUNT_ID, DEFAULT_GROUP, "sample")
        sample = events.substitute(target.input, sample_arn, _SAMPLE_TIME, _SAMPLE_EXECUTION_ID, 1)
        try:
            jsontext.loads(sample)
        except ValueError:
            return "JSON syntax error in input for the target"
    return None
