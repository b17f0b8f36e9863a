"""State is partitioned by account (access key id) and region (credential scope)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from pytest_schedemu import Emulator

from .conftest import ROLE, schedule_args


def client_for(emu: Emulator, region: str, access_key: str) -> Any:
    return boto3.client(
        "scheduler",
        endpoint_url=emu.endpoint_url,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key="secret",
    )


def test_regions_are_isolated(emu: Emulator) -> None:
    east = client_for(emu, "us-east-1", "testing")
    west = client_for(emu, "us-west-2", "testing")
    east.create_schedule_group(Name="g")
    with pytest.raises(west.exceptions.ResourceNotFoundException):
        west.get_schedule_group(Name="g")
    arn = west.create_schedule_group(Name="g")["ScheduleGroupArn"]
    assert arn == "arn:aws:scheduler:us-west-2:123456789012:schedule-group/g"


def test_twelve_digit_access_key_names_the_account(emu: Emulator) -> None:
    other = client_for(emu, "us-east-1", "111122223333")
    arn = other.create_schedule_group(Name="g")["ScheduleGroupArn"]
    assert arn == "arn:aws:scheduler:us-east-1:111122223333:schedule-group/g"
    with pytest.raises(other.exceptions.ResourceNotFoundException):
        client_for(emu, "us-east-1", "AKIAEXAMPLE").get_schedule_group(Name="g")


def test_other_access_keys_map_to_the_default_account(emu: Emulator) -> None:
    client_for(emu, "us-east-1", "AKIAONE").create_schedule_group(Name="g")
    assert client_for(emu, "us-east-1", "AKIATWO").get_schedule_group(Name="g")["Name"] == "g"


def test_china_region_uses_its_partition(emu: Emulator) -> None:
    client = client_for(emu, "cn-north-1", "testing")
    arn = client.create_schedule(
        **schedule_args(Target={"Arn": "arn:aws-cn:sqs:cn-north-1:123456789012:q", "RoleArn": ROLE})
    )["ScheduleArn"]
    assert arn == "arn:aws-cn:scheduler:cn-north-1:123456789012:schedule/default/s1"


def test_request_without_authorization_uses_the_emulator_defaults(raw: Any) -> None:
    response = raw("POST", "/schedule-groups/g", body={})
    assert response.json["ScheduleGroupArn"] == (
        "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g"
    )
