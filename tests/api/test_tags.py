"""TagResource, UntagResource and ListTagsForResource on schedule groups."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import error_of

ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g"


def tags_of(client: Any, arn: str = ARN) -> Any:
    return client.list_tags_for_resource(ResourceArn=arn)["Tags"]


def test_tags_given_at_creation_are_listed_in_order(client: Any) -> None:
    tags = [{"Key": "b", "Value": "1"}, {"Key": "a", "Value": "2"}]
    client.create_schedule_group(Name="g", Tags=tags)
    assert tags_of(client) == tags


def test_duplicate_keys_at_creation_keep_the_last_value(client: Any) -> None:
    client.create_schedule_group(
        Name="g", Tags=[{"Key": "k", "Value": "1"}, {"Key": "k", "Value": "2"}]
    )
    assert tags_of(client) == [{"Key": "k", "Value": "2"}]


def test_tag_resource_upserts_keeping_positions(client: Any) -> None:
    client.create_schedule_group(
        Name="g", Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    )
    client.tag_resource(
        ResourceArn=ARN, Tags=[{"Key": "a", "Value": "9"}, {"Key": "c", "Value": "3"}]
    )
    assert tags_of(client) == [
        {"Key": "a", "Value": "9"},
        {"Key": "b", "Value": "2"},
        {"Key": "c", "Value": "3"},
    ]


def test_tagging_does_not_touch_the_modification_date(emu: Any, client: Any) -> None:
    client.create_schedule_group(Name="g")
    before = client.get_schedule_group(Name="g")["LastModificationDate"]
    emu.clock.advance(minutes=1)
    client.tag_resource(ResourceArn=ARN, Tags=[{"Key": "k", "Value": "v"}])
    assert client.get_schedule_group(Name="g")["LastModificationDate"] == before


def test_untag_removes_listed_keys_and_ignores_unknown_ones(client: Any) -> None:
    client.create_schedule_group(
        Name="g", Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    )
    client.untag_resource(ResourceArn=ARN, TagKeys=["a", "zzz"])
    assert tags_of(client) == [{"Key": "b", "Value": "2"}]


def test_untag_sends_repeated_query_keys(raw: Any, client: Any) -> None:
    client.create_schedule_group(
        Name="g", Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    )
    encoded = ARN.replace(":", "%3A").replace("/", "%2F")
    assert raw("DELETE", f"/tags/{encoded}?TagKeys=a&TagKeys=b").status == 200
    assert tags_of(client) == []


def test_unencoded_arn_in_the_path_is_accepted(raw: Any, client: Any) -> None:
    client.create_schedule_group(Name="g", Tags=[{"Key": "a", "Value": "1"}])
    assert raw("GET", f"/tags/{ARN}").json == {"Tags": [{"Key": "a", "Value": "1"}]}


def test_default_group_has_no_tags_and_cannot_be_tagged(client: Any) -> None:
    default = ARN[: -len("g")] + "default"
    assert tags_of(client, default) == []
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.tag_resource(ResourceArn=default, Tags=[{"Key": "k", "Value": "v"}])
    assert error_of(excinfo)["message"] == (
        "This operation cannot be performed on schedule group default."
    )
    with pytest.raises(client.exceptions.ValidationException):
        client.untag_resource(ResourceArn=default, TagKeys=["k"])


@pytest.mark.parametrize(
    "arn",
    [
        ARN,
        "arn:aws:scheduler:eu-west-1:123456789012:schedule-group/g",
        "arn:aws:scheduler:us-east-1:999999999999:schedule-group/g",
        "arn:aws-cn:scheduler:us-east-1:123456789012:schedule-group/g",
    ],
)
def test_tags_of_a_group_that_is_not_here(client: Any, arn: str) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        tags_of(client, arn)
    assert error_of(excinfo)["message"] == "Schedule group g does not exist."


def test_tag_missing_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.tag_resource(ResourceArn=ARN, Tags=[{"Key": "k", "Value": "v"}])


def test_more_than_two_hundred_tags_after_merge(client: Any) -> None:
    client.create_schedule_group(
        Name="g", Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(150)]
    )
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.tag_resource(
            ResourceArn=ARN, Tags=[{"Key": f"n{i}", "Value": "v"} for i in range(51)]
        )
    assert error_of(excinfo)["message"] == "Number of tags on the resource cannot exceed 200."
    assert len(tags_of(client)) == 150


def test_more_than_two_hundred_tags_in_one_request_is_a_shape_error(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule_group(
            Name="g", Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(201)]
        )
    assert "Member must have length less than or equal to 200" in error_of(excinfo)["message"]


def test_empty_tag_list_changes_nothing(client: Any) -> None:
    client.create_schedule_group(Name="g", Tags=[{"Key": "a", "Value": "1"}])
    client.tag_resource(ResourceArn=ARN, Tags=[])
    assert tags_of(client) == [{"Key": "a", "Value": "1"}]
