"""The request each attempt sends to its target's API (§5.11), one renderer per kind.

A renderer is built once per stored target (``Build``) and then called on every attempt
with the payload (``Render``), so all it does per attempt is quote the payload and join a
few strings: the parts that do not change are rendered when the target is planned.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from pytest_schedemu.formats import jsontext
from pytest_schedemu.model.partitions import dns_suffix_for_partition
from pytest_schedemu.model.resources import Target

if TYPE_CHECKING:
    from pytest_schedemu.targets.kinds import TargetKind


#: PutRawEvents' content types: a payload that is JSON, and one that is not.
JSON_CONTENT, OPAQUE_CONTENT = "application/json", "application/octet-stream"


class MaterializedRequest(NamedTuple):
    """The target API's request for one attempt: exact JSON text and its parsed value."""

    text: str
    #: The parsed text: a dict, except for a universal target whose Input is another JSON
    #: value, and None for one whose substituted Input is no longer JSON.
    data: Any


#: Per attempt: the payload in, the request out.
Render = Callable[[str], MaterializedRequest]


class TargetContext(NamedTuple):
    """What a renderer may read of the target it is built for."""

    target: Target
    kind: TargetKind
    schedule_arn: str
    queue_url_template: str


#: Per stored target: build the per-attempt renderer.
Build = Callable[[TargetContext], Render]


def sqs_queue_url(kind: TargetKind, template: str) -> str:
    """The URL of the queue a classified SQS ARN names."""
    assert kind.partition is not None
    return template.format(
        region=kind.region,
        dns_suffix=dns_suffix_for_partition(kind.partition),
        account=kind.account,
        name=kind.resource,
    )


def base64_text(payload: str) -> str:
    # A lone surrogate (JSON allows "\ud800") must not make the attempt crash.
    return base64.b64encode(payload.encode("utf-8", "surrogatepass")).decode("ascii")


def _json_object(text: str) -> dict[str, Any] | None:
    value = jsontext.loads_or_none(text)
    return value if isinstance(value, dict) else None


# -- combinators -------------------------------------------------------------------------------


def slotted(build: Callable[[str], dict[str, Any]]) -> Render:
    """A renderer for a request that holds the payload, as a string, in one place."""
    # The two texts differ only inside the payload's quotes, whatever the other values hold.
    empty = jsontext.dumps_compact(build(""))
    probe = jsontext.dumps_compact(build("x"))
    cut = next(i for i, (a, b) in enumerate(zip(empty, probe)) if a != b)
    head, tail = empty[: cut - 1], empty[cut + 1 :]

    def render(payload: str) -> MaterializedRequest:
        return MaterializedRequest(head + encode_basestring(payload) + tail, build(payload))

    return render


def fixed(request: dict[str, Any]) -> Render:
    """A request that never carries the payload."""
    text = jsontext.dumps_compact(request)

    # Parsed afresh on every call: attempts must not share containers a test may mutate.
    def render(payload: str) -> MaterializedRequest:
        return MaterializedRequest(text, json.loads(text))

    return render


def taking_input_object(request: dict[str, Any], key: str | None) -> Render:
    """A fixed request that takes in the payload when the payload is a JSON object.

    With ``key`` the object goes under that key. Without, its members are merged in after
    the request's own, which keep their values.
    """
    text = jsontext.dumps_compact(request)

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
        return MaterializedRequest(jsontext.dumps_compact(data), data)

    return render


def _base64_slotted(build: Callable[[str], dict[str, Any]]) -> Render:
    record = slotted(build)
    return lambda payload: record(base64_text(payload))


# -- one renderer per kind ---------------------------------------------------------------------


def universal(context: TargetContext) -> Render:
    def render(payload: str) -> MaterializedRequest:
        return MaterializedRequest(payload, jsontext.loads_or_none(payload))

    return render


def universal_shortener(payload: str) -> tuple[Callable[[int], str], int]:
    """A universal target's request is its Input: shortening it keeps it JSON by cutting
    its longest string where it sits (the whole text, when it is not JSON)."""
    value = jsontext.loads_or_none(payload)
    path = _longest_string(value, ())
    if path is None:
        return (lambda keep: payload[:keep]), len(payload)
    longest: str = _at(value, path)

    def shortened(keep: int) -> str:
        return jsontext.dumps_compact(_replaced(value, path, longest[:keep]))

    return shortened, len(longest)


def _longest_string(value: Any, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
    best: tuple[Any, ...] | None = None
    best_length = -1
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and len(item) > best_length:
            best, best_length = where, len(item)
        elif isinstance(item, dict):
            stack.extend((child, (*where, key)) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, (*where, index)) for index, child in enumerate(item))
    return best


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    copied = list(value)
    copied[head] = _replaced(value[head], rest, new)
    return copied


def sqs(context: TargetContext) -> Render:
    url = sqs_queue_url(context.kind, context.queue_url_template)
    if not context.kind.fifo:
        return slotted(lambda body: {"QueueUrl": url, "MessageBody": body})
    group = context.target.parameters["SqsParameters"]["MessageGroupId"]
    return slotted(lambda body: {"QueueUrl": url, "MessageBody": body, "MessageGroupId": group})


def lambda_(context: TargetContext) -> Render:
    arn = context.target.arn
    return slotted(
        lambda payload: {"FunctionName": arn, "InvocationType": "Event", "Payload": payload}
    )


def sns(context: TargetContext) -> Render:
    arn = context.target.arn
    return slotted(lambda message: {"TopicArn": arn, "Message": message})


def states(context: TargetContext) -> Render:
    arn = context.target.arn
    return slotted(lambda payload: {"stateMachineArn": arn, "input": payload})


def events(context: TargetContext) -> Render:
    arn, schedule_arn = context.target.arn, context.schedule_arn
    block = context.target.parameters["EventBridgeParameters"]
    head = {"Source": block["Source"], "DetailType": block["DetailType"]}

    def put_events(detail: str) -> dict[str, Any]:
        entry = {**head, "Detail": detail, "EventBusName": arn, "Resources": [schedule_arn]}
        return {"Entries": [entry]}

    return slotted(put_events)


def eventsv2(context: TargetContext) -> Render:
    """PutEvents, or PutRawEvents when the target carries its block (docs/eventbridge-v2.md)."""
    arn, parameters = context.target.arn, context.target.parameters
    raw = parameters.get("EventBridgePutRawEventsParameters")
    if raw is None:
        block = parameters["EventBridgePutEventsV2Parameters"]
        head = {"Source": block["Source"], "DetailType": block["DetailType"]}

        def put_events(detail: str) -> dict[str, Any]:
            entry = {**head, "Detail": detail, "Resources": [context.schedule_arn]}
            return {"EventBusArn": arn, "Entries": [entry]}

        return slotted(put_events)
    metadata = raw.get("Metadata")

    def put_raw_events(content_type: str) -> Render:
        def request(data: str) -> dict[str, Any]:
            entry: dict[str, Any] = {"Data": data}
            if metadata is not None:
                entry["Metadata"] = dict(metadata)
            entry["SystemMetadata"] = {"ContentType": content_type}
            return {"EventBusArn": arn, "Entries": [entry]}

        return _base64_slotted(request)

    as_json, as_bytes = put_raw_events(JSON_CONTENT), put_raw_events(OPAQUE_CONTENT)

    def render(payload: str) -> MaterializedRequest:
        # The content type says what the data is: JSON, or bytes of no declared format.
        try:
            jsontext.loads(payload)
        except ValueError:
            return as_bytes(payload)
        return as_json(payload)

    return render


def kinesis(context: TargetContext) -> Render:
    arn = context.target.arn
    key = context.target.parameters["KinesisParameters"]["PartitionKey"]
    return _base64_slotted(lambda data: {"StreamARN": arn, "PartitionKey": key, "Data": data})


def firehose(context: TargetContext) -> Render:
    name = context.kind.resource
    return _base64_slotted(lambda data: {"DeliveryStreamName": name, "Record": {"Data": data}})


def ecs(context: TargetContext) -> Render:
    request = ecs_request(context.target.arn, context.target.parameters["EcsParameters"])
    if context.target.input is None:
        return fixed(request)
    return taking_input_object(request, "overrides")


def sagemaker(context: TargetContext) -> Render:
    pipeline: dict[str, Any] = {"PipelineName": context.kind.resource}
    block = context.target.parameters.get("SageMakerPipelineParameters", {})
    listed = block.get("PipelineParameterList")
    if listed:
        pipeline["PipelineParameters"] = [{"Name": p["Name"], "Value": p["Value"]} for p in listed]
    return fixed(pipeline)


def codebuild(context: TargetContext) -> Render:
    build = {"projectName": context.kind.resource}
    return fixed(build) if context.target.input is None else taking_input_object(build, None)


def codepipeline(context: TargetContext) -> Render:
    return fixed({"name": context.kind.resource})


def inspector(context: TargetContext) -> Render:
    return fixed({"assessmentTemplateArn": context.target.arn})


def generic(context: TargetContext) -> Render:
    arn = context.target.arn
    return slotted(lambda payload: {"TargetArn": arn, "Input": payload})


# -- ECS RunTask -------------------------------------------------------------------------------


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


def ecs_request(cluster: str, ecs: Mapping[str, Any]) -> dict[str, Any]:
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
