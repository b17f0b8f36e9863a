"""A test finds a resource by its logical id, its CDK construct id or its CDK path."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_schedemu.stacks import ResolvedStack
from tests.stacks.building import read, resources


def _cdk_like(tmp_path: Path) -> ResolvedStack:
    def queue(path: str) -> dict[str, object]:
        return {"Type": "AWS::SQS::Queue", "Metadata": {"aws:cdk:path": path}}

    return read(
        tmp_path,
        resources(
            ChargeQueue17FB8393=queue("Billing/ChargeQueue/Resource"),
            ChargeQueueA1B2C3D4=queue("Billing/Nested/ChargeQueue/Resource"),
            Plain={"Type": "AWS::SQS::Queue"},
        ),
    )


def test_a_resource_is_found_by_logical_id_construct_id_and_path(tmp_path: Path) -> None:
    stack = _cdk_like(tmp_path)
    found = stack.resource("ChargeQueue17FB8393")
    assert found.construct_id == "ChargeQueue"
    assert stack.resource("Billing/ChargeQueue/Resource") is found
    assert stack.resource("Billing/ChargeQueue") is found
    assert stack.resource("Plain").construct_id is None


def test_a_name_of_several_resources_is_ambiguous(tmp_path: Path) -> None:
    with pytest.raises(LookupError, match="ChargeQueue17FB8393, ChargeQueueA1B2C3D4"):
        _cdk_like(tmp_path).resource("ChargeQueue")


def test_an_unknown_name_suggests_the_closest(tmp_path: Path) -> None:
    with pytest.raises(LookupError, match="has no resource 'Plane'; did you mean Plain\\?"):
        _cdk_like(tmp_path).resource("Plane")


def test_of_type_lists_the_resources_of_a_type_in_order(tmp_path: Path) -> None:
    stack = _cdk_like(tmp_path)
    assert [r.logical_id for r in stack.of_type("AWS::SQS::Queue")][-1] == "Plain"
    assert stack.of_type("AWS::SNS::Topic") == ()
