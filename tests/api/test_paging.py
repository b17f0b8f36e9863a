"""ListSchedules filters and NextToken paging."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from tests.helpers import error_of, schedule_args


def names(response: Any) -> Any:
    return [(s["GroupName"], s["Name"]) for s in response["Schedules"]]


@pytest.fixture
def populated(client: Any) -> Any:
    client.create_schedule_group(Name="b-group")
    client.create_schedule_group(Name="a-group")
    for group, name, state in [
        ("default", "zeta", "ENABLED"),
        ("default", "alpha", "DISABLED"),
        ("b-group", "alpha", "ENABLED"),
        ("a-group", "report-1", "ENABLED"),
        ("a-group", "report-2", "DISABLED"),
        ("a-group", "other", "ENABLED"),
    ]:
        client.create_schedule(**schedule_args(name, GroupName=group, State=state))
    return client


def test_list_is_sorted_by_group_then_name(populated: Any) -> None:
    assert names(populated.list_schedules()) == [
        ("a-group", "other"),
        ("a-group", "report-1"),
        ("a-group", "report-2"),
        ("b-group", "alpha"),
        ("default", "alpha"),
        ("default", "zeta"),
    ]


def test_summary_has_only_the_summary_members(populated: Any) -> None:
    summary = populated.list_schedules(GroupName="b-group")["Schedules"][0]
    assert sorted(summary) == [
        "Arn",
        "CreationDate",
        "GroupName",
        "LastModificationDate",
        "Name",
        "State",
        "Target",
    ]
    assert summary["Target"] == {"Arn": "arn:aws:sqs:us-east-1:123456789012:queue"}


def test_filters_combine(populated: Any) -> None:
    response = populated.list_schedules(GroupName="a-group", NamePrefix="report", State="ENABLED")
    assert names(response) == [("a-group", "report-1")]
    assert names(populated.list_schedules(NamePrefix="alpha")) == [
        ("b-group", "alpha"),
        ("default", "alpha"),
    ]
    assert names(populated.list_schedules(State="DISABLED")) == [
        ("a-group", "report-2"),
        ("default", "alpha"),
    ]


def test_empty_list_still_has_the_member(client: Any) -> None:
    response = client.list_schedules()
    assert response["Schedules"] == []
    assert "NextToken" not in response


def test_unknown_group_filter_is_not_found(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.list_schedules(GroupName="nope")
    assert error_of(excinfo)["message"] == "Schedule group nope does not exist."


def test_pages_cover_everything_once(populated: Any) -> None:
    seen = []
    token = None
    pages = 0
    while True:
        kwargs = {"MaxResults": 2}
        if token:
            kwargs["NextToken"] = token
        response = populated.list_schedules(**kwargs)
        seen += names(response)
        pages += 1
        token = response.get("NextToken")
        if not token:
            break
    assert pages == 3
    assert seen == names(populated.list_schedules())


def test_no_token_when_the_page_ends_exactly(populated: Any) -> None:
    assert "NextToken" not in populated.list_schedules(MaxResults=6)
    assert "NextToken" in populated.list_schedules(MaxResults=5)


def test_paginator_works(populated: Any) -> None:
    paginator = populated.get_paginator("list_schedules")
    pages = list(paginator.paginate(PaginationConfig={"PageSize": 4}))
    assert [len(page["Schedules"]) for page in pages] == [4, 2]


def test_deleting_between_pages_does_not_break_paging(populated: Any) -> None:
    first = populated.list_schedules(MaxResults=2)
    populated.delete_schedule(Name="report-1", GroupName="a-group")
    rest = populated.list_schedules(MaxResults=10, NextToken=first["NextToken"])
    assert names(rest) == [
        ("a-group", "report-2"),
        ("b-group", "alpha"),
        ("default", "alpha"),
        ("default", "zeta"),
    ]


def test_token_with_other_filters_is_invalid(populated: Any) -> None:
    token = populated.list_schedules(MaxResults=1)["NextToken"]
    with pytest.raises(populated.exceptions.ValidationException) as excinfo:
        populated.list_schedules(MaxResults=1, NextToken=token, State="ENABLED")
    assert error_of(excinfo)["message"] == "The NextToken provided is invalid."


@pytest.mark.parametrize("token", ["garbage", "eyJ2IjoyfQ", "!!!", "eyJ2Ijp0cnVlfQ"])
def test_undecodable_or_wrong_version_token_is_invalid(client: Any, token: str) -> None:
    # eyJ2IjoyfQ is {"v":2}; eyJ2Ijp0cnVlfQ is {"v":true}.
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.list_schedules(NextToken=token)
    assert error_of(excinfo)["message"] == "The NextToken provided is invalid."


@pytest.mark.parametrize("tamper", [lambda t: t[:4] + "!!" + t[4:], lambda t: "  " + t])
def test_token_with_characters_outside_base64_is_invalid(
    populated: Any, tamper: Callable[[str], str]
) -> None:
    token = populated.list_schedules(MaxResults=1)["NextToken"]
    with pytest.raises(populated.exceptions.ValidationException) as excinfo:
        populated.list_schedules(MaxResults=1, NextToken=tamper(token))
    assert error_of(excinfo)["message"] == "The NextToken provided is invalid."


def test_unknown_group_is_reported_before_a_bad_token(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.list_schedules(GroupName="nope", NextToken="garbage")
    assert error_of(excinfo)["message"] == "Schedule group nope does not exist."


def test_group_list_paging(client: Any) -> None:
    for i in range(5):
        client.create_schedule_group(Name=f"g{i}")
    first = client.list_schedule_groups(MaxResults=3)
    assert [g["Name"] for g in first["ScheduleGroups"]] == ["default", "g0", "g1"]
    second = client.list_schedule_groups(MaxResults=3, NextToken=first["NextToken"])
    assert [g["Name"] for g in second["ScheduleGroups"]] == ["g2", "g3", "g4"]
    assert "NextToken" not in second
    with pytest.raises(client.exceptions.ValidationException):
        client.list_schedule_groups(NextToken=first["NextToken"], NamePrefix="g")


def test_default_page_size_is_one_hundred(client: Any) -> None:
    for i in range(101):
        client.create_schedule(**schedule_args(f"s{i:03}"))
    response = client.list_schedules()
    assert len(response["Schedules"]) == 100
    assert "NextToken" in response
