"""ClientToken idempotency."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import QUEUE, ROLE, SCHEDULE_ARN
from tests.helpers import error_of, schedule_args


def test_same_token_and_request_returns_the_original_success(client: Any) -> None:
    first = client.create_schedule(**schedule_args(ClientToken="t1"))
    again = client.create_schedule(**schedule_args(ClientToken="t1"))
    assert first["ScheduleArn"] == again["ScheduleArn"] == SCHEDULE_ARN
    assert first["ResponseMetadata"]["RequestId"] != again["ResponseMetadata"]["RequestId"]
    assert len(client.list_schedules()["Schedules"]) == 1


def test_replay_returns_the_original_even_after_the_schedule_is_gone(client: Any) -> None:
    client.create_schedule(**schedule_args(ClientToken="t1"))
    client.delete_schedule(Name="s1")
    assert client.create_schedule(**schedule_args(ClientToken="t1"))["ScheduleArn"] == SCHEDULE_ARN
    # Replayed, not executed: the schedule was not created again.
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")


def test_same_token_with_other_parameters_is_a_conflict(client: Any) -> None:
    client.create_schedule(**schedule_args(ClientToken="t1"))
    with pytest.raises(client.exceptions.ConflictException) as excinfo:
        client.create_schedule(**schedule_args(ClientToken="t1", Description="changed"))
    assert error_of(excinfo) == {
        "code": "ConflictException",
        "status": 409,
        "message": "Idempotency token t1 was already used with different request parameters.",
    }


def test_tokens_are_per_operation(client: Any) -> None:
    client.create_schedule_group(Name="g", ClientToken="t1")
    client.create_schedule(**schedule_args(ClientToken="t1"))
    assert len(client.list_schedules()["Schedules"]) == 1


def test_tokens_are_case_sensitive(client: Any) -> None:
    client.create_schedule(**schedule_args(ClientToken="abc"))
    with pytest.raises(client.exceptions.ConflictException) as excinfo:
        client.create_schedule(**schedule_args(ClientToken="ABC"))
    assert error_of(excinfo)["message"] == "Schedule s1 already exists."


def test_failed_request_stores_nothing(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.create_schedule(**schedule_args(GroupName="g", ClientToken="t1"))
    client.create_schedule_group(Name="g")
    arn = client.create_schedule(**schedule_args(GroupName="g", ClientToken="t1"))["ScheduleArn"]
    assert arn.endswith("schedule/g/s1")


def test_replayed_delete_answers_success(client: Any) -> None:
    client.create_schedule(**schedule_args())
    client.delete_schedule(Name="s1", ClientToken="d1")
    client.delete_schedule(Name="s1", ClientToken="d1")
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.delete_schedule(Name="s1", ClientToken="d2")


def test_delete_group_token_in_query(raw: Any, client: Any) -> None:
    client.create_schedule_group(Name="g")
    assert raw("DELETE", "/schedule-groups/g?clientToken=x").status == 200
    assert raw("DELETE", "/schedule-groups/g?clientToken=x").status == 200
    assert raw("DELETE", "/schedule-groups/g?clientToken=y").status == 404


def test_separate_botocore_calls_get_separate_tokens(client: Any) -> None:
    client.create_schedule(**schedule_args())
    with pytest.raises(client.exceptions.ConflictException) as excinfo:
        client.create_schedule(**schedule_args())
    assert error_of(excinfo)["message"] == "Schedule s1 already exists."


def test_update_token_replays(emu: Emulator, client: Any) -> None:
    client.create_schedule(**schedule_args())
    client.update_schedule(**schedule_args(Description="one", ClientToken="u1"))
    client.update_schedule(**schedule_args(Description="two"))
    client.update_schedule(**schedule_args(Description="one", ClientToken="u1"))
    assert client.get_schedule(Name="s1")["Description"] == "two"


def test_reset_forgets_tokens(emu: Emulator, client: Any) -> None:
    client.create_schedule(**schedule_args(ClientToken="t1"))
    emu.reset()
    client.create_schedule(**schedule_args(ClientToken="t1", Description="new"))
    assert client.get_schedule(Name="s1")["Description"] == "new"


def test_only_the_newest_tokens_are_remembered(emu: Emulator, client: Any) -> None:
    emu.reset(max_idempotency_tokens=2)
    for name in ("a", "b", "c"):
        client.create_schedule(**schedule_args(name), ClientToken=f"token-{name}")
    # "c" and "b" replay; "a" was forgotten, so its request runs again and meets "a".
    client.create_schedule(**schedule_args("c"), ClientToken="token-c")
    client.create_schedule(**schedule_args("b"), ClientToken="token-b")
    with pytest.raises(client.exceptions.ConflictException, match="Schedule a already exists"):
        client.create_schedule(**schedule_args("a"), ClientToken="token-a")


def test_a_lone_surrogate_in_a_tokened_request_is_no_server_error(raw: Any) -> None:
    # JSON allows "\ud800" in a string; the fingerprint and the answer must survive it.
    body = json.dumps(
        {
            **schedule_args(Target={"Arn": QUEUE, "RoleArn": ROLE, "Input": "\ud800"}),
            "ClientToken": "t",
        }
    )
    created = raw("POST", "/schedules/s1", body)
    assert created.status == 200
    assert raw("POST", "/schedules/s1", body).json == created.json  # replayed
    got = raw("GET", "/schedules/s1")
    assert got.status == 200 and got.json["Target"]["Input"] == "\ud800"
