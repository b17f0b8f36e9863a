"""The store of EventBridge rules: what it keeps, what it refuses, what it tells."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu.errors import ApiError, LimitExceededException, ResourceNotFoundException
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule, RuleTarget
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.store import Store
from tests.state.test_partition import schedule

ACCOUNT, REGION = "123456789012", "us-east-1"


class Told:
    """An observer that writes down what the store tells it."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, Any, Any]] = []

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None:
        self.heard.append(("schedule_saved", schedule.name, previous))

    def schedule_removed(self, schedule: Schedule, reason: str) -> None:
        self.heard.append(("schedule_removed", schedule.name, reason))

    def group_removal_scheduled(self, group: ScheduleGroup, due: Any) -> None:
        self.heard.append(("group_removal", group.name, due))

    def rule_saved(self, rule: Rule, previous: Rule | None) -> None:
        self.heard.append(("rule_saved", rule, previous))

    def rule_removed(self, rule: Rule, reason: str) -> None:
        self.heard.append(("rule_removed", rule, reason))


def store(**settings: object) -> tuple[Store, Told]:
    s = Store(EPOCH, LiveSettings(Settings(**settings)))
    told = Told()
    s.observer = told
    return s, told


def put(s: Store, name: str, at: int = 0, **fields: Any) -> Rule:
    """PutRule's change, as the command layer hands it to the store."""
    fields.setdefault("event_bus_name", fields.pop("bus", "default"))
    fields.setdefault("schedule_expression", "rate(5 minutes)")
    fields["tags"] = tuple(fields.pop("tags", {}).items())
    now = EPOCH + timedelta(seconds=at)
    return s.rules.put_rule(Rule(ACCOUNT, REGION, name, now, now, 0, **fields))


def target(target_id: str, arn: str = "arn:aws:sqs:us-east-1:123456789012:q") -> RuleTarget:
    return RuleTarget(id=target_id, arn=arn, raw={"Id": target_id, "Arn": arn})


def test_a_rule_is_stored_with_its_arn_and_the_observer_hears_of_it() -> None:
    s, told = store()
    rule = put(s, "nightly", at=90)
    assert rule.arn == "arn:aws:events:us-east-1:123456789012:rule/nightly"
    assert rule.activated_at == rule.creation_date == EPOCH + timedelta(seconds=90)
    assert s.rules.get_rule(ACCOUNT, REGION, "default", "nightly") == rule
    assert told.heard == [("rule_saved", rule, None)]


def test_rules_and_schedules_share_the_incarnation_counter() -> None:
    s, _ = store()
    first = s.create_schedule(schedule("default", "a"))
    rule = put(s, "r")
    assert (first.incarnation, rule.incarnation) == (1, 2)


def test_a_rule_on_another_bus_has_the_bus_in_its_arn() -> None:
    s, _ = store()
    rule = put(s, "r", bus="orders", schedule_expression=None, event_pattern="{}")
    assert rule.arn.endswith(":rule/orders/r")
    assert s.rules.find_rule(ACCOUNT, REGION, "default", "r") is None


def test_putting_a_rule_again_keeps_its_targets_tags_and_rate_count() -> None:
    s, _ = store()
    put(s, "r", tags={"team": "a"})
    s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("t1")])
    again = put(s, "r", at=600, description="changed")
    assert [t.id for t in again.targets] == ["t1"]
    assert again.tags == (("team", "a"),)
    assert again.activated_at == EPOCH
    assert again.description == "changed"


def test_a_new_expression_or_re_enabling_restarts_the_rate_count() -> None:
    s, _ = store()
    put(s, "r")
    changed = put(s, "r", at=120, schedule_expression="rate(7 minutes)")
    assert changed.activated_at == EPOCH + timedelta(seconds=120)
    disabled = s.rules.set_state(
        ACCOUNT, REGION, "default", "r", "DISABLED", EPOCH + timedelta(300)
    )
    assert disabled.activated_at == changed.activated_at and not disabled.fires
    enabled = s.rules.set_state(
        ACCOUNT, REGION, "default", "r", "ENABLED", EPOCH + timedelta(seconds=900.5)
    )
    assert enabled.activated_at == EPOCH + timedelta(seconds=900)
    assert enabled.fires


def test_targets_replace_by_id_and_a_rule_has_at_most_five() -> None:
    s, told = store()
    put(s, "r")
    s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target(str(i)) for i in range(4)])
    replaced = s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("0", "arn:x")])
    assert [(t.id, t.arn) for t in replaced.targets][-1] == ("0", "arn:x")
    before = len(told.heard)
    with pytest.raises(LimitExceededException):
        s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("4"), target("5")])
    assert len(told.heard) == before  # refused whole: nothing changed, nobody told
    assert len(s.rules.get_rule(ACCOUNT, REGION, "default", "r").targets) == 4


def test_removing_targets_reports_the_ids_it_did_not_have() -> None:
    s, _ = store()
    put(s, "r")
    s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("a"), target("b")])
    rule, missing = s.rules.remove_targets(ACCOUNT, REGION, "default", "r", ["a", "zz"])
    assert [t.id for t in rule.targets] == ["b"]
    assert missing == ["zz"]


def test_a_rule_with_targets_is_deleted_only_with_force() -> None:
    s, told = store()
    put(s, "r")
    s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("a")])
    with pytest.raises(ApiError, match=r"Rule can't be deleted since it has targets\."):
        s.rules.delete_rule(ACCOUNT, REGION, "default", "r")
    removed = s.rules.delete_rule(ACCOUNT, REGION, "default", "r", force=True)
    assert removed is not None and told.heard[-1] == ("rule_removed", removed, "deleted")
    assert s.rules.delete_rule(ACCOUNT, REGION, "default", "r") is None
    with pytest.raises(
        ResourceNotFoundException, match=r"Rule r does not exist on EventBus default\."
    ):
        s.rules.get_rule(ACCOUNT, REGION, "default", "r")


def test_the_number_of_rules_per_bus_is_bounded_by_a_setting() -> None:
    s, _ = store(max_rules=2)
    put(s, "a")
    put(s, "b")
    put(s, "a", description="an update is not a new rule")
    with pytest.raises(LimitExceededException):
        put(s, "c")
    assert [r.name for r in s.rules.list_rules(ACCOUNT, REGION, "default")] == ["a", "b"]


def test_listing_by_prefix_and_by_target() -> None:
    s, _ = store()
    for name in ("b-1", "a-1", "a-2"):
        put(s, name)
    s.rules.put_targets(ACCOUNT, REGION, "default", "a-2", [target("t", "arn:q")])
    s.rules.put_targets(ACCOUNT, REGION, "default", "b-1", [target("t", "arn:q")])
    assert [r.name for r in s.rules.list_rules(ACCOUNT, REGION, "default", "a-")] == ["a-1", "a-2"]
    assert s.rules.rule_names_by_target(ACCOUNT, REGION, "default", "arn:q") == ["a-2", "b-1"]


def test_tags_change_without_re_planning() -> None:
    s, told = store()
    put(s, "r")
    heard = len(told.heard)
    s.rules.tag_rule(ACCOUNT, REGION, "default", "r", {"k": "v", "x": "y"})
    rule = s.rules.untag_rule(ACCOUNT, REGION, "default", "r", ["x"])
    assert rule.tags == (("k", "v"),)
    assert len(told.heard) == heard


def test_a_reset_forgets_rules_and_the_snapshot_sees_them() -> None:
    s, _ = store()
    empty = s.snapshot()
    put(s, "r")
    assert s.snapshot() != empty
    s.reset(EPOCH)
    assert s.rules.all_rules() == [] and s.snapshot() == empty


def test_each_target_has_an_incarnation_of_its_own_kept_when_it_is_replaced() -> None:
    s, _ = store()
    rule = put(s, "r")
    first = s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("a"), target("b")])
    assert [t.incarnation for t in first.targets] == [rule.incarnation + 1, rule.incarnation + 2]
    again = s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("a", "arn:other")])
    assert {t.id: t.incarnation for t in again.targets} == {
        "a": rule.incarnation + 1,
        "b": rule.incarnation + 2,
    }
    s.rules.remove_targets(ACCOUNT, REGION, "default", "r", ["a"])
    back = s.rules.put_targets(ACCOUNT, REGION, "default", "r", [target("a")])
    assert back.target("a") is not None and back.target("a").incarnation == rule.incarnation + 3
