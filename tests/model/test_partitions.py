"""Every partition: the ARNs the emulator makes come back through every operation, the
target and dead-letter ARNs of that partition are accepted, and deliveries name it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.model.partitions import (
    PARTITIONS,
    dns_suffix_for_partition,
    partition_for_region,
)
from tests.constants import ACCOUNT, START


@dataclass(frozen=True)
class Region:
    name: str
    partition: str
    dns_suffix: str

    def arn(self, service: str, resource: str, *, region: bool = True) -> str:
        where = self.name if region else ""
        return f"arn:{self.partition}:{service}:{where}:{ACCOUNT}:{resource}"


# One region of each partition botocore lists, with the suffix its endpoints use.
REGIONS = [
    Region("us-east-1", "aws", "amazonaws.com"),
    Region("cn-north-1", "aws-cn", "amazonaws.com.cn"),
    Region("us-gov-west-1", "aws-us-gov", "amazonaws.com"),
    Region("us-iso-east-1", "aws-iso", "c2s.ic.gov"),
    Region("us-isob-east-1", "aws-iso-b", "sc2s.sgov.gov"),
    Region("eu-isoe-west-1", "aws-iso-e", "cloud.adc-e.uk"),
    Region("us-isof-south-1", "aws-iso-f", "csp.hci.ic.gov"),
    Region("eusc-de-east-1", "aws-eusc", "amazonaws.eu"),
]
BY_PARTITION = pytest.mark.parametrize("region", REGIONS, ids=lambda r: r.partition)


def test_the_regions_above_cover_every_partition_known() -> None:
    assert {r.partition for r in REGIONS} == {p.name for p in PARTITIONS}


@BY_PARTITION
def test_a_region_belongs_to_its_partition(region: Region) -> None:
    assert partition_for_region(region.name) == region.partition
    assert dns_suffix_for_partition(region.partition) == region.dns_suffix


@pytest.mark.parametrize(
    ("name", "partition"),
    [("cn-south-9", "aws-cn"), ("us-gov-north-7", "aws-us-gov"), ("local", "aws")],
)
def test_a_region_not_listed_yet_goes_by_its_partition_pattern(name: str, partition: str) -> None:
    assert partition_for_region(name) == partition


@pytest.fixture
def emu() -> Any:
    with Emulator(start=START, transport="inprocess") as emulator:
        yield emulator


@BY_PARTITION
def test_group_arn_round_trips_through_tagging(emu: Emulator, region: Region) -> None:
    client = emu.client(region_name=region.name)
    group_arn = client.create_schedule_group(Name="g", Tags=[{"Key": "a", "Value": "1"}])[
        "ScheduleGroupArn"
    ]
    assert group_arn == region.arn("scheduler", "schedule-group/g")
    assert client.get_schedule_group(Name="g")["Arn"] == group_arn
    assert [g["Arn"] for g in client.list_schedule_groups(NamePrefix="g")["ScheduleGroups"]] == [
        group_arn
    ]
    client.tag_resource(ResourceArn=group_arn, Tags=[{"Key": "b", "Value": "2"}])
    client.untag_resource(ResourceArn=group_arn, TagKeys=["a"])
    assert client.list_tags_for_resource(ResourceArn=group_arn)["Tags"] == [
        {"Key": "b", "Value": "2"}
    ]
    client.delete_schedule_group(Name="g")


@BY_PARTITION
def test_schedule_with_arns_of_its_partition_round_trips(emu: Emulator, region: Region) -> None:
    client = emu.client(region_name=region.name)
    client.create_schedule_group(Name="g")
    target = {
        "Arn": region.arn("sqs", "queue"),
        "RoleArn": region.arn("iam", "role/scheduler", region=False),
        "DeadLetterConfig": {"Arn": region.arn("sqs", "dlq")},
    }
    kms = region.arn("kms", "key/1234abcd-12ab-34cd-56ef-1234567890ab")
    arn = client.create_schedule(
        Name="s1",
        GroupName="g",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target=target,
        KmsKeyArn=kms,
    )["ScheduleArn"]
    assert arn == region.arn("scheduler", "schedule/g/s1")

    got = client.get_schedule(Name="s1", GroupName="g")
    assert (got["Arn"], got["KmsKeyArn"], got["Target"]["RoleArn"]) == (
        arn,
        kms,
        target["RoleArn"],
    )
    assert got["Target"]["DeadLetterConfig"] == target["DeadLetterConfig"]
    updated = client.update_schedule(
        Name="s1",
        GroupName="g",
        ScheduleExpression="rate(2 hours)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target=target,
        KmsKeyArn=region.arn("kms", "alias/other"),
    )
    assert updated["ScheduleArn"] == arn
    listed = client.list_schedules(GroupName="g")["Schedules"]
    assert [(s["Arn"], s["Target"]["Arn"]) for s in listed] == [(arn, target["Arn"])]
    client.delete_schedule(Name="s1", GroupName="g")
    assert client.list_schedules(GroupName="g")["Schedules"] == []


@BY_PARTITION
def test_a_universal_target_of_the_partition_is_accepted(emu: Emulator, region: Region) -> None:
    client = emu.client(region_name=region.name)
    client.create_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={
            "Arn": f"arn:{region.partition}:scheduler:::aws-sdk:sqs:sendMessage",
            "RoleArn": region.arn("iam", "role/scheduler", region=False),
            "Input": "{}",
        },
    )
    emu.clock.advance(hours=1)
    assert [a.succeeded for a in emu.attempts()] == [True, True]


@BY_PARTITION
def test_deliveries_and_dead_letters_name_the_partition(emu: Emulator, region: Region) -> None:
    client = emu.client(region_name=region.name)
    queue, dlq = region.arn("sqs", "queue"), region.arn("sqs", "dlq")
    arn = client.create_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={
            "Arn": queue,
            "RoleArn": region.arn("iam", "role/scheduler", region=False),
            "DeadLetterConfig": {"Arn": dlq},
            "RetryPolicy": {"MaximumRetryAttempts": 0},
        },
    )["ScheduleArn"]
    emu.target(queue).fail(times=1)
    emu.clock.advance(hours=1)
    failed, delivered = emu.attempts()
    host = f"https://sqs.{region.name}.{region.dns_suffix}/{ACCOUNT}"
    assert failed.request["QueueUrl"] == f"{host}/queue"
    assert json.loads(delivered.request["MessageBody"])["resources"] == [arn]
    (letter,) = emu.dead_letters()
    assert (letter.queue_arn, letter.queue_url) == (dlq, f"{host}/dlq")
    assert letter.attributes["SCHEDULE_ARN"] == arn


def test_the_suites_network_guard_refuses_every_partitions_domain() -> None:
    from tests._network_guard import AWS_DOMAINS

    assert {partition.dns_suffix for partition in PARTITIONS} <= set(AWS_DOMAINS)
