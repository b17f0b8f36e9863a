"""How EventBridge rules are written in a state file's rows, and read back.

A rule's row holds its definition as JSON: what PutRule and the tag operations set, when it
was created and activated, and its targets in the order ListTargetsByRule answers them,
each with its incarnation and every field firing reads (``raw``, the target as PutTargets
sent it, is kept beside them: the API echoes it). A rule read back equals the one written.
A scheduled rule's targets each have a row in ``rule_plans``: where the target's plan
stands (``PlanProgress``). The registry of known names keeps each rule target's last
definition (the schedule its plan was made of), which its timeline lane draws.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pytest_schedemu.dispatch.state import PlanProgress
from pytest_schedemu.model.resources import RetryPolicy, Schedule
from pytest_schedemu.model.rules import Rule, RuleTarget, RuleTargetSchedule
from pytest_schedemu.persistence.codec import (
    Row,
    dumps,
    instant,
    instant_text,
    schedule_definition,
    schedule_from,
)


def rule_definition(rule: Rule) -> str:
    return dumps(
        {
            "account_id": rule.account_id,
            "region": rule.region,
            "name": rule.name,
            "event_bus_name": rule.event_bus_name,
            "creation_date": instant_text(rule.creation_date),
            "activated_at": instant_text(rule.activated_at),
            "schedule_expression": rule.schedule_expression,
            "event_pattern": rule.event_pattern,
            "state": rule.state,
            "description": rule.description,
            "role_arn": rule.role_arn,
            "managed_by": rule.managed_by,
            "created_by": rule.created_by,
            "tags": [list(pair) for pair in rule.tags],
            "targets": [_target_data(target) for target in rule.targets],
        }
    )


def _target_data(target: RuleTarget) -> dict[str, Any]:
    policy = target.retry_policy
    return {
        "id": target.id,
        "arn": target.arn,
        "incarnation": target.incarnation,
        "raw": target.raw,
        "role_arn": target.role_arn,
        "input": target.input,
        "input_path": target.input_path,
        "input_transformer": target.input_transformer,
        "retry_policy": [policy.maximum_event_age_in_seconds, policy.maximum_retry_attempts],
        "dead_letter_config": target.dead_letter_config,
        "parameters": target.parameters,
    }


def rule_from(definition: str, incarnation: int) -> Rule:
    data = json.loads(definition)
    return Rule(
        account_id=data["account_id"],
        region=data["region"],
        name=data["name"],
        creation_date=instant(data["creation_date"]),
        activated_at=instant(data["activated_at"]),
        incarnation=incarnation,
        event_bus_name=data["event_bus_name"],
        schedule_expression=data["schedule_expression"],
        event_pattern=data["event_pattern"],
        state=data["state"],
        description=data["description"],
        role_arn=data["role_arn"],
        managed_by=data["managed_by"],
        created_by=data["created_by"],
        targets=tuple(_target_from(target) for target in data["targets"]),
        tags=tuple((key, value) for key, value in data["tags"]),
    )


def _target_from(data: dict[str, Any]) -> RuleTarget:
    age, retries = data["retry_policy"]
    return RuleTarget(
        id=data["id"],
        arn=data["arn"],
        raw=data["raw"],
        incarnation=data["incarnation"],
        role_arn=data["role_arn"],
        input=data["input"],
        input_path=data["input_path"],
        input_transformer=data["input_transformer"],
        retry_policy=RetryPolicy(age, retries),
        dead_letter_config=data["dead_letter_config"],
        parameters=data["parameters"],
    )


def rule_row(rule: Rule) -> Row:
    return (
        rule.account_id,
        rule.region,
        rule.event_bus_name,
        rule.name,
        rule.incarnation,
        rule_definition(rule),
    )


def plan_row(incarnation: int, rule: Rule, target_id: str, progress: PlanProgress) -> Row:
    """The ``rule_plans`` row of the live plan of a rule's target (``incarnation``)."""
    return (
        incarnation,
        rule.arn,
        target_id,
        instant_text(progress.defined_at),
        progress.last_dispatched,
        progress.fires,
    )


def plan_from(row: Row) -> tuple[int, PlanProgress]:
    """The target incarnation of a ``rule_plans`` row, and where its plan stood."""
    incarnation, _, _, defined_at, last_dispatched, fires = row
    return incarnation, PlanProgress(instant(defined_at), last_dispatched, fires)


def rule_target_definition(definition: RuleTargetSchedule) -> str:
    """A rule target's definition: the schedule its plan was made of, and whose it is."""
    return dumps(
        {
            "schedule": json.loads(schedule_definition(definition)),
            "incarnation": definition.incarnation,
            "rule_arn": definition.rule_arn,
            "rule_name": definition.rule_name,
            "target_id": definition.target_id,
        }
    )


def rule_target_from(text: str) -> RuleTargetSchedule:
    data = json.loads(text)
    schedule = schedule_from(dumps(data["schedule"]), data["incarnation"])
    fields = {field.name: getattr(schedule, field.name) for field in dataclasses.fields(Schedule)}
    return RuleTargetSchedule(
        **fields,
        rule_arn=data["rule_arn"],
        rule_name=data["rule_name"],
        target_id=data["target_id"],
    )
