"""One row per resource type: its name property and the longest name it takes, its ARN,
what ``Ref`` answers and what each ``Fn::GetAtt`` attribute answers.

The rules and where each comes from are in docs/guide/stacks.md. A row's ARN and answers are
format strings over the values of one resource (``partition``, ``region``, ``account``,
``dns_suffix``, ``name``, ``arn`` and what its ``extras`` add), so that a row reads like
the documentation's table it was taken from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: Reads one property of the resource, resolved (None when absent).
PropertyReader = Callable[[str], Any]
#: Derives a deterministic token for the resource from a label (see ``names``).
Deriver = Callable[[str], str]


@dataclass(frozen=True)
class ResourceKind:
    """What CloudFormation knows of one resource type."""

    #: The property that names the resource; None where the type has no name.
    name_property: str | None
    #: The longest name the service takes, for a generated name.
    max_length: int = 0
    #: The ARN's format; None where the type has none.
    arn: str | None = None
    #: The format of what ``Ref`` answers; None where ``Ref`` answers nothing useful.
    ref: str | None = "{name}"
    #: ``Fn::GetAtt`` attributes and the format each answers.
    attributes: Mapping[str, str] = field(default_factory=dict)
    #: A resource of the type gets a generated name when its name property is absent.
    generated: bool = True
    #: Generated names are lower case (S3 takes no upper case).
    lower_case: bool = False
    #: The property that, when true, makes a generated name end in ``.fifo``.
    fifo_property: str | None = None
    #: Values beyond the common ones, from the resource's properties.
    extras: Callable[[PropertyReader, Deriver, Mapping[str, str]], dict[str, str]] | None = None


def _schedule(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    return {"group": read("GroupName") or "default"}


def _rule(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    # A rule on a custom bus has the bus in its ARN; the bus may be given by name or by ARN.
    bus = read("EventBusName") or "default"
    bus = bus.rsplit("event-bus/", 1)[-1]
    return {"bus": "" if bus == "default" else f"{bus}/"}


def _queue(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    return {
        "url": "https://sqs.{region}.{dns_suffix}/{account}/{name}".format_map(values),
    }


def _iam_path(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    return {"path": read("Path") or "/", "unique_id": "AROA" + derive("unique-id")[:17]}


def _function_of(read: PropertyReader, values: Mapping[str, str]) -> str:
    function = read("FunctionName") or ""
    if function.startswith("arn:"):
        return str(function)
    return "arn:{partition}:lambda:{region}:{account}:function:".format_map(values) + function


def _alias(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    return {"function_arn": _function_of(read, values)}


def _version(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    # The first version a stack publishes is version 1.
    return {"function_arn": _function_of(read, values), "version": "1"}


def _key(read: PropertyReader, derive: Deriver, values: Mapping[str, str]) -> dict[str, str]:
    return {"name": derive("uuid")}


def _destination(
    read: PropertyReader, derive: Deriver, values: Mapping[str, str]
) -> dict[str, str]:
    return {"id": derive("uuid")}


_SCHEDULER = "arn:{partition}:scheduler:{region}:{account}"
_EVENTS = "arn:{partition}:events:{region}:{account}"
_LAMBDA = "arn:{partition}:lambda:{region}:{account}:function:{name}"

KINDS: dict[str, ResourceKind] = {
    "AWS::Scheduler::Schedule": ResourceKind(
        "Name",
        64,
        _SCHEDULER + ":schedule/{group}/{name}",
        attributes={"Arn": "{arn}"},
        extras=_schedule,
    ),
    "AWS::Scheduler::ScheduleGroup": ResourceKind(
        "Name", 64, _SCHEDULER + ":schedule-group/{name}", attributes={"Arn": "{arn}"}
    ),
    "AWS::Events::Rule": ResourceKind(
        "Name", 64, _EVENTS + ":rule/{bus}{name}", attributes={"Arn": "{arn}"}, extras=_rule
    ),
    "AWS::Events::EventBus": ResourceKind(
        "Name", 256, _EVENTS + ":event-bus/{name}", attributes={"Arn": "{arn}", "Name": "{name}"}
    ),
    "AWS::Events::ApiDestination": ResourceKind(
        "Name",
        64,
        _EVENTS + ":api-destination/{name}/{id}",
        attributes={"Arn": "{arn}"},
        extras=_destination,
    ),
    "AWS::Events::Connection": ResourceKind(
        "Name",
        64,
        _EVENTS + ":connection/{name}/{id}",
        attributes={"Arn": "{arn}"},
        extras=_destination,
    ),
    "AWS::SQS::Queue": ResourceKind(
        "QueueName",
        80,
        "arn:{partition}:sqs:{region}:{account}:{name}",
        ref="{url}",
        attributes={"Arn": "{arn}", "QueueName": "{name}", "QueueUrl": "{url}"},
        fifo_property="FifoQueue",
        extras=_queue,
    ),
    "AWS::SNS::Topic": ResourceKind(
        "TopicName",
        256,
        "arn:{partition}:sns:{region}:{account}:{name}",
        ref="{arn}",
        attributes={"TopicArn": "{arn}", "TopicName": "{name}"},
        fifo_property="FifoTopic",
    ),
    "AWS::Lambda::Function": ResourceKind("FunctionName", 64, _LAMBDA, attributes={"Arn": "{arn}"}),
    "AWS::Lambda::Alias": ResourceKind(
        "Name",
        128,
        "{function_arn}:{name}",
        ref="{arn}",
        attributes={"AliasArn": "{arn}"},
        generated=False,
        extras=_alias,
    ),
    "AWS::Lambda::Version": ResourceKind(
        None,
        arn="{function_arn}:{version}",
        ref="{arn}",
        generated=False,
        attributes={"Version": "{version}", "FunctionArn": "{function_arn}"},
        extras=_version,
    ),
    "AWS::Lambda::Permission": ResourceKind(None, 64, attributes={}),
    "AWS::StepFunctions::StateMachine": ResourceKind(
        "StateMachineName",
        80,
        "arn:{partition}:states:{region}:{account}:stateMachine:{name}",
        ref="{arn}",
        attributes={"Arn": "{arn}", "Name": "{name}"},
    ),
    "AWS::Kinesis::Stream": ResourceKind(
        "Name",
        128,
        "arn:{partition}:kinesis:{region}:{account}:stream/{name}",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::KinesisFirehose::DeliveryStream": ResourceKind(
        "DeliveryStreamName",
        64,
        "arn:{partition}:firehose:{region}:{account}:deliverystream/{name}",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::ECS::Cluster": ResourceKind(
        "ClusterName",
        255,
        "arn:{partition}:ecs:{region}:{account}:cluster/{name}",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::ECS::TaskDefinition": ResourceKind(
        # A new task definition family starts at revision 1.
        "Family",
        255,
        "arn:{partition}:ecs:{region}:{account}:task-definition/{name}:1",
        ref="{arn}",
        attributes={"TaskDefinitionArn": "{arn}"},
    ),
    "AWS::CodeBuild::Project": ResourceKind(
        "Name",
        150,
        "arn:{partition}:codebuild:{region}:{account}:project/{name}",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::CodePipeline::Pipeline": ResourceKind(
        "Name",
        100,
        "arn:{partition}:codepipeline:{region}:{account}:{name}",
        attributes={"Version": "1"},
    ),
    "AWS::SageMaker::Pipeline": ResourceKind(
        "PipelineName",
        256,
        "arn:{partition}:sagemaker:{region}:{account}:pipeline/{name}",
        attributes={"PipelineArn": "{arn}"},
    ),
    "AWS::IAM::Role": ResourceKind(
        "RoleName",
        64,
        "arn:{partition}:iam::{account}:role{path}{name}",
        attributes={"Arn": "{arn}", "RoleId": "{unique_id}"},
        extras=_iam_path,
    ),
    "AWS::IAM::Policy": ResourceKind("PolicyName", 128, attributes={}),
    "AWS::IAM::ManagedPolicy": ResourceKind(
        "ManagedPolicyName",
        128,
        "arn:{partition}:iam::{account}:policy{path}{name}",
        ref="{arn}",
        attributes={"PolicyArn": "{arn}"},
        extras=_iam_path,
    ),
    "AWS::KMS::Key": ResourceKind(
        None,
        arn="arn:{partition}:kms:{region}:{account}:key/{name}",
        attributes={"Arn": "{arn}", "KeyId": "{name}"},
        extras=_key,
    ),
    "AWS::KMS::Alias": ResourceKind(
        "AliasName",
        256,
        "arn:{partition}:kms:{region}:{account}:{name}",
        generated=False,
    ),
    "AWS::Logs::LogGroup": ResourceKind(
        "LogGroupName",
        512,
        "arn:{partition}:logs:{region}:{account}:log-group:{name}:*",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::DynamoDB::Table": ResourceKind(
        "TableName",
        255,
        "arn:{partition}:dynamodb:{region}:{account}:table/{name}",
        attributes={"Arn": "{arn}"},
    ),
    "AWS::S3::Bucket": ResourceKind(
        "BucketName",
        63,
        "arn:{partition}:s3:::{name}",
        lower_case=True,
        attributes={
            "Arn": "{arn}",
            "DomainName": "{name}.s3.{dns_suffix}",
            "RegionalDomainName": "{name}.s3.{region}.{dns_suffix}",
        },
    ),
    "AWS::CDK::Metadata": ResourceKind(None, ref=None, generated=False),
}
