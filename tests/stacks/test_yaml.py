"""CloudFormation's YAML: every short-form tag reads as its long form, dates stay text."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_schedemu.errors import StackError
from pytest_schedemu.stacks.yaml_tags import load_yaml
from tests.stacks.building import read


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("!Ref Queue", {"Ref": "Queue"}),
        ("!GetAtt Queue.Arn", {"Fn::GetAtt": ["Queue", "Arn"]}),
        ("!GetAtt [Queue, Arn]", {"Fn::GetAtt": ["Queue", "Arn"]}),
        ("!GetAtt Db.Endpoint.Address", {"Fn::GetAtt": ["Db", "Endpoint.Address"]}),
        ("!Sub '${A}-x'", {"Fn::Sub": "${A}-x"}),
        ("!Sub ['${A}', {A: b}]", {"Fn::Sub": ["${A}", {"A": "b"}]}),
        ("!Join [',', [a, b]]", {"Fn::Join": [",", ["a", "b"]]}),
        ("!Select [0, [a]]", {"Fn::Select": [0, ["a"]]}),
        ("!Split [',', 'a,b']", {"Fn::Split": [",", "a,b"]}),
        ("!If [C, a, b]", {"Fn::If": ["C", "a", "b"]}),
        ("!Equals [a, b]", {"Fn::Equals": ["a", "b"]}),
        (
            "!And [!Condition A, !Condition B]",
            {"Fn::And": [{"Condition": "A"}, {"Condition": "B"}]},
        ),
        ("!Or [!Condition A, !Condition B]", {"Fn::Or": [{"Condition": "A"}, {"Condition": "B"}]}),
        ("!Not [!Condition A]", {"Fn::Not": [{"Condition": "A"}]}),
        ("!FindInMap [M, a, b]", {"Fn::FindInMap": ["M", "a", "b"]}),
        ("!Base64 text", {"Fn::Base64": "text"}),
        ("!ImportValue shared", {"Fn::ImportValue": "shared"}),
        ("!GetAZs ''", {"Fn::GetAZs": ""}),
        ("!Cidr [10.0.0.0/16, 2, 8]", {"Fn::Cidr": ["10.0.0.0/16", 2, 8]}),
    ],
)
def test_a_short_form_reads_as_its_long_form(short: str, long: object) -> None:
    assert load_yaml(f"Value: {short}") == {"Value": long}


def test_date_like_scalars_stay_strings() -> None:
    loaded = load_yaml("AWSTemplateFormatVersion: 2010-09-09\nStart: 2026-01-01T00:00:00Z\n")
    assert loaded == {"AWSTemplateFormatVersion": "2010-09-09", "Start": "2026-01-01T00:00:00Z"}


def test_a_template_that_is_not_yaml_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(StackError, match=r"template\.yaml: not a template: "):
        read(tmp_path, "Resources: [unclosed\n")


def test_a_file_without_resources_is_not_a_template(tmp_path: Path) -> None:
    with pytest.raises(StackError, match=r"template\.yaml: not a template: it has no Resources"):
        read(tmp_path, "Description: nothing\n")
