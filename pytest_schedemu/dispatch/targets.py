"""Target kinds, their Create/Update checks and the request each attempt sends (§5.9 to §5.12).

``target_kind`` reads a target ARN once (it is cached). ``check_target`` runs the checks of
§5.10 in the reference's order. ``plan_target`` prepares, once per stored target, everything
that does not change between attempts, so that ``TargetPlan.materialize`` (called on every
attempt) only has to quote the payload and join three strings.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring
from typing import Any, Callable, NamedTuple

from pytest_schedemu.dispatch import events
from pytest_schedemu.model import (
    DEFAULT_ACCOUNT_ID,
    DEFAULT_GROUP,
    PARAMETER_BLOCKS,
    Target,
    dns_suffix_for_partition,
    schedule_arn,
)
from pytest_schedemu.settings import DEFAULT_SQS_QUEUE_URL_TEMPLATE

UNIVERSAL = "universal"
GENERIC = "generic"

_P = r"(?P<partition>aws(?:-[a-z]+)?)"
_UNIVERSAL_ARN = re.compile(
    rf"arn:{_P}:scheduler:::aws-sdk:(?P<service>[a-z0-9-]+):(?P<action>[A-Za-z][A-Za-z0-9]*)"
)
_UNIVERSAL_PREFIX = re.compile(rf"arn:{_P}:scheduler:::aws-sdk:")
_SDK_WITH_LOCATION = re.compile(
    rf"arn:{_P}:scheduler:(?P<region>[^:]*):(?P<account>[^:]*):aws-sdk:"
)


# Templated kinds are named after their ARN's service: kind -> (resource, client, operation).
_TEMPLATED_KINDS = {
    "lambda": (r"function:(?P<name>[^:]+)(?::[^:]+)?", "lambda", "Invoke"),
    "sqs": (r"(?P<name>[^:/]+)", "sqs", "SendMessage"),
    "sns": (r"(?P<name>[^:/]+)", "sns", "Publish"),
    "states": (r"stateMachine:(?P<name>[^:]+)(?::[^:]+)?", "stepfunctions", "StartExecution"),
    "events": (r"event-bus/(?P<name>.+)", "events", "PutEvents"),
    "kinesis": (r"stream/(?P<name>.+)", "kinesis", "PutRecord"),
    "firehose": (r"deliverystream/(?P<name>.+)", "firehose", "PutRecord"),
    "ecs": (r"cluster/(?P<name>.+)", "ecs", "RunTask"),
    "sagemaker": (r"pipeline/(?P<name>.+)", "sagemaker", "StartPipelineExecution"),
    "codebuild": (r"project/(?P<name>.+)", "codebuild", "StartBuild"),
    "codepipeline": (r"(?P<name>[^:/]+)", "codepipeline", "StartPipelineExecution"),
    "inspector": (r"(?P<name>target/.+/template/.+)", "inspector", "StartAssessmentRun"),
}
_TEMPLATED_ARNS = {
    kind: re.compile(rf"arn:{_P}:{kind}:(?P<region>[a-z0-9-]+):(?P<account>\d{{12}}):{resource}")
    for kind, (resource, _, _) in _TEMPLATED_KINDS.items()
}

# Universal ARNs name services the way the AWS SDKs do; botocore spells a few differently.
_BOTOCORE_CLIENTS = {"sfn": "stepfunctions"}

_BLOCK_KINDS = {
    "EcsParameters": "ecs",
    "EventBridgeParameters": "events",
    "KinesisParameters": "kinesis",
    "SageMakerPipelineParameters": "sagemaker",
    "SqsParameters": "sqs",
}
_REQUIRED_BLOCKS = {
    "events": "EventBridgeParameters",
    "kinesis": "KinesisParameters",
    "ecs": "EcsParameters",
}
_JSON_INPUT_KINDS = frozenset({UNIVERSAL, "lambda", "states", "events"})

_READ_ONLY_ACTION = re.compile(
    "(?:get|describe|list|poll|receive|search|scan|query|select|read|lookup|discover|validate"
    "|batchGet|batchDescribe|batchRead|transactGet|adminGet|adminList|testMigration|retrieve"
    "|testConnection|translateDocument|isAuthorized|invokeModel)(?:[A-Z0-9].*)?"
)

# §5.10 step 11 checks Input with these sample values in place of the context attributes.
# Any schedule ARN gives the same verdict: ARNs hold no character that JSON would escape.
_SAMPLE_TIME = 946684800  # 2000-01-01T00:00:00Z
_SAMPLE_EXECUTION_ID = "0000000000000000"

RETRYABLE_ERROR_CODES = frozenset(
    [
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "ProvisionedThroughputExceededException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalError",
        "InternalFailure",
        "InternalServerError",
        "KMSThrottlingException",
        "EC2ThrottledException",
        "SlowDown",
    ]
)

# The (code, message) a declared-missing target answers, formatted with its ARN fields.
_MISSING_TARGET_ERRORS = {
    "sqs": (
        "AWS.SimpleQueueService.NonExistentQueue",
        "The specified queue does not exist for this wsdl version.",
    ),
    "lambda": ("ResourceNotFoundException", "Function not found: {arn}"),
    "sns": ("NotFound", "Topic does not exist"),
    "states": ("StateMachineDoesNotExist", "State Machine Does Not Exist: '{arn}'"),
    "events": ("ResourceNotFoundException", "Event bus {name} does not exist."),
    "kinesis": ("ResourceNotFoundException", "Stream {name} under account {account} not found."),
    "ecs": ("ClusterNotFoundException", "Cluster not found."),
}


@dataclass(frozen=True)
class TargetKind:
    """What a target ARN names. Location fields are None where the ARN has none."""

    name: str
    partition: str | None = None
    region: str | None = None
    account: str | None = None
    #: The queue, function, bus, stream, pipeline… name (no alias or version suffix).
    resource: str | None = None
    #: Universal targets only: the ARN's service and action, e.g. "sqs", "sendMessage".
    service: str | None = None
    action: str | None = None
    fifo: bool = False
    #: The botocore client and operation a forwarding adapter calls; None for generic.
    client: str | None = None
    operation: str | None = None

    @property
    def templated(self) -> bool:
        return self.name not in (UNIVERSAL, GENERIC)


@lru_cache(maxsize=4096)
def target_kind(arn: str) -> TargetKind:
    """Classify ``arn`` by the patterns of §5.9; anything unrecognised is ``generic``."""
    parts = arn.split(":", 3)
    service = parts[2] if len(parts) == 4 and parts[0] == "arn" else ""
    if service == "scheduler":
        match = _UNIVERSAL_ARN.fullmatch(arn)
        if match is None:
            return TargetKind(GENERIC)
        action = match["action"]
        return TargetKind(
            UNIVERSAL,
            partition=match["partition"],
            service=match["service"],
            action=action,
            client=_BOTOCORE_CLIENTS.get(match["service"], match["service"]),
            operation=action[0].upper() + action[1:],
        )
    pattern = _TEMPLATED_ARNS.get(service)
    match = None if pattern is None else pattern.fullmatch(arn)
    if match is None:
        return TargetKind(GENERIC)
    _, client, operation = _TEMPLATED_KINDS[service]
    return TargetKind(
        service,
        partition=match["partition"],
        region=match["region"],
        account=match["account"],
        resource=match["name"],
        fifo=service == "sqs" and match["name"].endswith(".fifo"),
        client=client,
        operation=operation,
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_json(text: str) -> Any:
    """The one JSON value of ``text``; ValueError when it is not exactly that."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        # Nesting deeper than the parser's stack is refused rather than crashing the caller.
        raise ValueError("JSON nested too deeply") from None


def check_target(target: Target, *, region: str) -> str | None:
    """The message of the first §5.10 check ``target`` fails, or None when it passes all."""
    arn = target.arn
    kind = target_kind(arn)
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
        if block in parameters and _BLOCK_KINDS[block] != kind.name:
            return f"Parameters {block} not supported for the target"
    if kind.templated and kind.region != region:
        return f"The target ARN provided does not match the current region {region}."
    if kind.name == "sqs":
        group_id = parameters.get("SqsParameters", {}).get("MessageGroupId")
        if kind.fifo and group_id is None:
            return "Parameters SqsParameters must be specified"
        if not kind.fifo and group_id is not None:
            return "Parameters MessageGroupId not valid for the target"
    required = _REQUIRED_BLOCKS.get(kind.name)
    if required is not None and required not in parameters:
        return f"Parameters {required} must be specified"
    ecs = parameters.get("EcsParameters")
    if ecs is not None and ecs.get("LaunchType") == "FARGATE":
        network = ecs.get("NetworkConfiguration") or {}
        if network.get("awsvpcConfiguration") is None:
            return (
                "Parameter NetworkConfiguration must be specified for the target "
                "when launch type is FARGATE"
            )
    if kind.name in _JSON_INPUT_KINDS and target.input is not None:
        sample_arn = schedule_arn(region, DEFAULT_ACCOUNT_ID, DEFAULT_GROUP, "sample")
        sample = events.substitute(target.input, sample_arn, _SAMPLE_TIME, _SAMPLE_EXECUTION_ID, 1)
        try:
            _parse_json(sample)
        except ValueError:
            return "JSON syntax error in input for the target"
    return None


def missing_target_error(kind: TargetKind, target_arn: str) -> tuple[str, str] | None:
    """(code, message) of an attempt at a target declared missing; None where §5.12 has none."""
    error = _MISSING_TARGET_ERRORS.get(kind.name)
    if error is None:
        return None
    code, message = error
    return code, message.format(arn=target_arn, name=kind.resource, account=kind.account)


def classify_error(status: int | None, code: str | None) -> bool:
    """Whether a target service's error is retried (§5.12).

    ``status`` None with ``code`` None means no response arrived at all (a connection error
    or a timeout). A code without a status is judged by the code alone.
    """
    if code in RETRYABLE_ERROR_CODES:
        return True
    if status is None:
        return code is None
    return status == 429 or 500 <= status <= 599


def queue_url(queue_arn: str, template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE) -> str | None:
    """The URL of the SQS queue ``queue_arn`` (a target or a DLQ); None if it names no queue."""
    kind = target_kind(queue_arn)
    if kind.name != "sqs" or kind.partition is None:
        return None
    return template.format(
        region=kind.region,
        dns_suffix=dns_suffix_for_partition(kind.partition),
        account=kind.account,
        name=kind.resource,
    )


class MaterializedRequest(NamedTuple):
    """The target API's request for one attempt: exact JSON text and its parsed value."""

    text: str
    #: The parsed text: a dict, except for a universal target whose Input is another JSON
    #: value, and None for one whose substituted Input is no longer JSON.
    data: Any


_Render = Callable[[str], MaterializedRequest]


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _base64(payload: str) -> str:
    # A lone surrogate (JSON allows "\ud800") must not make the attempt crash.
    return base64.b64encode(payload.encode("utf-8", "surrogatepass")).decode("ascii")


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = _parse_json(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _slotted(build: Callable[[str], dict[str, Any]]) -> _Render:
    """A renderer for a request that holds the payload, as a string, in one place."""
    # The two texts differ only inside the payload's quotes, whatever the other values hold.
    empty = _dumps(build(""))
    cut = next(i for i, (a, b) in enumerate(zip(empty, _dumps(build("x")))) if a != b)
    head, tail = empty[: cut - 1], empty[cut + 1 :]

    def render(payload: str) -> MaterializedRequest:
        return MaterializedRequest(head + encode_basestring(payload) + tail, build(payload))

    return render


def _fixed(request: dict[str, Any]) -> _Render:
    text = _dumps(request)

    # Parsed afresh on every call: attempts must not share containers a test may mutate.
    def render(payload: str) -> MaterializedRequest:
        return MaterializedRequest(text, json.loads(text))

    return render


def _taking_input_object(request: dict[str, Any], key: str | None) -> _Render:
    """A fixed request that takes in the payload when the payload is a JSON object.

    With ``key`` the object goes under that key. Without, its members are merged in after
    the request's own, which keep their values.
    """
    text = _dumps(request)

    def render(payload: str) -> MaterializedRequest:
        data = json.loads(text)
        value = _json_object(payload)
        if value is None:
            return MaterializedRequest(text, data)
        if key is None:
            # Unpacking ``data`` twice keeps its keys first and its values over the payload's.
            data = {**data, **value, **data}
        else:
            data[key] = value
        return MaterializedRequest(_dumps(data), data)

    return render


def _universal(payload: str) -> MaterializedRequest:
    try:
        data = _parse_json(payload)
    except ValueError:
        data = None
    return MaterializedRequest(payload, data)


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _network_configuration(network: Mapping[str, Any]) -> dict[str, Any]:
    vpc = network.get("awsvpcConfiguration")
    if vpc is None:
        return {}
    return {"awsvpcConfiguration": {_camel(m): vpc[m] for m in _VPC_MEMBERS if m in vpc}}


def _tags(tag_maps: list[Mapping[str, str]]) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for tags in tag_maps for k, v in tags.items()]


def _items_in_order(*keys: str) -> Callable[[list[Mapping[str, Any]]], list[dict[str, Any]]]:
    """Copy a list of objects with their keys in RunTask's documented order."""
    return lambda items: [{key: item[key] for key in keys if key in item} for item in items]


# Members that RunTask spells in camel case, in the order requests list them.
_VPC_MEMBERS = ("Subnets", "SecurityGroups", "AssignPublicIp")
_ECS_MEMBERS = (
    "LaunchType",
    "CapacityProviderStrategy",
    "NetworkConfiguration",
    "PlacementConstraints",
    "PlacementStrategy",
    "PlatformVersion",
    "Group",
    "ReferenceId",
    "PropagateTags",
    "EnableECSManagedTags",
    "EnableExecuteCommand",
    "Tags",
)
_ECS_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "CapacityProviderStrategy": _items_in_order("capacityProvider", "base", "weight"),
    "NetworkConfiguration": _network_configuration,
    "PlacementConstraints": _items_in_order("type", "expression"),
    "PlacementStrategy": _items_in_order("type", "field"),
    "Tags": _tags,
}


def _ecs_request(cluster: str, ecs: Mapping[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = {
        "cluster": cluster,
        "taskDefinition": ecs["TaskDefinitionArn"],
        "count": ecs.get("TaskCount", 1),
    }
    for member in _ECS_MEMBERS:
        if member in ecs:
            convert = _ECS_CONVERSIONS.get(member)
            request[_camel(member)] = ecs[member] if convert is None else convert(ecs[member])
    return request


def _renderer(target: Target, kind: TargetKind, schedule_arn: str, url_template: str) -> _Render:
    arn, name, parameters = target.arn, kind.resource, target.parameters
    if kind.name == UNIVERSAL:
        return _universal
    if kind.name == "sqs":
        url = queue_url(arn, url_template)
        if not kind.fifo:
            return _slotted(lambda body: {"QueueUrl": url, "MessageBody": body})
        group = parameters["SqsParameters"]["MessageGroupId"]
        return _slotted(
            lambda body: {"QueueUrl": url, "MessageBody": body, "MessageGroupId": group}
        )
    if kind.name == "lambda":
        return _slotted(
            lambda payload: {"FunctionName": arn, "InvocationType": "Event", "Payload": payload}
        )
    if kind.name == "sns":
        return _slotted(lambda message: {"TopicArn": arn, "Message": message})
    if kind.name == "states":
        return _slotted(lambda payload: {"stateMachineArn": arn, "input": payload})
    if kind.name == "events":
        block = parameters["EventBridgeParameters"]
        head = {"Source": block["Source"], "DetailType": block["DetailType"]}

        def put_events(detail: str) -> dict[str, Any]:
            entry = {**head, "Detail": detail, "EventBusName": arn, "Resources": [schedule_arn]}
            return {"Entries": [entry]}

        return _slotted(put_events)
    if kind.name == "kinesis":
        key = parameters["KinesisParameters"]["PartitionKey"]
        record = _slotted(lambda data: {"StreamARN": arn, "PartitionKey": key, "Data": data})
        return lambda payload: record(_base64(payload))
    if kind.name == "firehose":
        record = _slotted(lambda data: {"DeliveryStreamName": name, "Record": {"Data": data}})
        return lambda payload: record(_base64(payload))
    if kind.name == "ecs":
        request = _ecs_request(arn, parameters["EcsParameters"])
        return (
            _fixed(request) if target.input is None else _taking_input_object(request, "overrides")
        )
    if kind.name == "sagemaker":
        pipeline: dict[str, Any] = {"PipelineName": name}
        listed = parameters.get("SageMakerPipelineParameters", {}).get("PipelineParameterList")
        if listed:
            pipeline["PipelineParameters"] = [
                {"Name": p["Name"], "Value": p["Value"]} for p in listed
            ]
        return _fixed(pipeline)
    if kind.name == "codebuild":
        build = {"projectName": name}
        return _fixed(build) if target.input is None else _taking_input_object(build, None)
    if kind.name == "codepipeline":
        return _fixed({"name": name})
    if kind.name == "inspector":
        return _fixed({"assessmentTemplateArn": arn})
    return _slotted(lambda payload: {"TargetArn": arn, "Input": payload})


@dataclass(frozen=True, eq=False)
class TargetPlan:
    """One stored target, prepared for its attempts. Build it with ``plan_target``."""

    target: Target
    kind: TargetKind
    schedule_arn: str
    #: The schedule's account and region, which the default event carries.
    account: str
    region: str
    #: The keys failure rules and handlers match: the ARN, and ``service:action`` if universal.
    control_keys: tuple[str, ...]
    #: (code, message) of an attempt while the target is declared missing (§5.12).
    missing_error: tuple[str, str] | None
    #: The attempt's request for a payload (§5.11).
    materialize: Callable[[str], MaterializedRequest]

    def payload(
        self, scheduled_time: events.Instant, event_id: str, execution_id: str, attempt_number: int
    ) -> str:
        """The §5.7 payload of one attempt: the substituted Input, or the default event."""
        text = self.target.input
        if text is None:
            return events.default_event(
                event_id,
                scheduled_time,
                account=self.account,
                region=self.region,
                schedule_arn=self.schedule_arn,
            )
        return events.substitute(
            text, self.schedule_arn, scheduled_time, execution_id, attempt_number
        )


def plan_target(
    target: Target,
    *,
    schedule_arn: str,
    queue_url_template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE,
) -> TargetPlan:
    """Prepare ``target`` of the schedule ``schedule_arn``; the target must pass check_target."""
    kind = target_kind(target.arn)
    _, _, _, region, account, _ = schedule_arn.split(":", 5)
    keys: tuple[str, ...] = (target.arn,)
    if kind.name == UNIVERSAL:
        keys += (f"{kind.service}:{kind.action}",)
    return TargetPlan(
        target=target,
        kind=kind,
        schedule_arn=schedule_arn,
        account=account,
        region=region,
        control_keys=keys,
        missing_error=missing_target_error(kind, target.arn),
        materialize=_renderer(target, kind, schedule_arn, queue_url_template),
    )
