"""Parameters take their Default or the value given, and are checked as CloudFormation
checks them before it creates anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.errors import StackError
from tests.stacks.building import read


def _description(tmp_path: Path, spec: dict[str, Any], **options: Any) -> Any:
    body = {
        "Parameters": {"Env": spec},
        "Resources": {
            "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"Description": {"Ref": "Env"}}}
        },
    }
    return read(tmp_path, body, **options).resource("Logs").properties["Description"]


def test_a_parameter_takes_its_default(tmp_path: Path) -> None:
    assert _description(tmp_path, {"Type": "String", "Default": "dev"}) == "dev"


def test_a_value_given_overrides_the_default(tmp_path: Path) -> None:
    spec = {"Type": "String", "Default": "dev"}
    assert _description(tmp_path, spec, parameters={"Env": "prod"}) == "prod"


def test_list_parameters_are_split(tmp_path: Path) -> None:
    spec = {"Type": "CommaDelimitedList", "Default": "a, b,c"}
    assert _description(tmp_path, spec) == ["a", "b", "c"]
    numbers = {"Type": "List<Number>"}
    assert _description(tmp_path, numbers, parameters={"Env": "1,2"}) == ["1", "2"]


def test_a_parameter_without_a_value_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(StackError, match="parameter Env: no value given and no Default"):
        _description(tmp_path, {"Type": "String"})


def test_a_value_for_an_undeclared_parameter_is_an_error(tmp_path: Path) -> None:
    spec = {"Type": "String", "Default": "dev"}
    with pytest.raises(StackError, match="does not declare: Stage, Typo"):
        _description(tmp_path, spec, parameters={"Typo": "x", "Stage": "y"})


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        (
            {"AllowedValues": ["dev", "prod"]},
            "prod2",
            "'prod2' is not one of the AllowedValues [dev, prod]",
        ),
        ({"AllowedPattern": "[a-z]+"}, "Dev", "'Dev' does not match the AllowedPattern '[a-z]+'"),
        ({"MinLength": 3}, "ab", "'ab' is shorter than MinLength 3"),
        ({"MaxLength": 3}, "abcd", "'abcd' is longer than MaxLength 3"),
        ({"Type": "Number"}, "ten", "'ten' is not a Number"),
        ({"Type": "Number", "MinValue": 1}, "0", "0 is less than MinValue 1"),
        ({"Type": "Number", "MaxValue": 10}, "11", "11 is more than MaxValue 10"),
        (
            {"Type": "CommaDelimitedList", "AllowedValues": ["a", "b"]},
            "a,c",
            "'c' is not one of the AllowedValues [a, b]",
        ),
    ],
)
def test_a_value_that_fails_a_check_is_an_error(
    tmp_path: Path, spec: dict[str, Any], value: str, message: str
) -> None:
    with pytest.raises(StackError) as raised:
        _description(tmp_path, {"Type": "String", **spec}, parameters={"Env": value})
    assert str(raised.value) == f"{tmp_path / 'template.json'}: parameter Env: {message}"


def test_values_within_the_checks_pass(tmp_path: Path) -> None:
    spec = {"Type": "Number", "MinValue": 1, "MaxValue": 10, "AllowedPattern": "[0-9]+"}
    assert _description(tmp_path, spec, parameters={"Env": "10"}) == "10"


def test_an_ssm_parameter_is_read_only_when_referred_to(tmp_path: Path) -> None:
    body = {
        "Parameters": {
            "BootstrapVersion": {
                "Type": "AWS::SSM::Parameter::Value<String>",
                "Default": "/cdk-bootstrap/hnb659fds/version",
            }
        },
        "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}},
        "Rules": {"CheckBootstrapVersion": {"Assertions": [{"Assert": {"Fn::Not": [True]}}]}},
    }
    assert [resource.logical_id for resource in read(tmp_path, body).resources] == ["Queue"]
    body["Resources"]["Queue"]["Properties"] = {"QueueName": {"Ref": "BootstrapVersion"}}
    with pytest.raises(StackError, match="parameter BootstrapVersion is read from SSM"):
        read(tmp_path, body)
    given = read(tmp_path, body, parameters={"BootstrapVersion": "21"})
    assert given.resource("Queue").physical_name == "21"
