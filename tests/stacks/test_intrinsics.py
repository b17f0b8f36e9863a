"""Intrinsic functions and conditions resolve as CloudFormation resolves them."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.errors import StackError
from tests.stacks.building import ACCOUNT, read


def _value(tmp_path: Path, value: Any, **template: Any) -> Any:
    """What ``value`` resolves to as the Description of a log group."""
    body = {
        "Resources": {
            "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"Description": value}},
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "jobs"}},
        },
        **template,
    }
    return read(tmp_path, body).resource("Logs").properties.get("Description", "<absent>")


def test_ref_to_a_resource_answers_what_its_type_answers(tmp_path: Path) -> None:
    url = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/jobs"
    assert _value(tmp_path, {"Ref": "Queue"}) == url


def test_get_att_answers_the_attribute(tmp_path: Path) -> None:
    arn = f"arn:aws:sqs:us-east-1:{ACCOUNT}:jobs"
    assert _value(tmp_path, {"Fn::GetAtt": ["Queue", "Arn"]}) == arn
    assert _value(tmp_path, {"Fn::GetAtt": "Queue.QueueName"}) == "jobs"


def test_pseudo_parameters_describe_the_stack_and_where_it_is(tmp_path: Path) -> None:
    names = ["AccountId", "Region", "Partition", "URLSuffix", "StackName"]
    sub = "/".join(f"${{AWS::{name}}}" for name in names)
    assert _value(tmp_path, {"Fn::Sub": sub}) == f"{ACCOUNT}/us-east-1/aws/amazonaws.com/template"
    assert _value(tmp_path, {"Ref": "AWS::NotificationARNs"}) == []
    stack_id = _value(tmp_path, {"Ref": "AWS::StackId"})
    assert stack_id.startswith(f"arn:aws:cloudformation:us-east-1:{ACCOUNT}:stack/template/")


def test_sub_reads_refs_attributes_variables_and_keeps_escaped_literals(tmp_path: Path) -> None:
    value = {
        "Fn::Sub": [
            "${Queue.Arn} ${Queue} ${Who} ${!Literal} ${AWS::Region}",
            {"Who": {"Fn::Join": ["+", ["a", "b"]]}},
        ]
    }
    assert _value(tmp_path, value) == (
        f"arn:aws:sqs:us-east-1:{ACCOUNT}:jobs "
        f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/jobs a+b ${{Literal}} us-east-1"
    )


def test_join_select_split_and_base64(tmp_path: Path) -> None:
    assert _value(tmp_path, {"Fn::Join": [":", ["a", 1, True]]}) == "a:1:true"
    assert _value(tmp_path, {"Fn::Select": ["1", {"Fn::Split": [",", "x,y,z"]}]}) == "y"
    assert _value(tmp_path, {"Fn::Base64": "hello"}) == base64.b64encode(b"hello").decode()


def test_get_azs_answers_three_zones_of_the_region(tmp_path: Path) -> None:
    assert _value(tmp_path, {"Fn::GetAZs": ""}) == ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert _value(tmp_path, {"Fn::GetAZs": "eu-west-1"})[0] == "eu-west-1a"


def test_cidr_carves_subnets_of_the_block(tmp_path: Path) -> None:
    subnets = _value(tmp_path, {"Fn::Cidr": ["10.0.0.0/16", 3, 8]})
    assert subnets == ["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"]
    assert _value(tmp_path, {"Fn::Cidr": ["fd00::/56", "2", "64"]}) == [
        "fd00::/64",
        "fd00:0:0:1::/64",
    ]


def test_find_in_map_reads_the_mappings(tmp_path: Path) -> None:
    mappings = {"Sizes": {"us-east-1": {"Memory": 512}}}
    value = {"Fn::FindInMap": ["Sizes", {"Ref": "AWS::Region"}, "Memory"]}
    assert _value(tmp_path, value, Mappings=mappings) == 512


def test_import_value_reads_the_given_exports(tmp_path: Path) -> None:
    body = {
        "Resources": {
            "Logs": {
                "Type": "AWS::Logs::LogGroup",
                "Properties": {"Description": {"Fn::ImportValue": "shared-bus-arn"}},
            }
        }
    }
    stack = read(tmp_path, body, imports={"shared-bus-arn": "arn:aws:events:x"})
    assert stack.resource("Logs").properties["Description"] == "arn:aws:events:x"
    with pytest.raises(
        StackError, match="resource Logs: Fn::ImportValue shared-bus-arn: no export"
    ):
        read(tmp_path, body)


CONDITIONS = {
    "Yes": {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]},
    "No": {"Fn::Not": [{"Condition": "Yes"}]},
    "Both": {"Fn::And": [{"Condition": "Yes"}, {"Condition": "No"}]},
    "Either": {"Fn::Or": [{"Condition": "No"}, {"Condition": "Yes"}]},
}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [("Yes", "then"), ("No", "else"), ("Both", "else"), ("Either", "then")],
)
def test_if_follows_its_condition(tmp_path: Path, condition: str, expected: str) -> None:
    value = {"Fn::If": [condition, "then", "else"]}
    assert _value(tmp_path, value, Conditions=CONDITIONS) == expected


def test_no_value_removes_the_property_and_the_list_item(tmp_path: Path) -> None:
    no_value = {"Ref": "AWS::NoValue"}
    assert _value(tmp_path, {"Fn::If": ["No", "x", no_value]}, Conditions=CONDITIONS) == "<absent>"
    assert _value(tmp_path, ["a", no_value, "b"]) == ["a", "b"]


def test_a_resource_whose_condition_is_false_is_absent(tmp_path: Path) -> None:
    body = {
        "Conditions": CONDITIONS,
        "Resources": {
            "Made": {"Type": "AWS::SQS::Queue", "Condition": "Yes"},
            "Skipped": {"Type": "AWS::SQS::Queue", "Condition": "No"},
        },
    }
    assert [resource.logical_id for resource in read(tmp_path, body).resources] == ["Made"]


def test_a_reference_to_a_skipped_resource_is_an_error(tmp_path: Path) -> None:
    body = {
        "Conditions": CONDITIONS,
        "Resources": {
            "Skipped": {"Type": "AWS::SQS::Queue", "Condition": "No"},
            "Nightly": {
                "Type": "AWS::Scheduler::Schedule",
                "Properties": {"Target": {"Arn": {"Fn::GetAtt": ["Skipped", "Arn"]}}},
            },
        },
    }
    with pytest.raises(StackError) as raised:
        read(tmp_path, body)
    assert str(raised.value) == (
        f"{tmp_path / 'template.json'}: resource Nightly: Fn::GetAtt Skipped.Arn: resource "
        "Skipped is not created (its Condition No is false) (at Properties.Target.Arn)"
    )


def test_an_unresolvable_reference_names_the_file_the_resource_and_the_path(tmp_path: Path) -> None:
    template = """
Resources:
  Nightly:
    Type: AWS::Scheduler::Schedule
    Properties:
      Target:
        Arn: !GetAtt Queue.Arn
"""
    with pytest.raises(StackError) as raised:
        read(tmp_path, template)
    assert str(raised.value) == (
        f"{tmp_path / 'template.yaml'}: resource Nightly: Fn::GetAtt Queue.Arn: "
        "no resource Queue (at Properties.Target.Arn)"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"Ref": "Nothing"}, "Ref Nothing: no parameter, pseudo parameter or resource Nothing"),
        ({"Fn::GetAtt": ["Queue", "Colour"]}, "type AWS::SQS::Queue has no attribute Colour"),
        ({"Fn::If": ["Missing", "a", "b"]}, "no condition Missing"),
        ({"Fn::Select": [5, ["a"]]}, "Fn::Select: index 5 is outside a list of 1"),
        ({"Fn::FindInMap": ["Nope", "a", "b"]}, "Fn::FindInMap Nope.a.b: Mappings has no key"),
        ({"Fn::Length": [1, 2]}, "Fn::Length is not supported"),
        ({"Fn::Join": [",", [["nested"]]]}, "Fn::Join: expects a string"),
    ],
)
def test_a_function_that_cannot_resolve_says_why(tmp_path: Path, value: Any, message: str) -> None:
    with pytest.raises(StackError, match="resource Logs: ") as raised:
        _value(tmp_path, value)
    assert message in str(raised.value)


def test_a_reference_cycle_is_an_error(tmp_path: Path) -> None:
    body = {
        "Resources": {
            "A": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Ref": "B"}}},
            "B": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Ref": "A"}}},
        }
    }
    with pytest.raises(StackError, match="circular reference: A -> B -> A"):
        read(tmp_path, body)
