"""Schedule groups: the default group, creation, deletion and its cascade, listing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import START, T0
from tests.helpers import error_of, schedule_args

GROUP_ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/"


def test_default_group_always_exists_and_is_dated_at_the_reset(emu: Emulator, client: Any) -> None:
    emu.clock.advance(hours=1)
    got = client.get_schedule_group(Name="default")
    assert got["Arn"] == GROUP_ARN + "default"
    assert got["State"] == "ACTIVE"
    assert got["CreationDate"] == T0
    assert got["LastModificationDate"] == T0


@pytest.mark.parametrize("call", ["create", "delete"])
def test_default_group_cannot_be_created_or_deleted(client: Any, call: str) -> None:
    method = getattr(client, f"{call}_schedule_group")
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        method(Name="default")
    assert error_of(excinfo)["message"] == (
        "This operation cannot be performed on schedule group default."
    )
    assert client.get_schedule_group(Name="default")["State"] == "ACTIVE"


def test_create_and_get_a_group(emu: Emulator, client: Any) -> None:
    emu.clock.advance(seconds=1.5)
    assert client.create_schedule_group(Name="g")["ScheduleGroupArn"] == GROUP_ARN + "g"
    got = client.get_schedule_group(Name="g")
    assert {k: v for k, v in got.items() if k != "ResponseMetadata"} == {
        "Arn": GROUP_ARN + "g",
        "Name": "g",
        "State": "ACTIVE",
        "CreationDate": T0 + timedelta(seconds=1.5),
        "LastModificationDate": T0 + timedelta(seconds=1.5),
    }


def test_duplicate_group_is_a_conflict_and_keeps_its_schedules(client: Any) -> None:
    client.create_schedule_group(Name="g")
    client.create_schedule(**schedule_args(GroupName="g"))
    with pytest.raises(client.exceptions.ConflictException) as excinfo:
        client.create_schedule_group(Name="g")
    assert error_of(excinfo) == {
        "code": "ConflictException",
        "status": 409,
        "message": "Schedule group g already exists.",
    }
    assert client.get_schedule(Name="s1", GroupName="g")["GroupName"] == "g"


def test_get_missing_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.get_schedule_group(Name="nope")
    assert error_of(excinfo)["message"] == "Schedule group nope does not exist."


def test_delete_missing_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.delete_schedule_group(Name="nope")
    assert error_of(excinfo)["message"] == "Schedule group nope does not exist."


def test_delete_group_removes_its_schedules_and_tags(client: Any) -> None:
    client.create_schedule_group(Name="g", Tags=[{"Key": "team", "Value": "a"}])
    client.create_schedule(**schedule_args(GroupName="g"))
    client.create_schedule(**schedule_args("other"))
    client.delete_schedule_group(Name="g")
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule_group(Name="g")
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1", GroupName="g")
    assert [s["Name"] for s in client.list_schedules()["Schedules"]] == ["other"]
    client.create_schedule_group(Name="g")
    assert client.list_tags_for_resource(ResourceArn=GROUP_ARN + "g")["Tags"] == []


def test_delayed_group_deletion_shows_deleting() -> None:
    with Emulator(start=START, group_deletion_delay=60) as emu:
        client = emu.client()
        client.create_schedule_group(Name="g")
        client.create_schedule(**schedule_args(GroupName="g"))
        emu.clock.advance(seconds=5)
        client.delete_schedule_group(Name="g")
        got = client.get_schedule_group(Name="g")
        assert got["State"] == "DELETING"
        assert got["LastModificationDate"] == T0 + timedelta(seconds=5)
        listed = client.list_schedule_groups()["ScheduleGroups"]
        assert [g["State"] for g in listed if g["Name"] == "g"] == ["DELETING"]
        # Its schedules stay readable; nothing new may go in.
        assert client.get_schedule(Name="s1", GroupName="g")["Name"] == "s1"
        with pytest.raises(client.exceptions.ConflictException) as excinfo:
            client.create_schedule(**schedule_args("s2", GroupName="g"))
        assert error_of(excinfo)["message"] == "Schedule group g is being deleted."
        with pytest.raises(client.exceptions.ConflictException):
            client.update_schedule(**schedule_args(GroupName="g"))
        with pytest.raises(client.exceptions.ConflictException):
            client.tag_resource(ResourceArn=GROUP_ARN + "g", Tags=[{"Key": "k", "Value": "v"}])
        with pytest.raises(client.exceptions.ConflictException) as excinfo:
            client.create_schedule_group(Name="g")
        assert error_of(excinfo)["message"] == "Schedule group g already exists."
        # Deleting again changes nothing; deleting a schedule in it is allowed.
        client.delete_schedule_group(Name="g")
        client.delete_schedule(Name="s1", GroupName="g")


def test_list_groups_includes_default_in_name_order(client: Any) -> None:
    for name in ["b", "a", "Z"]:
        client.create_schedule_group(Name=name)
    names = [g["Name"] for g in client.list_schedule_groups()["ScheduleGroups"]]
    assert names == ["Z", "a", "b", "default"]


def test_list_groups_summary_members(client: Any) -> None:
    groups = client.list_schedule_groups()["ScheduleGroups"]
    assert groups == [
        {
            "Arn": GROUP_ARN + "default",
            "CreationDate": T0,
            "LastModificationDate": T0,
            "Name": "default",
            "State": "ACTIVE",
        }
    ]


def test_list_groups_name_prefix(client: Any) -> None:
    for name in ["team-a", "team-b", "other"]:
        client.create_schedule_group(Name=name)
    names = [g["Name"] for g in client.list_schedule_groups(NamePrefix="team")["ScheduleGroups"]]
    assert names == ["team-a", "team-b"]
    assert client.list_schedule_groups(NamePrefix="def")["ScheduleGroups"][0]["Name"] == "default"


def test_group_quota_counts_the_default_group() -> None:
    with Emulator(max_schedule_groups=2) as emu:
        client = emu.client()
        client.create_schedule_group(Name="g1")
        with pytest.raises(client.exceptions.ServiceQuotaExceededException) as excinfo:
            client.create_schedule_group(Name="g2")
        assert error_of(excinfo)["message"] == "Maximum number of schedule groups (2) exceeded."
