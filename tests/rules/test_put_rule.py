"""PutRule, DescribeRule and ListRules through real boto3 clients, over HTTP and in process."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import ACCOUNT, ROLE
from tests.helpers import error_of
from tests.rules.rulebook import PATTERN, RULE_ARN, target, without_metadata

# LocalStack's AWS-validated cases (tests/aws/services/events/test_events_schedule.py): AWS
# accepts these crons and refuses these rates and crons with the same message.
VALID_CRONS = [
    "cron(0 10 * * ? *)",
    "cron(15 12 * * ? *)",
    "cron(0 18 ? * MON-FRI *)",
    "cron(0 8 1 * ? *)",
    "cron(0/15 * * * ? *)",
    "cron(0/10 * ? * MON-FRI *)",
    "cron(0/5 8-17 ? * MON-FRI *)",
    "cron(0/30 20-23 ? * MON-FRI *)",
    "cron(0/30 0-2 ? * MON-FRI *)",
    "cron(0 2 ? * SAT *)",
    "cron(0 12 * * ? *)",
    "cron(5,35 14 * * ? *)",
    "cron(15 10 ? * 6L 2002-2005)",
    "cron(0 2 ? * SAT#3 *)",
    "cron(* * ? * SAT#3 *)",
    "cron(0/5 5 ? JAN 1-5 2022)",
]
INVALID_RATES = [
    "rate(10 seconds)",
    "rate(10 years)",
    "rate(1 minutes)",
    "rate(1 hours)",
    "rate(1 days)",
    "rate(10 minute)",
    "rate(10 hour)",
    "rate(10 day)",
    "rate()",
    "rate(10)",
    "rate(10 minutess)",
    "rate(foo minutes)",
    "rate(0 minutes)",
    "rate(-10 minutes)",
    "rate(10 MINUTES)",
    "rate( 10 minutes )",
    " rate(10 minutes)",
]
INVALID_CRONS = [
    "cron(0 1 * * * *)",
    "cron(7 20 * * NOT *)",
    "cron(0 dummy ? * MON-FRI *)",
    "cron(71 8 1 * ? *)",
    "cron(INVALID)",
]


def test_put_rule_answers_its_arn_and_describe_rule_the_rule(events: Any) -> None:
    response = events.put_rule(
        Name="r1", ScheduleExpression="rate(5 minutes)", Description="every five", RoleArn=ROLE
    )
    assert without_metadata(response) == {"RuleArn": RULE_ARN}
    assert without_metadata(events.describe_rule(Name="r1")) == {
        "Arn": RULE_ARN,
        "CreatedBy": ACCOUNT,
        "Description": "every five",
        "EventBusName": "default",
        "Name": "r1",
        "RoleArn": ROLE,
        "ScheduleExpression": "rate(5 minutes)",
        "State": "ENABLED",
    }


def test_list_rules_lists_them_by_name_without_who_created_them(events: Any) -> None:
    events.put_rule(Name="b", EventPattern=PATTERN, State="DISABLED")
    events.put_rule(Name="a", ScheduleExpression="cron(0 20 * * ? *)")
    assert events.list_rules()["Rules"] == [
        {
            "Arn": f"arn:aws:events:us-east-1:{ACCOUNT}:rule/a",
            "EventBusName": "default",
            "Name": "a",
            "ScheduleExpression": "cron(0 20 * * ? *)",
            "State": "ENABLED",
        },
        {
            "Arn": f"arn:aws:events:us-east-1:{ACCOUNT}:rule/b",
            "EventBusName": "default",
            "EventPattern": PATTERN,
            "Name": "b",
            "State": "DISABLED",
        },
    ]


@pytest.mark.parametrize("expression", [*VALID_CRONS, "rate(1 minute)", "rate(2 days)"])
def test_aws_accepts_these_expressions(events: Any, expression: str) -> None:
    events.put_rule(Name="r1", ScheduleExpression=expression)
    assert events.describe_rule(Name="r1")["ScheduleExpression"] == expression


@pytest.mark.parametrize("expression", INVALID_RATES + INVALID_CRONS + ["at(2030-01-01T00:00:00)"])
def test_aws_refuses_these_expressions_and_nothing_is_stored(
    events: Any, emu: Emulator, expression: str
) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_rule(Name="r1", ScheduleExpression=expression)
    assert error_of(excinfo) == {
        "code": "ValidationException",
        "message": "Parameter ScheduleExpression is not valid.",
        "status": 400,
    }
    assert events.list_rules()["Rules"] == []


@pytest.mark.parametrize("bus", ["orders", f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/orders"])
def test_a_schedule_only_on_the_default_bus(events: Any, bus: str) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_rule(Name="r1", EventBusName=bus, ScheduleExpression="rate(1 minute)")
    assert error_of(excinfo) == {
        "code": "ValidationException",
        "message": "ScheduleExpression is supported only on the default event bus.",
        "status": 400,
    }


def test_the_default_bus_may_be_named_by_its_arn(events: Any) -> None:
    bus = f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default"
    events.put_rule(Name="r1", EventBusName=bus, ScheduleExpression="rate(1 minute)")
    assert events.describe_rule(Name="r1", EventBusName=bus)["Arn"] == RULE_ARN


@pytest.mark.parametrize(
    "bus", ["orders", "arn:aws:events:eu-west-1:123456789012:event-bus/default"]
)
def test_a_bus_the_emulator_does_not_have_is_not_found(events: Any, bus: str) -> None:
    with pytest.raises(events.exceptions.ResourceNotFoundException) as excinfo:
        events.put_rule(Name="r1", EventBusName=bus, EventPattern=PATTERN)
    assert error_of(excinfo)["message"] == f"Event bus {bus} does not exist."
    with pytest.raises(events.exceptions.ResourceNotFoundException):
        events.list_rules(EventBusName=bus)


def test_a_rule_needs_a_pattern_or_a_schedule(events: Any) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_rule(Name="r1", Description="nothing to match")
    assert error_of(excinfo) == {
        "code": "ValidationException",
        "message": "Parameter(s) EventPattern or ScheduleExpression must be specified.",
        "status": 400,
    }


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [("{'source': 1}", "Filter is not valid JSON"), ('["orders"]', "Filter is not an object")],
)
def test_a_pattern_must_be_a_json_object(events: Any, pattern: str, reason: str) -> None:
    with pytest.raises(events.exceptions.InvalidEventPatternException) as excinfo:
        events.put_rule(Name="r1", EventPattern=pattern)
    assert error_of(excinfo)["message"].startswith(f"Event pattern is not valid. Reason: {reason}")


def test_a_rule_may_have_both_and_its_state_is_kept(events: Any) -> None:
    events.put_rule(
        Name="r1",
        EventPattern=PATTERN,
        ScheduleExpression="rate(1 hour)",
        State="ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS",
    )
    described = events.describe_rule(Name="r1")
    assert (described["EventPattern"], described["ScheduleExpression"]) == (PATTERN, "rate(1 hour)")
    assert described["State"] == "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS"


def test_putting_a_rule_again_replaces_it_keeps_its_targets_and_ignores_new_tags(
    events: Any,
) -> None:
    events.put_rule(
        Name="r1",
        ScheduleExpression="rate(5 minutes)",
        Description="first",
        State="DISABLED",
        Tags=[{"Key": "team", "Value": "a"}],
    )
    events.put_targets(Rule="r1", Targets=[target()])
    events.put_rule(
        Name="r1", ScheduleExpression="rate(1 hour)", Tags=[{"Key": "team", "Value": "b"}]
    )
    described = events.describe_rule(Name="r1")
    # What PutRule leaves out is gone, and a left-out State is ENABLED (AWS's API reference).
    assert "Description" not in described
    assert (described["ScheduleExpression"], described["State"]) == ("rate(1 hour)", "ENABLED")
    assert events.list_targets_by_rule(Rule="r1")["Targets"] == [target()]
    assert events.list_tags_for_resource(ResourceARN=RULE_ARN)["Tags"] == [
        {"Key": "team", "Value": "a"}
    ]


def test_a_missing_rule_is_not_found_on_its_bus(events: Any) -> None:
    with pytest.raises(events.exceptions.ResourceNotFoundException) as excinfo:
        events.describe_rule(Name="nope")
    assert error_of(excinfo) == {
        "code": "ResourceNotFoundException",
        "message": "Rule nope does not exist on EventBus default.",
        "status": 400,
    }


def test_shape_errors_are_worded_as_eventbridge_words_them(lax_events: Any) -> None:
    with pytest.raises(lax_events.exceptions.ClientError) as excinfo:
        lax_events.put_rule(Name="a b" * 30, ScheduleExpression="rate(1 hour)", State="PAUSED")
    name = "a b" * 30
    assert error_of(excinfo)["message"] == (
        f"3 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: "
        r"Member must satisfy regular expression pattern: [\.\-_A-Za-z0-9]+; "
        f"Value '{name}' at 'name' failed to satisfy constraint: Member must have length less "
        "than or equal to 64; Value 'PAUSED' at 'state' failed to satisfy constraint: Member "
        "must satisfy enum value set: [ENABLED, DISABLED, "
        "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS]"
    )


def test_a_required_member_left_out(lax_events: Any) -> None:
    with pytest.raises(lax_events.exceptions.ClientError) as excinfo:
        lax_events.put_rule(ScheduleExpression="rate(1 hour)")
    assert error_of(excinfo)["message"] == (
        "1 validation error detected: Value null at 'name' failed to satisfy constraint: "
        "Member must not be null"
    )


# -- listing ---------------------------------------------------------------------------------


def test_list_rules_pages_by_name_and_filters_by_prefix(events: Any) -> None:
    for name in ("job-3", "job-1", "other", "job-2", "job-0"):
        events.put_rule(Name=name, ScheduleExpression="rate(1 hour)")
    first = events.list_rules(NamePrefix="job-", Limit=3)
    assert [rule["Name"] for rule in first["Rules"]] == ["job-0", "job-1", "job-2"]
    # A rule deleted between pages makes no other repeat or go missing.
    events.delete_rule(Name="job-1")
    second = events.list_rules(NamePrefix="job-", Limit=3, NextToken=first["NextToken"])
    assert [rule["Name"] for rule in second["Rules"]] == ["job-3"]
    assert "NextToken" not in second


def test_a_page_token_of_other_filters_is_an_invalid_token(events: Any) -> None:
    for name in ("a", "b"):
        events.put_rule(Name=name, ScheduleExpression="rate(1 hour)")
    token = events.list_rules(Limit=1)["NextToken"]
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.list_rules(Limit=1, NamePrefix="a", NextToken=token)
    assert error_of(excinfo) == {
        "code": "InvalidToken",
        "message": "The NextToken provided is invalid.",
        "status": 400,
    }


def test_the_paginator_walks_every_rule(events: Any) -> None:
    for number in range(7):
        events.put_rule(Name=f"r{number}", ScheduleExpression="rate(1 hour)")
    pages = events.get_paginator("list_rules").paginate(PaginationConfig={"PageSize": 3})
    assert [rule["Name"] for page in pages for rule in page["Rules"]] == [
        f"r{number}" for number in range(7)
    ]


def test_rules_are_kept_apart_by_account_and_region(emu: Emulator, events: Any) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    other = emu.client("events", region_name="eu-west-1", aws_access_key_id="111122223333")
    assert other.list_rules()["Rules"] == []
    arn = other.put_rule(Name="r1", ScheduleExpression="rate(2 hours)")["RuleArn"]
    assert arn == "arn:aws:events:eu-west-1:111122223333:rule/r1"
    assert events.describe_rule(Name="r1")["ScheduleExpression"] == "rate(1 hour)"
