"""An all-or-nothing batch of the command layer: a stack's groups, schedules and rules,
each checked as its own request is, then all of them against the state, stored all or none."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu.commands.batch import Batch, BatchRefused
from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.store import Store
from tests.constants import ACCOUNT

REGION = "eu-west-1"
QUEUE = f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"
CALL = Call(ACCOUNT, REGION, EPOCH)


def commands(**settings: object) -> Commands:
    store = Store(EPOCH, LiveSettings(Settings(**settings)))
    return Commands(store, store.settings)


def group(name: str) -> dict[str, Any]:
    return {"Name": name}


def schedule(group: str, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "Name": name,
        "GroupName": group,
        "ScheduleExpression": "rate(1 hour)",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {"Arn": QUEUE, "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/r"},
        **fields,
    }


def targets(count: int) -> list[dict[str, Any]]:
    return [{"Id": f"t{n}", "Arn": QUEUE} for n in range(count)]


def fill(
    batch: Batch,
    groups: list[str] = (),  # type: ignore[assignment]
    schedules: list[tuple[str, str]] = (),  # type: ignore[assignment]
    rules: list[tuple[str, int]] = (),  # type: ignore[assignment]
) -> Batch:
    """Add each resource, labelled by its kind and position among its kind."""
    for index, name in enumerate(groups):
        batch.group(group(name), ("group", index))
    for index, (in_group, name) in enumerate(schedules):
        batch.schedule(schedule(in_group, name), ("schedule", index))
    for index, (name, count) in enumerate(rules):
        rule = {"Name": name, "ScheduleExpression": "rate(1 hour)"}
        batch.rule(rule, lambda count=count: targets(count), ("rule", index))
    return batch


def test_groups_then_their_schedules_are_created() -> None:
    layer = commands()
    created = fill(layer.batch(CALL), ["g"], [("g", "a"), ("default", "b")]).apply()
    assert [(x.group_name, x.name) for x in created.schedules] == [("g", "a"), ("default", "b")]
    assert [x.incarnation for x in created.schedules] == [1, 2]
    assert [g.name for g in layer.store.all_groups()] == ["default", "g"]


@pytest.mark.parametrize(
    ("groups", "schedules", "label", "code", "message"),
    [
        (
            [],
            [("g", "a")],
            ("schedule", 0),
            "ResourceNotFoundException",
            "Schedule group g does not exist.",
        ),
        (
            ["g"],
            [("g", "a"), ("g", "a")],
            ("schedule", 1),
            "ConflictException",
            "Schedule a already exists.",
        ),
        (["g", "g"], [], ("group", 1), "ConflictException", "Schedule group g already exists."),
        (["default"], [], ("group", 0), "ValidationException", None),
    ],
)
def test_the_first_refused_is_named_by_its_label_and_nothing_is_created(
    groups: list[str],
    schedules: list[tuple[str, str]],
    label: tuple[str, int],
    code: str,
    message: str | None,
) -> None:
    layer = commands()
    layer.create_group(CALL, group("kept"))
    before = layer.store.snapshot()
    with pytest.raises(BatchRefused) as refused:
        fill(layer.batch(CALL), groups, schedules).apply()
    assert refused.value.label == label
    assert refused.value.error.code == code
    if message is not None:
        assert refused.value.error.message == message
    assert layer.store.snapshot() == before


def test_a_resource_its_own_request_would_refuse_is_refused_when_added() -> None:
    batch = commands().batch(CALL)
    with pytest.raises(ValidationException, match="must come before the EndDate"):
        batch.schedule(schedule("default", "a", StartDate=EPOCH, EndDate=EPOCH), "a")
    with pytest.raises(ValidationException, match="more than one target with the Id t0"):
        batch.rule({"Name": "r", "ScheduleExpression": "rate(1 hour)"}, lambda: targets(1) * 2, 1)


def test_the_quota_counts_the_batch_itself() -> None:
    layer = commands(max_schedules=2)
    with pytest.raises(BatchRefused) as refused:
        fill(layer.batch(CALL), schedules=[("default", n) for n in "abc"]).apply()
    assert refused.value.label == ("schedule", 2)
    assert refused.value.error.code == "ServiceQuotaExceededException"
    assert layer.store.all_schedules() == []


def test_rules_come_after_the_schedules_and_each_target_is_numbered() -> None:
    layer = commands()
    created = fill(layer.batch(CALL), schedules=[("default", "a")], rules=[("r", 2)]).apply()
    assert [x.incarnation for x in created.schedules] == [1]
    (made,) = created.rules
    assert (made.incarnation, [t.incarnation for t in made.targets]) == (2, [3, 4])
    assert layer.store.rules.all_rules() == [made]


@pytest.mark.parametrize(
    ("rules", "label", "code", "message"),
    [
        (
            [("r", 1), ("r", 1)],
            ("rule", 1),
            "ResourceAlreadyExistsException",
            "Rule r already exists on EventBus default.",
        ),
        ([("kept", 1)], ("rule", 0), "ResourceAlreadyExistsException", None),
        ([("r", 6)], ("rule", 0), "LimitExceededException", None),
    ],
)
def test_a_refused_rule_leaves_no_schedule_behind(
    rules: list[tuple[str, int]], label: tuple[str, int], code: str, message: str | None
) -> None:
    layer = commands()
    layer.put_rule(CALL, {"Name": "kept", "ScheduleExpression": "rate(1 hour)"})
    before = layer.store.snapshot()
    with pytest.raises(BatchRefused) as refused:
        fill(layer.batch(CALL), schedules=[("default", "a")], rules=rules).apply()
    assert (refused.value.label, refused.value.error.code) == (label, code)
    if message is not None:
        assert refused.value.error.message == message
    assert layer.store.snapshot() == before


def test_a_refused_schedule_leaves_no_rule_behind() -> None:
    layer = commands()
    with pytest.raises(BatchRefused) as refused:
        fill(layer.batch(CALL), schedules=[("missing", "a")], rules=[("r", 1)]).apply()
    assert refused.value.label == ("schedule", 0)
    assert layer.store.rules.all_rules() == []


def test_the_rule_quota_counts_the_batch_itself() -> None:
    layer = commands(max_rules=2)
    with pytest.raises(BatchRefused) as refused:
        fill(layer.batch(CALL), rules=[(n, 1) for n in "abc"]).apply()
    assert refused.value.label == ("rule", 2)
    assert refused.value.error.code == "LimitExceededException"
    assert layer.store.rules.all_rules() == []


def test_a_pattern_on_another_bus_is_checked_but_not_created() -> None:
    layer = commands()
    batch = layer.batch(CALL)
    pattern = {"Name": "p", "EventBusName": "orders", "EventPattern": '{"source": ["a"]}'}
    assert batch.rule(pattern, lambda: targets(1), "p") is False
    with pytest.raises(ValidationException, match="Provided Arn is not in correct format"):
        batch.rule(pattern, lambda: [{"Id": "t", "Arn": "not-an-arn"}], "p")
    assert batch.apply().rules == []
