"""CreateSchedule, GetSchedule, UpdateSchedule, DeleteSchedule and their semantic checks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import QUEUE, ROLE, SCHEDULE_ARN, T0
from tests.helpers import error_of, schedule_args


def test_create_returns_the_schedule_arn_with_the_default_group(client: Any) -> None:
    assert client.create_schedule(**schedule_args())["ScheduleArn"] == SCHEDULE_ARN


def test_create_in_a_named_group(client: Any) -> None:
    client.create_schedule_group(Name="g")
    arn = client.create_schedule(**schedule_args(GroupName="g"))["ScheduleArn"]
    assert arn == "arn:aws:scheduler:us-east-1:123456789012:schedule/g/s1"


def test_get_fills_the_defaults(emu: Emulator, raw: Any, client: Any) -> None:
    client.create_schedule(**schedule_args())
    assert raw("GET", "/schedules/s1").json == {
        "ActionAfterCompletion": "NONE",
        "Arn": SCHEDULE_ARN,
        "CreationDate": T0.timestamp(),
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "GroupName": "default",
        "LastModificationDate": T0.timestamp(),
        "Name": "s1",
        "ScheduleExpression": "rate(5 minutes)",
        "ScheduleExpressionTimezone": "UTC",
        "State": "ENABLED",
        "Target": {
            "Arn": QUEUE,
            "RetryPolicy": {"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185},
            "RoleArn": ROLE,
        },
    }


def test_get_through_boto3_gives_datetimes_from_the_virtual_clock(client: Any) -> None:
    client.create_schedule(**schedule_args())
    got = client.get_schedule(Name="s1")
    assert got["CreationDate"] == T0
    assert got["LastModificationDate"] == T0


def test_every_member_round_trips(client: Any) -> None:
    start = T0 + timedelta(hours=1)
    end = T0 + timedelta(days=30)
    target = {
        "Arn": QUEUE,
        "RoleArn": ROLE,
        "Input": '{"hello": "world"}',
        "RetryPolicy": {"MaximumEventAgeInSeconds": 3600, "MaximumRetryAttempts": 3},
        "DeadLetterConfig": {"Arn": "arn:aws:sqs:us-east-1:123456789012:dlq"},
    }
    client.create_schedule(
        **schedule_args(
            ScheduleExpression="cron(0 9 ? * MON-FRI *)",
            ScheduleExpressionTimezone="Europe/London",
            FlexibleTimeWindow={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
            Target=target,
            StartDate=start,
            EndDate=end,
            State="DISABLED",
            ActionAfterCompletion="DELETE",
            Description="",
            KmsKeyArn="arn:aws:kms:us-east-1:123456789012:key/abc",
        )
    )
    got = client.get_schedule(Name="s1")
    assert got["ScheduleExpression"] == "cron(0 9 ? * MON-FRI *)"
    assert got["ScheduleExpressionTimezone"] == "Europe/London"
    assert got["FlexibleTimeWindow"] == {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15}
    assert got["Target"] == target
    assert got["StartDate"] == start
    assert got["EndDate"] == end
    assert got["State"] == "DISABLED"
    assert got["ActionAfterCompletion"] == "DELETE"
    assert got["Description"] == ""
    assert got["KmsKeyArn"] == "arn:aws:kms:us-east-1:123456789012:key/abc"


def test_partial_retry_policy_is_completed_with_the_default(client: Any) -> None:
    target = {"Arn": QUEUE, "RoleArn": ROLE, "RetryPolicy": {"MaximumRetryAttempts": 3}}
    client.create_schedule(**schedule_args(Target=target))
    assert client.get_schedule(Name="s1")["Target"]["RetryPolicy"] == {
        "MaximumEventAgeInSeconds": 86400,
        "MaximumRetryAttempts": 3,
    }


def test_parameter_blocks_come_back_exactly_as_sent(client: Any) -> None:
    ecs = {
        "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/t:1",
        "LaunchType": "EC2",
    }
    target = {"Arn": "arn:aws:ecs:us-east-1:123456789012:cluster/c", "RoleArn": ROLE}
    client.create_schedule(**schedule_args(Target={**target, "EcsParameters": ecs}))
    assert client.get_schedule(Name="s1")["Target"]["EcsParameters"] == ecs


def test_start_date_keeps_milliseconds(raw: Any) -> None:
    body = schedule_args(StartDate=1772359200.123)
    del body["Name"]
    raw("POST", "/schedules/s1", body=body)
    assert raw("GET", "/schedules/s1").json["StartDate"] == 1772359200.123


def test_duplicate_name_is_a_conflict(client: Any) -> None:
    client.create_schedule(**schedule_args())
    with pytest.raises(client.exceptions.ConflictException) as excinfo:
        client.create_schedule(**schedule_args())
    assert error_of(excinfo) == {
        "code": "ConflictException",
        "status": 409,
        "message": "Schedule s1 already exists.",
    }


def test_same_name_in_two_groups_is_allowed(client: Any) -> None:
    client.create_schedule_group(Name="g")
    client.create_schedule(**schedule_args())
    client.create_schedule(**schedule_args(GroupName="g"))
    assert len(client.list_schedules()["Schedules"]) == 2


def test_names_are_case_sensitive(client: Any) -> None:
    client.create_schedule(**schedule_args("s1"))
    client.create_schedule(**schedule_args("S1"))
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s2")


def test_create_in_a_missing_group_is_not_found(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.create_schedule(**schedule_args(GroupName="missing"))
    assert error_of(excinfo)["message"] == "Schedule group missing does not exist."


def test_get_in_a_missing_group_names_the_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.get_schedule(Name="s1", GroupName="missing")
    assert error_of(excinfo)["message"] == "Schedule group missing does not exist."


def test_get_missing_schedule(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.get_schedule(Name="s1")
    assert error_of(excinfo) == {
        "code": "ResourceNotFoundException",
        "status": 404,
        "message": "Schedule s1 does not exist.",
    }


@pytest.mark.parametrize(
    "expression",
    ["rate(0 minutes)", "cron(0 1 * * * *)", "at(2021-12-31T23:59:59Z)", " rate(10 minutes)"],
)
def test_bad_expression_is_rejected_with_the_expression_echoed(
    client: Any, expression: str
) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(ScheduleExpression=expression))
    assert error_of(excinfo)["message"] == f"Invalid Schedule Expression {expression}."


def test_bad_timezone(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(ScheduleExpressionTimezone="+02:00"))
    assert error_of(excinfo)["message"] == "Invalid Schedule Expression Timezone +02:00."


def test_flexible_without_window(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(FlexibleTimeWindow={"Mode": "FLEXIBLE"}))
    assert error_of(excinfo)["message"] == (
        "MaximumWindowInMinutes must be provided when FlexibleTimeWindowMode is set to FLEXIBLE"
    )


def test_off_with_window(client: Any) -> None:
    window = {"Mode": "OFF", "MaximumWindowInMinutes": 5}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(FlexibleTimeWindow=window))
    assert error_of(excinfo)["message"] == (
        "MaximumWindowInMinutes must not be provided when FlexibleTimeWindowMode is set to OFF."
    )


def test_start_date_not_before_end_date(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(
            **schedule_args(StartDate=T0 + timedelta(days=2), EndDate=T0 + timedelta(days=1))
        )
    assert error_of(excinfo)["message"] == (
        "The StartDate you specify must come before the EndDate."
    )


def test_equal_start_and_end_dates_are_rejected(client: Any) -> None:
    when = T0 + timedelta(days=1)
    with pytest.raises(client.exceptions.ValidationException):
        client.create_schedule(**schedule_args(StartDate=when, EndDate=when))


def test_recurring_start_date_more_than_five_minutes_ago(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(StartDate=T0 - timedelta(minutes=5, seconds=1)))
    assert error_of(excinfo)["message"] == (
        "The StartDate you specify cannot be earlier than 5 minutes ago."
    )


def test_recurring_start_date_exactly_five_minutes_ago_is_accepted(client: Any) -> None:
    client.create_schedule(**schedule_args(StartDate=T0 - timedelta(minutes=5)))


def test_five_minute_rule_follows_the_virtual_clock(emu: Emulator, client: Any) -> None:
    emu.clock.advance(days=1)
    with pytest.raises(client.exceptions.ValidationException):
        client.create_schedule(**schedule_args(StartDate=T0))


def test_one_time_schedule_may_have_a_past_start_date(client: Any) -> None:
    client.create_schedule(
        **schedule_args(
            ScheduleExpression="at(2026-04-01T00:00:00)", StartDate=T0 - timedelta(days=9)
        )
    )


def test_past_at_is_accepted_by_default(client: Any) -> None:
    client.create_schedule(**schedule_args(ScheduleExpression="at(2022-12-31T23:59:59)"))


def test_past_at_can_be_rejected() -> None:
    with Emulator(start="2026-03-01T08:00:00Z", past_at="reject") as emu:
        client = emu.client()
        with pytest.raises(client.exceptions.ValidationException) as excinfo:
            client.create_schedule(**schedule_args(ScheduleExpression="at(2022-12-31T23:59:59)"))
        assert error_of(excinfo)["message"] == (
            "Invalid Schedule Expression at(2022-12-31T23:59:59)."
        )
        client.create_schedule(**schedule_args(ScheduleExpression="at(2026-12-31T23:59:59)"))
        # This local time is an instant in the year 10000 UTC: far in the future, not an error.
        client.create_schedule(
            **schedule_args(
                "last",
                ScheduleExpression="at(9999-12-31T23:59:59)",
                ScheduleExpressionTimezone="America/New_York",
            )
        )
        # The current second itself is not in the past.
        client.create_schedule(**schedule_args("now", ScheduleExpression="at(2026-03-01T08:00:00)"))


def test_target_check_runs_on_create(client: Any) -> None:
    target = {"Arn": "arn:aws:sqs:us-east-1:123456789012:q.fifo", "RoleArn": ROLE}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == "Parameters SqsParameters must be specified"


def test_target_in_another_region(client: Any) -> None:
    target = {"Arn": "arn:aws:sqs:eu-west-1:123456789012:q", "RoleArn": ROLE}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == (
        "The target ARN provided does not match the current region us-east-1."
    )


def test_lambda_input_must_be_json(client: Any) -> None:
    target = {
        "Arn": "arn:aws:lambda:us-east-1:123456789012:function:f",
        "RoleArn": ROLE,
        "Input": "not json",
    }
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == "JSON syntax error in input for the target"


def test_universal_target_without_input(client: Any) -> None:
    target = {"Arn": "arn:aws:scheduler:::aws-sdk:sqs:sendMessage", "RoleArn": ROLE}
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == (
        "You must provide an input to set this target for your schedule"
    )


def test_semantic_checks_run_in_order(client: Any) -> None:
    # A bad expression is reported before a missing group.
    with pytest.raises(client.exceptions.ValidationException):
        client.create_schedule(**schedule_args(GroupName="missing", ScheduleExpression="x"))


# -- UpdateSchedule ---------------------------------------------------------------------------


def test_update_replaces_the_whole_schedule(emu: Emulator, client: Any) -> None:
    target = {
        "Arn": QUEUE,
        "RoleArn": ROLE,
        "Input": "hello",
        "RetryPolicy": {"MaximumRetryAttempts": 3},
    }
    client.create_schedule(
        **schedule_args(
            Target=target,
            State="DISABLED",
            ActionAfterCompletion="DELETE",
            Description="first",
            ScheduleExpressionTimezone="Europe/Paris",
            EndDate=T0 + timedelta(days=3),
        )
    )
    emu.clock.advance(minutes=10)
    client.update_schedule(**schedule_args())
    got = client.get_schedule(Name="s1")
    assert got["State"] == "ENABLED"
    assert got["ActionAfterCompletion"] == "NONE"
    assert got["ScheduleExpressionTimezone"] == "UTC"
    assert "Description" not in got
    assert "EndDate" not in got
    assert got["Target"] == {
        "Arn": QUEUE,
        "RoleArn": ROLE,
        "RetryPolicy": {"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185},
    }
    assert got["CreationDate"] == T0
    assert got["LastModificationDate"] == T0 + timedelta(minutes=10)


def test_update_without_a_clock_move_keeps_both_dates_equal(client: Any) -> None:
    client.create_schedule(**schedule_args())
    client.update_schedule(**schedule_args(Description="x"))
    got = client.get_schedule(Name="s1")
    assert got["CreationDate"] == got["LastModificationDate"]


def test_update_missing_schedule(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.update_schedule(**schedule_args())
    assert error_of(excinfo)["message"] == "Schedule s1 does not exist."


def test_update_in_a_missing_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.update_schedule(**schedule_args(GroupName="missing"))
    assert error_of(excinfo)["message"] == "Schedule group missing does not exist."


def test_update_validates_the_expression_too(client: Any) -> None:
    client.create_schedule(**schedule_args())
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.update_schedule(**schedule_args(ScheduleExpression="rate(1 week)"))
    assert error_of(excinfo)["message"] == "Invalid Schedule Expression rate(1 week)."
    assert client.get_schedule(Name="s1")["ScheduleExpression"] == "rate(5 minutes)"


def test_update_never_moves_a_schedule_to_another_group(client: Any) -> None:
    client.create_schedule_group(Name="g")
    client.create_schedule(**schedule_args())
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.update_schedule(**schedule_args(GroupName="g"))


# -- DeleteSchedule ---------------------------------------------------------------------------


def test_delete_removes_the_schedule(client: Any) -> None:
    client.create_schedule(**schedule_args())
    assert client.delete_schedule(Name="s1")["ResponseMetadata"]["HTTPStatusCode"] == 200
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")


def test_delete_answers_an_empty_object(raw: Any, client: Any) -> None:
    client.create_schedule(**schedule_args())
    assert raw("DELETE", "/schedules/s1").json == {}


def test_delete_missing_schedule(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.delete_schedule(Name="s1")
    assert error_of(excinfo)["message"] == "Schedule s1 does not exist."


def test_delete_in_a_missing_group(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.delete_schedule(Name="s1", GroupName="missing")
    assert error_of(excinfo)["message"] == "Schedule group missing does not exist."


def test_recreating_a_deleted_schedule_works(client: Any) -> None:
    client.create_schedule(**schedule_args())
    client.delete_schedule(Name="s1")
    assert client.create_schedule(**schedule_args())["ScheduleArn"] == SCHEDULE_ARN


def test_schedule_quota() -> None:
    with Emulator(max_schedules=2) as emu:
        client = emu.client()
        client.create_schedule(**schedule_args("a"))
        client.create_schedule(**schedule_args("b"))
        with pytest.raises(client.exceptions.ServiceQuotaExceededException) as excinfo:
            client.create_schedule(**schedule_args("c"))
        assert error_of(excinfo) == {
            "code": "ServiceQuotaExceededException",
            "status": 402,
            "message": "Maximum number of schedules (2) exceeded.",
        }


def test_update_keeps_a_start_date_older_than_five_minutes_when_unchanged(
    emu: Emulator, client: Any
) -> None:
    start = T0 + timedelta(minutes=1)
    client.create_schedule(**schedule_args(StartDate=start))
    emu.clock.advance(hours=1)
    # AWS advises copying GetSchedule's answer into UpdateSchedule.
    current = client.get_schedule(Name="s1")
    client.update_schedule(**schedule_args(StartDate=current["StartDate"], Description="renamed"))
    assert client.get_schedule(Name="s1")["Description"] == "renamed"
    with pytest.raises(client.exceptions.ValidationException) as caught:
        client.update_schedule(**schedule_args(StartDate=start - timedelta(seconds=1)))
    assert error_of(caught)["message"] == (
        "The StartDate you specify cannot be earlier than 5 minutes ago."
    )
