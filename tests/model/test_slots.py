"""Stored records keep no instance dictionary, and still behave as frozen dataclasses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from datetime import datetime, timezone

import pytest

from pytest_schedemu.model.resources import (
    FlexibleTimeWindow,
    RetryPolicy,
    Schedule,
    ScheduleGroup,
    Target,
)
from pytest_schedemu.model.rules import RuleTargetSchedule

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


def schedule(**changes: object) -> Schedule:
    made = Schedule(
        account_id="123456789012",
        region="us-east-1",
        group_name="default",
        name="s1",
        schedule_expression="cron(0 9 * * ? *)",
        flexible_time_window=FlexibleTimeWindow(),
        target=Target("arn:aws:sqs:us-east-1:123456789012:q", "arn:aws:iam::1:role/r", "{}"),
        creation_date=NOW,
        last_modification_date=NOW,
        incarnation=1,
    )
    return dataclasses.replace(made, **changes)


@pytest.mark.parametrize(
    "record",
    [
        schedule(),
        schedule().target,
        RetryPolicy(),
        FlexibleTimeWindow("FLEXIBLE", 5),
        ScheduleGroup("123456789012", "us-east-1", "g", NOW, NOW),
    ],
    ids=type,
)
def test_a_record_has_no_instance_dictionary_and_stays_frozen(record: object) -> None:
    assert not hasattr(record, "__dict__")
    first = dataclasses.fields(record)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, first, "other")
    assert copy.deepcopy(record) == record
    assert pickle.loads(pickle.dumps(record)) == record


def test_a_replaced_schedule_keeps_the_fields_it_was_not_given() -> None:
    updated = dataclasses.replace(schedule(description="d"), state="DISABLED")
    assert (updated.description, updated.state, updated.name) == ("d", "DISABLED", "s1")
    assert updated.arn == "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"


def test_a_rule_target_schedule_adds_its_fields_without_a_dictionary() -> None:
    base = dataclasses.asdict(schedule())
    base["target"] = schedule().target
    base["flexible_time_window"] = FlexibleTimeWindow()
    made = RuleTargetSchedule(**base, rule_arn="arn:r", rule_name="r", target_id="t")
    assert not hasattr(made, "__dict__")
    assert made.of_rule == ("arn:r", "r")
    assert copy.copy(made) == made
