"""Scheduler ARNs are read and written in one place: every partition round-trips, anything
malformed is refused with the value shown, and one filter decides which schedules a query
names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_schedemu.model.arns import (
    GroupArn,
    ScheduleArn,
    ScheduleFilter,
    schedule_arn,
    schedule_group_arn,
    scheduler_arn,
)
from tests.constants import ACCOUNT

PARTITIONS = (
    "aws",
    "aws-cn",
    "aws-us-gov",
    "aws-iso",
    "aws-iso-b",
    "aws-iso-e",
    "aws-iso-f",
    "aws-eusc",
)
ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule/billing/nightly"
GROUP_ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/billing"


@pytest.mark.parametrize("partition", PARTITIONS)
def test_a_schedule_arn_round_trips_in_every_partition(partition: str) -> None:
    text = f"arn:{partition}:scheduler:eu-west-1:{ACCOUNT}:schedule/g-1/my.schedule_2"
    parts = ScheduleArn.parse(text)
    assert parts == ScheduleArn(partition, "eu-west-1", ACCOUNT, "g-1", "my.schedule_2")
    assert parts.format() == text


@pytest.mark.parametrize("partition", PARTITIONS)
def test_a_group_arn_round_trips_in_every_partition(partition: str) -> None:
    text = f"arn:{partition}:scheduler:eu-west-1:{ACCOUNT}:schedule-group/g-1"
    parts = GroupArn.parse(text)
    assert parts == GroupArn(partition, "eu-west-1", ACCOUNT, "g-1")
    assert parts.format() == text


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_NAMES = st.text(_LETTERS + _LETTERS.upper() + "0123456789_.-", min_size=1, max_size=64)
_REGIONS = st.text(_LETTERS + "0123456789-", min_size=1, max_size=20)
_ACCOUNTS = st.text("0123456789", min_size=12, max_size=12)


@given(
    partition=st.sampled_from(PARTITIONS),
    region=_REGIONS,
    account=_ACCOUNTS,
    group=_NAMES,
    name=_NAMES,
)
def test_every_schedule_arn_written_reads_back_as_its_parts(
    partition: str, region: str, account: str, group: str, name: str
) -> None:
    parts = ScheduleArn(partition, region, account, group, name)
    assert scheduler_arn(parts.format()) == parts
    assert scheduler_arn(parts.group_arn.format()) == parts.group_arn


@pytest.mark.parametrize(
    ("region", "partition"),
    [("us-east-1", "aws"), ("cn-north-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov")],
)
def test_the_emulators_arns_are_in_their_regions_partition(region: str, partition: str) -> None:
    written = schedule_arn(region, ACCOUNT, "g", "s")
    assert ScheduleArn.parse(written) == ScheduleArn(partition, region, ACCOUNT, "g", "s")
    group = schedule_group_arn(region, ACCOUNT, "g")
    assert GroupArn.parse(group) == ScheduleArn.parse(written).group_arn


MALFORMED = [
    "",
    "nightly",
    "arn:aws:scheduler:us-east-1:123456789012:schedule/billing",
    "arn:aws:scheduler:us-east-1:123456789012:schedule/billing/nightly/extra",
    "arn:aws:scheduler:us-east-1:123456789012:schedule//nightly",
    "arn:aws:scheduler:us-east-1:123456789012:schedule/billing/",
    "arn:aws:scheduler:us-east-1:12345678901:schedule/billing/nightly",
    "arn:aws:scheduler:us-east-1::schedule/billing/nightly",
    "arn:aws:scheduler::123456789012:schedule/billing/nightly",
    "arn:aws:events:us-east-1:123456789012:schedule/billing/nightly",
    "arn:azure:scheduler:us-east-1:123456789012:schedule/billing/nightly",
    "arn:AWS:scheduler:us-east-1:123456789012:schedule/billing/nightly",
    "arn:aws:scheduler:us-east-1:123456789012:schedule/bill ing/nightly",
    "arn:aws:scheduler:us-east-1:123456789012:schedule/billing/nightly\n",
    "arn:aws:scheduler:us:east:123456789012:schedule/billing/nightly",
    "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
    "arn:aws:scheduler:us-east-1:123456789012:schedule-group/",
    "arn:aws:scheduler:us-east-1:123456789012:schedule-group/billing/nightly",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_anything_else_is_refused_showing_the_value(text: str) -> None:
    assert scheduler_arn(text) is None
    with pytest.raises(ValueError, match="Not a schedule ARN") as refused:
        ScheduleArn.parse(text)
    assert repr(text) in str(refused.value)
    with pytest.raises(ValueError, match="Not a schedule group ARN"):
        GroupArn.parse(text)


def test_a_group_arn_is_not_a_schedule_arn_nor_the_other_way_round() -> None:
    with pytest.raises(ValueError, match=r"expected arn:<partition>:scheduler:.*schedule/"):
        ScheduleArn.parse(GROUP_ARN)
    with pytest.raises(ValueError, match=r"expected arn:<partition>:scheduler:.*schedule-group/"):
        GroupArn.parse(ARN)


OTHER_GROUP = "arn:aws:scheduler:us-east-1:123456789012:schedule/payroll/nightly"
OTHER_NAME = "arn:aws:scheduler:us-east-1:123456789012:schedule/billing/weekly"


@pytest.mark.parametrize(
    ("schedule", "group", "matching"),
    [
        (None, None, {ARN, OTHER_GROUP, OTHER_NAME}),
        ("nightly", None, {ARN, OTHER_GROUP}),
        ("nightly", "billing", {ARN}),
        (None, "billing", {ARN, OTHER_NAME}),
        (ARN, None, {ARN}),
        # An ARN names one schedule already: the group is not consulted.
        (ARN, "payroll", {ARN}),
        ("missing", None, set()),
    ],
)
def test_a_filter_names_schedules_by_name_group_or_arn(
    schedule: str | None, group: str | None, matching: set[str]
) -> None:
    named = ScheduleFilter(schedule, group)
    arns = (ARN, OTHER_GROUP, OTHER_NAME)
    assert {arn for arn in arns if named.matches_arn(arn)} == matching
    parts = {arn: ScheduleArn.parse(arn) for arn in arns}
    by_parts = {arn for arn, p in parts.items() if named.matches(arn, p.group, p.name)}
    assert by_parts == matching


@pytest.mark.parametrize(
    ("schedule", "group", "kept"),
    [
        (None, None, True),
        (None, "billing", True),
        (None, "payroll", False),
        ("nightly", None, False),
    ],
)
def test_a_groups_arn_belongs_to_its_schedules_while_no_single_one_is_named(
    schedule: str | None, group: str | None, kept: bool
) -> None:
    assert ScheduleFilter(schedule, group).matches_arn(GROUP_ARN) is kept


def test_other_text_matches_only_a_filter_that_names_nothing() -> None:
    assert ScheduleFilter().matches_arn("arn:aws:sqs:us-east-1:123456789012:q")
    assert not ScheduleFilter(group="billing").matches_arn("arn:aws:sqs:us-east-1:123456789012:q")
