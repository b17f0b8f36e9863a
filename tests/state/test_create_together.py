"""Creating a batch of groups, schedules and rules all or none (a stack's resources)."""

from __future__ import annotations

import pytest

from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.model.rules import Rule, RuleTarget
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.admission import CreationRefused
from pytest_schedemu.state.store import Store
from tests.constants import ACCOUNT
from tests.state.test_partition import REGION, group, schedule


def store(**settings: object) -> Store:
    return Store(EPOCH, LiveSettings(Settings(**settings)))


def test_groups_then_their_schedules_are_created() -> None:
    s = store()
    created, _ = s.create_together([group("g")], [schedule("g", "a"), schedule("default", "b")])
    assert [(x.group_name, x.name) for x in created] == [("g", "a"), ("default", "b")]
    assert [x.incarnation for x in created] == [1, 2]
    assert [g.name for g in s.all_groups()] == ["default", "g"]


@pytest.mark.parametrize(
    ("groups", "schedules", "position", "code", "message"),
    [
        (
            [],
            [schedule("g", "a")],
            0,
            "ResourceNotFoundException",
            "Schedule group g does not exist.",
        ),
        (
            [group("g")],
            [schedule("g", "a"), schedule("g", "a")],
            2,
            "ConflictException",
            "Schedule a already exists.",
        ),
        ([group("g"), group("g")], [], 1, "ConflictException", "Schedule group g already exists."),
        ([group("default")], [], 0, "ValidationException", None),
    ],
)
def test_the_first_refused_names_its_position_and_nothing_is_created(
    groups: list, schedules: list, position: int, code: str, message: str | None
) -> None:
    s = store()
    s.create_group(group("kept").account_id, group("kept").region, "kept", (), EPOCH)
    before = s.snapshot()
    with pytest.raises(CreationRefused) as refused:
        s.create_together(groups, schedules)
    assert refused.value.position == position
    assert refused.value.error.code == code
    if message is not None:
        assert refused.value.error.message == message
    assert s.snapshot() == before


def test_the_quota_counts_the_batch_itself() -> None:
    s = store(max_schedules=2)
    with pytest.raises(CreationRefused) as refused:
        s.create_together([], [schedule("default", n) for n in "abc"])
    assert refused.value.position == 2
    assert refused.value.error.code == "ServiceQuotaExceededException"
    assert s.all_schedules() == []


def rule(name: str, bus: str = "default", targets: int = 1) -> Rule:
    queue = "arn:aws:sqs:eu-west-1:123456789012:q"
    return Rule(
        ACCOUNT,
        REGION,
        name,
        EPOCH,
        EPOCH,
        0,
        event_bus_name=bus,
        schedule_expression="rate(1 hour)",
        targets=tuple(RuleTarget(f"t{n}", queue, {}) for n in range(targets)),
    )


def test_rules_come_after_the_schedules_and_each_target_is_numbered() -> None:
    s = store()
    created = s.create_together([], [schedule("default", "a")], [rule("r", targets=2)])
    assert [x.incarnation for x in created.schedules] == [1]
    (made,) = created.rules
    assert (made.incarnation, [t.incarnation for t in made.targets]) == (2, [3, 4])
    assert s.rules.all_rules() == [made]


@pytest.mark.parametrize(
    ("rules", "position", "code", "message"),
    [
        (
            [rule("r"), rule("r")],
            2,
            "ResourceAlreadyExistsException",
            "Rule r already exists on EventBus default.",
        ),
        ([rule("kept")], 1, "ResourceAlreadyExistsException", None),
        ([rule("r", targets=6)], 1, "LimitExceededException", None),
    ],
)
def test_a_refused_rule_leaves_no_schedule_behind(
    rules: list, position: int, code: str, message: str | None
) -> None:
    s = store()
    s.rules.put_rule(ACCOUNT, REGION, "kept", EPOCH, bus="default", state="ENABLED")
    before = s.snapshot()
    with pytest.raises(CreationRefused) as refused:
        s.create_together([], [schedule("default", "a")], rules)
    assert (refused.value.position, refused.value.error.code) == (position, code)
    if message is not None:
        assert refused.value.error.message == message
    assert s.snapshot() == before


def test_a_refused_schedule_leaves_no_rule_behind() -> None:
    s = store()
    with pytest.raises(CreationRefused) as refused:
        s.create_together([], [schedule("missing", "a")], [rule("r")])
    assert refused.value.position == 0
    assert s.rules.all_rules() == []


def test_the_rule_quota_counts_the_batch_itself() -> None:
    s = store(max_rules=2)
    with pytest.raises(CreationRefused) as refused:
        s.create_together([], [], [rule(n) for n in "abc"])
    assert (refused.value.position, refused.value.error.code) == (2, "LimitExceededException")
    assert s.rules.all_rules() == []
