"""What the vendored events model has that the emulator does not model yet: after a
re-vendoring (``python -m tools.vendor``) these tests name what to model."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from pytest_schedemu.events_api.names import RULE_OPERATIONS
from pytest_schedemu.events_api.rules import rule_document
from pytest_schedemu.model.rules import TARGET_PARAMETER_BLOCKS, Rule
from tests.constants import ACCOUNT, T0
from tools.vendor import EVENTS, Layout

MODEL: dict[str, Any] = json.loads(Layout.of_package().service_file(EVENTS).read_text())
SHAPES: dict[str, Any] = MODEL["shapes"]
#: What a target of any kind may have; the rest of its members are parameter blocks.
BASIC_TARGET_MEMBERS = {
    "Id",
    "Arn",
    "RoleArn",
    "Input",
    "InputPath",
    "InputTransformer",
    "DeadLetterConfig",
    "RetryPolicy",
}


def test_every_rule_operation_is_in_the_model() -> None:
    assert set(MODEL["operations"]) >= RULE_OPERATIONS


def test_every_parameter_block_of_a_target_is_stored_for_firing() -> None:
    blocks = set(SHAPES["Target"]["members"]) - BASIC_TARGET_MEMBERS
    assert blocks == set(TARGET_PARAMETER_BLOCKS)


def test_describe_rule_answers_every_member_of_its_output() -> None:
    rule = Rule(
        account_id=ACCOUNT,
        region="us-east-1",
        name="r1",
        creation_date=T0,
        activated_at=T0 + timedelta(minutes=1),
        incarnation=1,
        schedule_expression="rate(1 hour)",
        event_pattern="{}",
        description="d",
        role_arn="arn:aws:iam::123456789012:role/r",
        managed_by="aws.partner",
        created_by=ACCOUNT,
    )
    assert set(rule_document(rule, described=True)) == set(
        SHAPES["DescribeRuleResponse"]["members"]
    )
    listed = SHAPES[SHAPES["RuleResponseList"]["member"]["shape"]]
    assert set(rule_document(rule)) == set(listed["members"])
