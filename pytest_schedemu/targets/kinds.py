"""Target kinds (§5.9): one row per kind, and the classification of a target ARN.

Everything that differs between kinds is a column of ``KINDS``: the ARN's resource
pattern, the API a delivery calls, the parameter block the kind takes, whether its Input
must be JSON, whether its request carries the payload, the error of a missing target, the
fields that travel base64-encoded, and the renderer of its request. Adding a kind is one
row here plus one renderer in ``render``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_schedemu.model.partitions import PARTITION_NAME
from pytest_schedemu.settings.options import DEFAULT_SQS_QUEUE_URL_TEMPLATE
from pytest_schedemu.targets import render
from pytest_schedemu.targets.render import Build

#: The eventsv2 kind's two parameter blocks: one for PutEvents, one for PutRawEvents.
EVENTS_V2_BLOCK = "EventBridgePutEventsV2Parameters"
RAW_EVENTS_BLOCK = "EventBridgePutRawEventsParameters"

UNIVERSAL = "universal"
GENERIC = "generic"

#: How a kind's request relates to the payload: it always carries it, never does, or only
#: when the target has an Input.
ALWAYS, NEVER, WITH_INPUT = "always", "never", "with_input"

#: A target ARN's partition: only a known one, so that a typo is not taken for a target.
PARTITION = rf"(?P<partition>{PARTITION_NAME})"


@dataclass(frozen=True)
class KindSpec:
    """One row of the kinds table."""

    name: str
    #: The ARN's resource part for templated kinds (``name`` group: the resource name);
    #: None for universal and generic, which are recognised otherwise.
    resource: str | None
    #: The botocore client and operation a forwarding delivery calls.
    client: str | None
    operation: str | None
    build: Build
    #: The parameter blocks this kind takes (§5.10 step 5), and whether one must be there.
    blocks: tuple[str, ...] = ()
    requires_block: bool = False
    #: Input must be JSON (§5.10 step 11).
    json_input: bool = False
    #: A block that switches the kind to another operation of its API, one that takes any
    #: text: (block, operation). eventsv2's PutRawEvents, beside its PutEvents.
    raw_variant: tuple[str, str] | None = None
    #: The ARN's service, where it is not the kind's name.
    arn_service: str | None = None
    payload: str = ALWAYS
    #: (code, message) of an attempt at a target declared missing (§5.12); the message is
    #: formatted with the ARN's fields ``arn``, ``name`` and ``account``.
    missing_error: tuple[str, str] | None = None
    #: Paths of request fields sent base64-encoded on the wire, which SDKs take as bytes.
    blob_fields: tuple[tuple[str | int, ...], ...] = ()


KINDS: dict[str, KindSpec] = {
    spec.name: spec
    for spec in (
        KindSpec(UNIVERSAL, None, None, None, render.universal, json_input=True),
        KindSpec(
            "lambda",
            r"function:(?P<name>[^:]+)(?::[^:]+)?",
            "lambda",
            "Invoke",
            render.lambda_,
            json_input=True,
            missing_error=("ResourceNotFoundException", "Function not found: {arn}"),
        ),
        KindSpec(
            "sqs",
            r"(?P<name>[^:/]+)",
            "sqs",
            "SendMessage",
            render.sqs,
            blocks=("SqsParameters",),
            missing_error=(
                "AWS.SimpleQueueService.NonExistentQueue",
                "The specified queue does not exist for this wsdl version.",
            ),
        ),
        KindSpec(
            "sns",
            r"(?P<name>[^:/]+)",
            "sns",
            "Publish",
            render.sns,
            missing_error=("NotFound", "Topic does not exist"),
        ),
        KindSpec(
            "states",
            r"stateMachine:(?P<name>[^:]+)(?::[^:]+)?",
            "stepfunctions",
            "StartExecution",
            render.states,
            json_input=True,
            missing_error=("StateMachineDoesNotExist", "State Machine Does Not Exist: '{arn}'"),
        ),
        KindSpec(
            "events",
            r"event-bus/(?P<name>.+)",
            "events",
            "PutEvents",
            render.events,
            blocks=("EventBridgeParameters",),
            requires_block=True,
            json_input=True,
            missing_error=("ResourceNotFoundException", "Event bus {name} does not exist."),
        ),
        # EventBridge's Custom Event Bus (the eventbridgev2 API); docs/eventbridge-v2.md.
        KindSpec(
            "eventsv2",
            r"event-busv2/(?P<name>[A-Za-z0-9][.\-_A-Za-z0-9]{0,255})/[a-z0-9]{25}",
            "eventbridgev2",
            "PutEvents",
            render.eventsv2,
            blocks=(EVENTS_V2_BLOCK, RAW_EVENTS_BLOCK),
            requires_block=True,
            json_input=True,
            raw_variant=(RAW_EVENTS_BLOCK, "PutRawEvents"),
            arn_service="events",
            missing_error=("ResourceNotFoundException", "Event bus {arn} does not exist."),
            blob_fields=(("Entries", 0, "Data"),),
        ),
        KindSpec(
            "kinesis",
            r"stream/(?P<name>.+)",
            "kinesis",
            "PutRecord",
            render.kinesis,
            blocks=("KinesisParameters",),
            requires_block=True,
            missing_error=(
                "ResourceNotFoundException",
                "Stream {name} under account {account} not found.",
            ),
            blob_fields=(("Data",),),
        ),
        KindSpec(
            "firehose",
            r"deliverystream/(?P<name>.+)",
            "firehose",
            "PutRecord",
            render.firehose,
            blob_fields=(("Record", "Data"),),
        ),
        KindSpec(
            "ecs",
            r"cluster/(?P<name>.+)",
            "ecs",
            "RunTask",
            render.ecs,
            blocks=("EcsParameters",),
            requires_block=True,
            payload=WITH_INPUT,
            missing_error=("ClusterNotFoundException", "Cluster not found."),
        ),
        KindSpec(
            "sagemaker",
            r"pipeline/(?P<name>.+)",
            "sagemaker",
            "StartPipelineExecution",
            render.sagemaker,
            blocks=("SageMakerPipelineParameters",),
            payload=NEVER,
        ),
        KindSpec(
            "codebuild",
            r"project/(?P<name>.+)",
            "codebuild",
            "StartBuild",
            render.codebuild,
            payload=WITH_INPUT,
        ),
        KindSpec(
            "codepipeline",
            r"(?P<name>[^:/]+)",
            "codepipeline",
            "StartPipelineExecution",
            render.codepipeline,
            payload=NEVER,
        ),
        KindSpec(
            "inspector",
            r"(?P<name>target/.+/template/.+)",
            "inspector",
            "StartAssessmentRun",
            render.inspector,
            payload=NEVER,
        ),
        KindSpec(GENERIC, None, None, None, render.generic),
    )
}

#: Parameter block -> the one kind that takes it.
BLOCK_KINDS = {block: spec.name for spec in KINDS.values() for block in spec.blocks}


def _templated_arns() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """ARN service -> (kind, ARN pattern) of its templated kinds. Kinds are named after
    their ARN's service, or say which it is (eventsv2's buses are ``events`` ARNs)."""
    arns: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for spec in KINDS.values():
        if spec.resource is None:
            continue
        service = spec.arn_service or spec.name
        location = r"(?P<region>[a-z0-9-]+):(?P<account>\d{12})"
        pattern = re.compile(rf"arn:{PARTITION}:{service}:{location}:{spec.resource}")
        arns.setdefault(service, []).append((spec.name, pattern))
    return arns


_TEMPLATED_ARNS = _templated_arns()
_UNIVERSAL_ARN = re.compile(
    rf"arn:{PARTITION}:scheduler:::aws-sdk:(?P<service>[a-z0-9-]+):(?P<action>[A-Za-z][A-Za-z0-9]*)"
)
#: Universal ARNs name services by the SDKs' service identifier: the service id in lower
#: case without spaces or dashes (``cognitoidentityprovider``, ``sfn``). botocore names 168
#: services otherwise (``cognito-idp``, ``stepfunctions``); this table, made from botocore's
#: models by ``python -m tools.vendor``, maps those to botocore's names.
SDK_SERVICE_CLIENTS: dict[str, str] = json.loads(
    (Path(__file__).parent / "data" / "sdk-service-names.json").read_text(encoding="utf-8")
)


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
    #: The botocore client and operation a forwarding delivery calls; None for generic.
    client: str | None = None
    operation: str | None = None

    @property
    def spec(self) -> KindSpec:
        return KINDS[self.name]

    @property
    def templated(self) -> bool:
        return self.name not in (UNIVERSAL, GENERIC)

    @property
    def universal_key(self) -> str | None:
        """``service:action`` of a universal target, the other name tests steer it by."""
        return None if self.service is None else f"{self.service}:{self.action}"


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
            client=SDK_SERVICE_CLIENTS.get(match["service"], match["service"]),
            operation=action[0].upper() + action[1:],
        )
    matches = ((name, pattern.fullmatch(arn)) for name, pattern in _TEMPLATED_ARNS.get(service, ()))
    name, match = next(((name, match) for name, match in matches if match), ("", None))
    if match is None:
        return TargetKind(GENERIC)
    spec = KINDS[name]
    return TargetKind(
        name,
        partition=match["partition"],
        region=match["region"],
        account=match["account"],
        resource=match["name"],
        fifo=service == "sqs" and match["name"].endswith(".fifo"),
        client=spec.client,
        operation=spec.operation,
    )


@lru_cache(maxsize=4096)
def control_keys(arn: str) -> tuple[str, ...]:
    """The keys failure rules and handlers match: the ARN, and ``service:action`` if universal."""
    key = target_kind(arn).universal_key
    return (arn,) if key is None else (arn, key)


@lru_cache(maxsize=4096)
def missing_target_error(kind: TargetKind, target_arn: str) -> tuple[str, str] | None:
    """(code, message) of an attempt at a target declared missing; None where §5.12 has none."""
    error = kind.spec.missing_error
    if error is None:
        return None
    code, message = error
    return code, message.format(arn=target_arn, name=kind.resource, account=kind.account)


def target_operation(kind: TargetKind, parameters: Mapping[str, Any]) -> str | None:
    """The operation an attempt calls: the kind's, or its raw variant's when the target
    carries that block."""
    variant = kind.spec.raw_variant
    if variant is not None and variant[0] in parameters:
        return variant[1]
    return kind.operation


def requires_json_input(kind: TargetKind, parameters: Mapping[str, Any]) -> bool:
    """Whether the target's Input must be JSON (§5.10 step 11)."""
    variant = kind.spec.raw_variant
    if variant is not None and variant[0] in parameters:
        return False
    return kind.spec.json_input


def carries_payload(kind: TargetKind, has_input: bool) -> bool:
    """Whether the kind's request holds the payload (§5.11)."""
    payload = kind.spec.payload
    return payload == ALWAYS or (payload == WITH_INPUT and has_input)


def queue_url(queue_arn: str, template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE) -> str | None:
    """The URL of the SQS queue ``queue_arn`` (a target or a DLQ); None if it names no queue."""
    kind = target_kind(queue_arn)
    if kind.name != "sqs" or kind.partition is None:
        return None
    return render.sqs_queue_url(kind, template)


def decode_blobs(kind: TargetKind, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with its base64 fields as bytes, as an SDK call takes them."""
    for path in kind.spec.blob_fields:
        request = _decoded(request, path)
    return request


def _decoded(document: Any, path: tuple[str | int, ...]) -> Any:
    head, *rest = path
    try:
        value = document[head]
    except (KeyError, IndexError, TypeError):
        return document  # a request of the kind's other operation: no such field
    new = _decoded(value, tuple(rest)) if rest else base64.b64decode(value)
    if isinstance(document, list) and isinstance(head, int):
        copied = list(document)
        copied[head] = new
        return copied
    return {**document, head: new}
