"""What Ref and Fn::GetAtt answer for each resource type, and for a type not known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.errors import StackError
from tests.stacks.building import ACCOUNT, read, resources

A = ACCOUNT
R = "us-east-1"

# (type, properties, Ref, {attribute: answer})
TYPES: list[tuple[str, dict[str, Any], str, dict[str, str]]] = [
    (
        "AWS::Scheduler::Schedule",
        {"Name": "nightly", "GroupName": "billing"},
        "nightly",
        {"Arn": f"arn:aws:scheduler:{R}:{A}:schedule/billing/nightly"},
    ),
    (
        "AWS::Scheduler::ScheduleGroup",
        {"Name": "billing"},
        "billing",
        {"Arn": f"arn:aws:scheduler:{R}:{A}:schedule-group/billing"},
    ),
    ("AWS::Events::Rule", {"Name": "r"}, "r", {"Arn": f"arn:aws:events:{R}:{A}:rule/r"}),
    (
        "AWS::Events::Rule",
        {"Name": "r", "EventBusName": "orders"},
        "r",
        {"Arn": f"arn:aws:events:{R}:{A}:rule/orders/r"},
    ),
    (
        "AWS::Events::EventBus",
        {"Name": "orders"},
        "orders",
        {"Arn": f"arn:aws:events:{R}:{A}:event-bus/orders", "Name": "orders"},
    ),
    (
        "AWS::SQS::Queue",
        {"QueueName": "jobs"},
        f"https://sqs.{R}.amazonaws.com/{A}/jobs",
        {
            "Arn": f"arn:aws:sqs:{R}:{A}:jobs",
            "QueueName": "jobs",
            "QueueUrl": f"https://sqs.{R}.amazonaws.com/{A}/jobs",
        },
    ),
    (
        "AWS::SNS::Topic",
        {"TopicName": "alerts"},
        f"arn:aws:sns:{R}:{A}:alerts",
        {"TopicArn": f"arn:aws:sns:{R}:{A}:alerts", "TopicName": "alerts"},
    ),
    (
        "AWS::Lambda::Function",
        {"FunctionName": "charge"},
        "charge",
        {"Arn": f"arn:aws:lambda:{R}:{A}:function:charge"},
    ),
    (
        "AWS::Lambda::Alias",
        {"FunctionName": "charge", "Name": "live"},
        f"arn:aws:lambda:{R}:{A}:function:charge:live",
        {},
    ),
    (
        "AWS::Lambda::Version",
        {"FunctionName": "charge"},
        f"arn:aws:lambda:{R}:{A}:function:charge:1",
        {"Version": "1"},
    ),
    (
        "AWS::StepFunctions::StateMachine",
        {"StateMachineName": "flow"},
        f"arn:aws:states:{R}:{A}:stateMachine:flow",
        {"Arn": f"arn:aws:states:{R}:{A}:stateMachine:flow", "Name": "flow"},
    ),
    (
        "AWS::Kinesis::Stream",
        {"Name": "clicks"},
        "clicks",
        {"Arn": f"arn:aws:kinesis:{R}:{A}:stream/clicks"},
    ),
    (
        "AWS::KinesisFirehose::DeliveryStream",
        {"DeliveryStreamName": "dump"},
        "dump",
        {"Arn": f"arn:aws:firehose:{R}:{A}:deliverystream/dump"},
    ),
    ("AWS::ECS::Cluster", {"ClusterName": "c"}, "c", {"Arn": f"arn:aws:ecs:{R}:{A}:cluster/c"}),
    (
        "AWS::ECS::TaskDefinition",
        {"Family": "job"},
        f"arn:aws:ecs:{R}:{A}:task-definition/job:1",
        {"TaskDefinitionArn": f"arn:aws:ecs:{R}:{A}:task-definition/job:1"},
    ),
    (
        "AWS::CodeBuild::Project",
        {"Name": "build"},
        "build",
        {"Arn": f"arn:aws:codebuild:{R}:{A}:project/build"},
    ),
    (
        "AWS::SageMaker::Pipeline",
        {"PipelineName": "train"},
        "train",
        {"PipelineArn": f"arn:aws:sagemaker:{R}:{A}:pipeline/train"},
    ),
    (
        "AWS::IAM::Role",
        {"RoleName": "runner", "Path": "/service/"},
        "runner",
        {"Arn": f"arn:aws:iam::{A}:role/service/runner"},
    ),
    (
        "AWS::IAM::ManagedPolicy",
        {"ManagedPolicyName": "send"},
        f"arn:aws:iam::{A}:policy/send",
        {"PolicyArn": f"arn:aws:iam::{A}:policy/send"},
    ),
    ("AWS::KMS::Alias", {"AliasName": "alias/app"}, "alias/app", {}),
    (
        "AWS::Logs::LogGroup",
        {"LogGroupName": "/app"},
        "/app",
        {"Arn": f"arn:aws:logs:{R}:{A}:log-group:/app:*"},
    ),
    (
        "AWS::DynamoDB::Table",
        {"TableName": "orders"},
        "orders",
        {"Arn": f"arn:aws:dynamodb:{R}:{A}:table/orders"},
    ),
    (
        "AWS::S3::Bucket",
        {"BucketName": "uploads"},
        "uploads",
        {"Arn": "arn:aws:s3:::uploads", "RegionalDomainName": f"uploads.s3.{R}.amazonaws.com"},
    ),
]


@pytest.mark.parametrize(
    ("resource_type", "properties", "ref", "attributes"),
    TYPES,
    ids=[f"{row[0]}-{index}" for index, row in enumerate(TYPES)],
)
def test_ref_and_get_att_answer_what_the_type_documents(
    tmp_path: Path,
    resource_type: str,
    properties: dict[str, Any],
    ref: str,
    attributes: dict[str, str],
) -> None:
    answers = {"ByRef": {"Ref": "Thing"}}
    answers.update({name: {"Fn::GetAtt": ["Thing", name]} for name in attributes})
    template = resources(
        Thing={"Type": resource_type, "Properties": properties},
        Reader={"Type": "AWS::Logs::LogGroup", "Properties": {"Tags": answers}},
    )
    stack = read(tmp_path, template)
    assert stack.resource("Reader").properties["Tags"] == {"ByRef": ref, **attributes}
    assert stack.resource("Thing").ref == ref


def test_a_kms_key_is_named_by_a_derived_key_id(tmp_path: Path) -> None:
    stack = read(tmp_path, resources(Key={"Type": "AWS::KMS::Key"}))
    key = stack.resource("Key")
    assert key.ref is not None and len(key.ref) == 36
    assert key.arn == f"arn:aws:kms:{R}:{A}:key/{key.ref}"


def test_arns_follow_the_partition_of_the_region(tmp_path: Path) -> None:
    template = resources(Jobs={"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "jobs"}})
    stack = read(tmp_path, template, region="cn-north-1")
    assert stack.partition == "aws-cn"
    assert stack.resource("Jobs").arn == f"arn:aws-cn:sqs:cn-north-1:{A}:jobs"
    assert stack.resource("Jobs").ref == f"https://sqs.cn-north-1.amazonaws.com.cn/{A}/jobs"


UNKNOWN = resources(
    Widget={"Type": "AWS::Foo::Bar", "Properties": {"Size": 3}},
    Reader={
        "Type": "AWS::Logs::LogGroup",
        "Properties": {"Tags": {"ByRef": {"Ref": "Widget"}, "Arn": {"Fn::GetAtt": "Widget.Arn"}}},
    },
)


def test_a_resource_of_an_unknown_type_is_listed_without_name_or_arn(tmp_path: Path) -> None:
    template = resources(Widget={"Type": "AWS::Foo::Bar", "Properties": {"Size": 3}})
    widget = read(tmp_path, template).resource("Widget")
    assert (widget.type, widget.properties, widget.physical_name, widget.arn) == (
        "AWS::Foo::Bar",
        {"Size": 3},
        None,
        None,
    )


def test_a_reference_to_an_unknown_type_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(StackError, match="has no known Ref for type AWS::Foo::Bar"):
        read(tmp_path, UNKNOWN)


def test_placeholders_answer_for_an_unknown_type(tmp_path: Path) -> None:
    stack = read(tmp_path, UNKNOWN, placeholders=True)
    arn = f"arn:aws:foo:{R}:{A}:widget"
    assert stack.resource("Reader").properties["Tags"] == {"ByRef": arn, "Arn": arn}
    assert stack.resource("Widget").arn == arn
