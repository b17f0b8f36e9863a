"""EnableRule, DisableRule, DeleteRule and the tags of a rule; what the store is told."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.commands.rules import deletes_with_targets
from pytest_schedemu.model.rules import Rule
from tests.constants import ACCOUNT, T0
from tests.helpers import error_of
from tests.rules.rulebook import PATTERN, RULE_ARN, stored_rules, target


def test_disable_and_enable_a_rule(events: Any) -> None:
    events.put_rule(Name="r1", EventPattern=PATTERN)
    events.disable_rule(Name="r1")
    assert events.describe_rule(Name="r1")["State"] == "DISABLED"
    events.enable_rule(Name="r1")
    assert events.describe_rule(Name="r1")["State"] == "ENABLED"


def test_the_rate_count_restarts_when_a_rule_is_enabled_again(emu: Emulator, events: Any) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    emu.clock.advance(minutes=10)
    events.enable_rule(Name="r1")  # already enabled: its count goes on
    assert stored_rules(emu)[0].activated_at == T0
    events.disable_rule(Name="r1")
    emu.clock.advance(minutes=5)
    events.enable_rule(Name="r1")
    assert stored_rules(emu)[0].activated_at == T0 + timedelta(minutes=15)


@pytest.mark.parametrize("operation", ["enable_rule", "disable_rule"])
def test_enabling_or_disabling_a_missing_rule_fails(events: Any, operation: str) -> None:
    with pytest.raises(events.exceptions.ResourceNotFoundException) as excinfo:
        getattr(events, operation)(Name="nope")
    assert error_of(excinfo)["message"] == "Rule nope does not exist on EventBus default."


def test_delete_rule_removes_it_and_a_missing_one_is_no_error(events: Any) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.delete_rule(Name="r1")
    assert events.list_rules()["Rules"] == []
    # AWS: "If you call delete rule multiple times for the same rule, all calls will succeed."
    events.delete_rule(Name="r1")


@pytest.mark.parametrize("force", [{}, {"Force": True}, {"Force": False}])
def test_a_rule_with_targets_is_deleted_only_once_they_are_removed(
    events: Any, force: dict[str, bool]
) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r1", Targets=[target()])
    # AWS's API reference: Force "is ignored for rules that are not managed rules".
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.delete_rule(Name="r1", **force)
    assert error_of(excinfo) == {
        "code": "ValidationException",
        "message": "Rule can't be deleted since it has targets.",
        "status": 400,
    }
    assert [rule["Name"] for rule in events.list_rules()["Rules"]] == ["r1"]
    assert len(events.list_targets_by_rule(Rule="r1")["Targets"]) == 1
    events.remove_targets(Rule="r1", Ids=[target()["Id"]])
    events.delete_rule(Name="r1", **force)
    assert events.list_rules()["Rules"] == []


def test_force_takes_the_targets_only_of_a_managed_rule() -> None:
    ordinary = Rule(
        account_id=ACCOUNT,
        region="us-east-1",
        name="r1",
        creation_date=T0,
        activated_at=T0,
        incarnation=1,
        schedule_expression="rate(1 hour)",
    )
    managed = dataclasses.replace(ordinary, managed_by="aws.partner")
    assert not deletes_with_targets(ordinary, force=True)
    assert deletes_with_targets(managed, force=True)
    assert not deletes_with_targets(managed, force=False)


def test_deleting_on_a_bus_the_emulator_does_not_have_is_not_found(events: Any) -> None:
    with pytest.raises(events.exceptions.ResourceNotFoundException) as excinfo:
        events.delete_rule(Name="r1", EventBusName="orders")
    assert error_of(excinfo)["message"] == "Event bus orders does not exist."


def test_the_store_is_told_of_each_change_to_a_rule(emu: Emulator, events: Any) -> None:
    heard: list[tuple[str, str, int]] = []
    planner = emu.debug.store_observer

    class Listening:
        def __getattr__(self, name: str) -> Any:
            return getattr(planner, name)

        def rule_saved(self, rule: Rule, previous: Rule | None) -> None:
            heard.append(("saved", rule.state, len(rule.targets)))
            planner.rule_saved(rule, previous)  # type: ignore[union-attr]

        def rule_removed(self, rule: Rule, reason: str) -> None:
            heard.append(("removed", reason, len(rule.targets)))
            planner.rule_removed(rule, reason)  # type: ignore[union-attr]

    emu.debug.store_observer = Listening()  # type: ignore[assignment]
    try:
        events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="r1", Targets=[target()])
        events.disable_rule(Name="r1")
        events.remove_targets(Rule="r1", Ids=["t1"])
        events.tag_resource(ResourceARN=RULE_ARN, Tags=[{"Key": "k", "Value": "v"}])
        events.delete_rule(Name="r1")
        # Refused requests tell nothing.
        with pytest.raises(events.exceptions.ClientError):
            events.put_rule(Name="r2", ScheduleExpression="rate(1 minutes)")
        with pytest.raises(events.exceptions.ClientError):
            events.put_targets(Rule="nope", Targets=[target()])
    finally:
        emu.debug.store_observer = planner
    assert heard == [
        ("saved", "ENABLED", 0),
        ("saved", "ENABLED", 1),
        ("saved", "DISABLED", 1),
        ("saved", "DISABLED", 0),
        ("removed", "deleted", 0),
    ]


# -- tags ------------------------------------------------------------------------------------


def test_tag_list_and_untag_a_rule(events: Any) -> None:
    events.put_rule(
        Name="r1", ScheduleExpression="rate(1 hour)", Tags=[{"Key": "tag1", "Value": "value1"}]
    )
    events.tag_resource(ResourceARN=RULE_ARN, Tags=[{"Key": "tag2", "Value": "value2"}])
    assert events.list_tags_for_resource(ResourceARN=RULE_ARN)["Tags"] == [
        {"Key": "tag1", "Value": "value1"},
        {"Key": "tag2", "Value": "value2"},
    ]
    events.untag_resource(ResourceARN=RULE_ARN, TagKeys=["tag2", "never-there"])
    assert events.list_tags_for_resource(ResourceARN=RULE_ARN)["Tags"] == [
        {"Key": "tag1", "Value": "value1"}
    ]


def test_a_rule_made_again_has_none_of_its_old_tags(events: Any) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)", Tags=[{"Key": "k", "Value": "v"}])
    events.delete_rule(Name="r1")
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    assert events.list_tags_for_resource(ResourceARN=RULE_ARN)["Tags"] == []


@pytest.mark.parametrize(
    ("arn", "code", "message"),
    [
        (RULE_ARN, "ResourceNotFoundException", "Rule r1 does not exist on EventBus default."),
        (
            "arn:aws:events:eu-west-1:123456789012:rule/r1",
            "ResourceNotFoundException",
            "Rule r1 does not exist on EventBus default.",
        ),
        (
            f"arn:aws:events:us-east-1:{ACCOUNT}:rule/orders/r1",
            "ResourceNotFoundException",
            "Event bus orders does not exist.",
        ),
        (
            f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/orders",
            "ResourceNotFoundException",
            "Event bus orders does not exist.",
        ),
        (
            f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default",
            "ValidationException",
            "The emulator keeps the tags of EventBridge rules only, not of the event bus "
            f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default.",
        ),
        (
            "arn:aws:sqs:us-east-1:123456789012:queue",
            "ValidationException",
            "Invalid ResourceARN arn:aws:sqs:us-east-1:123456789012:queue: the emulator tags "
            "EventBridge rules, arn:aws:events:<region>:<account>:rule/[<event bus>/]<rule name>.",
        ),
    ],
)
def test_tags_of_what_is_not_a_rule_here(events: Any, arn: str, code: str, message: str) -> None:
    for call in (
        lambda: events.list_tags_for_resource(ResourceARN=arn),
        lambda: events.tag_resource(ResourceARN=arn, Tags=[{"Key": "k", "Value": "v"}]),
        lambda: events.untag_resource(ResourceARN=arn, TagKeys=["k"]),
    ):
        with pytest.raises(events.exceptions.ClientError) as excinfo:
            call()
        assert error_of(excinfo) == {"code": code, "message": message, "status": 400}
