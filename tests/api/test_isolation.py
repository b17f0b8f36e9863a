"""State is partitioned by account (access key id) and region (credential scope)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import ROLE
from tests.helpers import schedule_args


def test_regions_are_isolated(emu: Emulator, plain_client: Any) -> None:
    east = plain_client(emu, "testing", region="us-east-1")
    west = plain_client(emu, "testing", region="us-west-2")
    east.create_schedule_group(Name="g")
    with pytest.raises(west.exceptions.ResourceNotFoundException):
        west.get_schedule_group(Name="g")
    arn = west.create_schedule_group(Name="g")["ScheduleGroupArn"]
    assert arn == "arn:aws:scheduler:us-west-2:123456789012:schedule-group/g"


def test_twelve_digit_access_key_names_the_account(emu: Emulator, plain_client: Any) -> None:
    other = plain_client(emu, "111122223333", region="us-east-1")
    arn = other.create_schedule_group(Name="g")["ScheduleGroupArn"]
    assert arn == "arn:aws:scheduler:us-east-1:111122223333:schedule-group/g"
    with pytest.raises(other.exceptions.ResourceNotFoundException):
        plain_client(emu, "AKIAEXAMPLE", region="us-east-1").get_schedule_group(Name="g")


def test_other_access_keys_map_to_the_default_account(emu: Emulator, plain_client: Any) -> None:
    plain_client(emu, "AKIAONE", region="us-east-1").create_schedule_group(Name="g")
    assert (
        plain_client(emu, "AKIATWO", region="us-east-1").get_schedule_group(Name="g")["Name"] == "g"
    )


def test_china_region_uses_its_partition(emu: Emulator, plain_client: Any) -> None:
    client = plain_client(emu, "testing", region="cn-north-1")
    arn = client.create_schedule(
        **schedule_args(Target={"Arn": "arn:aws-cn:sqs:cn-north-1:123456789012:q", "RoleArn": ROLE})
    )["ScheduleArn"]
    assert arn == "arn:aws-cn:scheduler:cn-north-1:123456789012:schedule/default/s1"


def test_request_without_authorization_uses_the_emulator_defaults(raw: Any) -> None:
    response = raw("POST", "/schedule-groups/g", body={})
    assert response.json["ScheduleGroupArn"] == (
        "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g"
    )
