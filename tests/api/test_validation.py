"""Shape validation from the service model, in the AWS constraint-message format."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.constants import QUEUE, ROLE
from tests.helpers import error_of, schedule_args

NAME_PATTERN = "^[0-9a-zA-Z-_.]+$"


def one(value: str, path: str, constraint: str) -> str:
    return (
        f"1 validation error detected: Value {value} at '{path}' failed to satisfy "
        f"constraint: {constraint}"
    )


def test_name_pattern(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args("my schedule"))
    assert error_of(excinfo) == {
        "code": "ValidationException",
        "status": 400,
        "message": one(
            "'my schedule'",
            "name",
            f"Member must satisfy regular expression pattern: {NAME_PATTERN}",
        ),
    }


def test_name_too_long_and_bad_pattern_give_two_items(client: Any) -> None:
    name = "a b" + "c" * 62
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(name))
    assert error_of(excinfo)["message"] == (
        f"2 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: "
        "Member must have length less than or equal to 64; "
        f"Value '{name}' at 'name' failed to satisfy constraint: "
        f"Member must satisfy regular expression pattern: {NAME_PATTERN}"
    )


def test_missing_required_member_is_null(lax_client: Any) -> None:
    args = schedule_args()
    del args["FlexibleTimeWindow"]
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**args)
    assert error_of(excinfo)["message"] == one(
        "null", "flexibleTimeWindow", "Member must not be null"
    )


def test_all_missing_required_members_in_alphabetical_order(raw: Any) -> None:
    response = raw("POST", "/schedules/s1", body={})
    assert response.json["Message"] == (
        "3 validation errors detected: "
        "Value null at 'flexibleTimeWindow' failed to satisfy constraint: Member must not be null; "
        "Value null at 'scheduleExpression' failed to satisfy constraint: Member must not be null; "
        "Value null at 'target' failed to satisfy constraint: Member must not be null"
    )


def test_nested_required_member_path(lax_client: Any) -> None:
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**schedule_args(Target={"Arn": QUEUE}))
    assert error_of(excinfo)["message"] == one("null", "target.roleArn", "Member must not be null")


def test_enum_state(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(State="PAUSED"))
    assert error_of(excinfo)["message"] == one(
        "'PAUSED'", "state", "Member must satisfy enum value set: [ENABLED, DISABLED]"
    )


def test_retry_attempts_above_maximum(client: Any) -> None:
    target = {"Arn": QUEUE, "RoleArn": ROLE, "RetryPolicy": {"MaximumRetryAttempts": 186}}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == one(
        "'186'",
        "target.retryPolicy.maximumRetryAttempts",
        "Member must have value less than or equal to 185",
    )


def test_two_errors_in_model_order(lax_client: Any) -> None:
    target = {"Arn": QUEUE, "RoleArn": ROLE, "RetryPolicy": {"MaximumEventAgeInSeconds": 30}}
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**schedule_args("a b", Target=target))
    assert error_of(excinfo)["message"] == (
        "2 validation errors detected: Value 'a b' at 'name' failed to satisfy constraint: "
        f"Member must satisfy regular expression pattern: {NAME_PATTERN}; "
        "Value '30' at 'target.retryPolicy.maximumEventAgeInSeconds' failed to satisfy "
        "constraint: Member must have value greater than or equal to 60"
    )


def test_max_results_zero(lax_client: Any) -> None:
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.list_schedules(MaxResults=0)
    assert error_of(excinfo)["message"] == one(
        "'0'", "maxResults", "Member must have value greater than or equal to 1"
    )


def test_max_results_above_one_hundred(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.list_schedule_groups(MaxResults=101)
    assert error_of(excinfo)["message"] == one(
        "'101'", "maxResults", "Member must have value less than or equal to 100"
    )


@pytest.mark.parametrize("value", ["ten", "1.5", "\u0665", "\uff11"])
def test_max_results_that_is_not_a_decimal_integer(raw: Any, value: str) -> None:
    # U+0665 and U+FF11 are digits to Python's int(), not to the service.
    response = raw("GET", "/schedules?MaxResults=" + quote(value))
    assert response.status == 400
    assert response.json["Message"] == one(f"'{value}'", "maxResults", "Member must be an integer")


def test_empty_query_value_is_present_and_fails_length_and_pattern(raw: Any) -> None:
    response = raw("GET", "/schedules/s1?groupName=")
    assert response.json["Message"] == (
        "2 validation errors detected: Value '' at 'groupName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1; Value '' at 'groupName' failed "
        f"to satisfy constraint: Member must satisfy regular expression pattern: {NAME_PATTERN}"
    )


def test_list_schedules_group_filter_is_reported_as_group_name(raw: Any) -> None:
    response = raw("GET", "/schedules?ScheduleGroup=a%20b")
    assert response.json["Message"] == one(
        "'a b'", "groupName", f"Member must satisfy regular expression pattern: {NAME_PATTERN}"
    )


def test_empty_tag_value(lax_client: Any) -> None:
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule_group(Name="g", Tags=[{"Key": "k", "Value": ""}])
    assert error_of(excinfo)["message"] == one(
        "''", "tags.1.member.value", "Member must have length greater than or equal to 1"
    )


def test_schedule_arn_is_not_a_taggable_resource(client: Any) -> None:
    arn = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.list_tags_for_resource(ResourceArn=arn)
    assert error_of(excinfo)["message"] == one(
        f"'{arn}'",
        "resourceArn",
        "Member must satisfy regular expression pattern: "
        r"^arn:aws[a-z-]*:scheduler:[a-z0-9\-]+:\d{12}:schedule-group\/[0-9a-zA-Z-_.]+$",
    )


def test_fifo_dead_letter_queue_is_rejected_by_pattern(client: Any) -> None:
    dlq = "arn:aws:sqs:us-east-1:123456789012:dlq.fifo"
    target = {"Arn": QUEUE, "RoleArn": ROLE, "DeadLetterConfig": {"Arn": dlq}}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == one(
        f"'{dlq}'",
        "target.deadLetterConfig.arn",
        "Member must satisfy regular expression pattern: "
        r"^arn:aws[a-z-]*:sqs:[a-z0-9\-]+:\d{12}:[a-zA-Z0-9\-_]+$",
    )


def test_list_element_paths_are_one_based(lax_client: Any) -> None:
    target = {
        "Arn": "arn:aws:sagemaker:us-east-1:123456789012:pipeline/p",
        "RoleArn": ROLE,
        "SageMakerPipelineParameters": {
            "PipelineParameterList": [{"Name": "ok", "Value": "v"}, {"Name": "b a d", "Value": "v"}]
        },
    }
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == one(
        "'b a d'",
        "target.sageMakerPipelineParameters.pipelineParameterList.2.member.name",
        "Member must satisfy regular expression pattern: ^[A-Za-z0-9\\-_]*$",
    )


def test_list_too_long_renders_the_list(lax_client: Any) -> None:
    groups = [f"sg-{i}" for i in range(6)]
    target = {
        "Arn": "arn:aws:ecs:us-east-1:123456789012:cluster/c",
        "RoleArn": ROLE,
        "EcsParameters": {
            "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/t:1",
            "NetworkConfiguration": {
                "awsvpcConfiguration": {"Subnets": ["subnet-1"], "SecurityGroups": groups}
            },
        },
    }
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == one(
        "'[sg-0, sg-1, sg-2, sg-3, sg-4, sg-5]'",
        "target.ecsParameters.networkConfiguration.awsvpcConfiguration.securityGroups",
        "Member must have length less than or equal to 5",
    )


def test_ecs_tag_map_key_constraint(lax_client: Any) -> None:
    target = {
        "Arn": "arn:aws:ecs:us-east-1:123456789012:cluster/c",
        "RoleArn": ROLE,
        "EcsParameters": {
            "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/t:1",
            "Tags": [{"k" * 129: "v"}],
        },
    }
    with pytest.raises(lax_client.exceptions.ValidationException) as excinfo:
        lax_client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == one(
        "'{\"" + "k" * 129 + '":"v"}\'',
        "target.ecsParameters.tags.1.member",
        "Map key must satisfy constraint: [Member must have length less than or equal to 128]",
    )


def test_event_source_pattern_rejects_aws_prefix(client: Any) -> None:
    target = {
        "Arn": "arn:aws:events:us-east-1:123456789012:event-bus/default",
        "RoleArn": ROLE,
        "EventBridgeParameters": {"DetailType": "d", "Source": "aws.custom"},
    }
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert "at 'target.eventBridgeParameters.source'" in error_of(excinfo)["message"]


@pytest.mark.parametrize("source", ["AWS.x", "aws:x", "$.detail.x", "my.app"])
def test_event_source_pattern_accepts(client: Any, source: str) -> None:
    target = {
        "Arn": "arn:aws:events:us-east-1:123456789012:event-bus/default",
        "RoleArn": ROLE,
        "EventBridgeParameters": {"DetailType": "d", "Source": source},
    }
    client.create_schedule(**schedule_args(Target=target))


def test_client_token_pattern(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule_group(Name="g", ClientToken="not valid!")
    assert error_of(excinfo)["message"] == one(
        "'not valid!'",
        "clientToken",
        "Member must satisfy regular expression pattern: ^[a-zA-Z0-9-_]+$",
    )


def test_description_longer_than_512(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Description="d" * 513))
    assert "Member must have length less than or equal to 512" in error_of(excinfo)["message"]


def test_expression_longer_than_256_is_a_length_error(client: Any) -> None:
    expression = "rate(" + "1" * 260 + " minutes)"
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(ScheduleExpression=expression))
    assert error_of(excinfo)["message"] == one(
        f"'{expression}'",
        "scheduleExpression",
        "Member must have length less than or equal to 256",
    )


def test_untag_without_keys_reports_null_tag_keys(client: Any) -> None:
    client.create_schedule_group(Name="g")
    arn = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g"
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.untag_resource(ResourceArn=arn, TagKeys=[])
    assert error_of(excinfo)["message"] == one("null", "tagKeys", "Member must not be null")


def test_shape_errors_come_before_semantic_checks(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(ScheduleExpression="nonsense", State="PAUSED"))
    assert error_of(excinfo)["message"].startswith("1 validation error detected: Value 'PAUSED'")


def test_rejected_request_changes_nothing(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException):
        client.create_schedule(**schedule_args(State="PAUSED"))
    assert client.list_schedules()["Schedules"] == []


def test_a_target_arn_that_is_not_an_arn_is_refused(client: Any) -> None:
    args = schedule_args(Target={"Arn": "charge-invoice", "RoleArn": ROLE})
    with pytest.raises(client.exceptions.ValidationException) as caught:
        client.create_schedule(**args)
    assert error_of(caught)["message"] == "Invalid target ARN charge-invoice."
