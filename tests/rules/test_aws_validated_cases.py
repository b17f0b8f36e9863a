"""LocalStack's AWS-validated schedule-rule cases, run black box against the emulator.

The cases are LocalStack's (localstack/localstack,
``tests/aws/services/events/test_events_schedule.py``: ``TestScheduleRate`` and
``TestScheduleCron``), copied as they are; the answers asserted are AWS's own, as that
file's snapshot (``test_events_schedule.snapshot.json``, recorded against AWS and listed in
``test_events_schedule.validation.json``) holds them. Everything goes through a real boto3
``events`` client, the emulator's (``schedemu.client("events")``) or an application's own,
and everything is read back through the emulator's public doors.

Where LocalStack waits on the wall clock (``time.sleep(60)``) the test moves the virtual
clock by the same amount; where it reads an SQS queue the test reads the recorded delivery
to that queue (the request the target got, and its message body).
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from pytest_schedemu import Emulator
from tests.constants import START, T0

pytestmark = pytest.mark.schedemu(start=START)

#: The queue every scheduled rule here aims at (LocalStack's ``sqs_as_events_target``).
QUEUE_NAME = "rule-target"

#: Application code: a module-level client, built when pytest imports this module, before
#: any emulator of the test exists, with the credentials its environment gives it (the
#: region is the run's). Its rule operations must reach the test's emulator.
APPLICATION_EVENTS = boto3.client(
    "events",
    aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
    aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
)

#: The Scheduled Event's keys, in the order AWS sends them (the snapshot's, and the
#: EventBridge User Guide's example event).
ENVELOPE_KEYS = [
    "version",
    "id",
    "detail-type",
    "source",
    "account",
    "time",
    "region",
    "resources",
    "detail",
]

# -- the cases, copied from LocalStack ---------------------------------------------------------

# TestScheduleCron.tests_put_rule_with_schedule_cron: every one accepted, and listed back with
# its expression, on the default bus, ENABLED.
VALID_CRONS = [
    "cron(0 2 ? * SAT *)",  # Run at 2:00 am every Saturday
    "cron(0 12 * * ? *)",  # Run at 12:00 pm every day
    "cron(5,35 14 * * ? *)",  # Run at 2:05 pm and 2:35 pm every day
    "cron(15 10 ? * 6L 2002-2005)",  # 10:15 am on the last Friday of each month, 2002-2005
    "cron(0 2 ? * SAT#3 *)",  # Run at 2:00 am on the third Saturday of every month
    "cron(* * ? * SAT#3 *)",  # Run every minute on the third Saturday of every month
    "cron(0/5 5 ? JAN 1-5 2022)",  # every 5 minutes on the first 5 days of January 2022
    "cron(0 10 * * ? *)",  # Run at 10:00 am every day
    "cron(15 12 * * ? *)",  # Run at 12:15 pm every day
    "cron(0 18 ? * MON-FRI *)",  # Run at 6:00 pm every Monday through Friday
    "cron(0 8 1 * ? *)",  # Run at 8:00 am on the 1st day of every month
    "cron(0/15 * * * ? *)",  # Run every 15 minutes
    "cron(0/10 * ? * MON-FRI *)",  # Run every 10 minutes Monday through Friday
    "cron(0/5 8-17 ? * MON-FRI *)",  # every 5 minutes Monday to Friday, 8:00 am to 5:55 pm
    "cron(0/30 20-23 ? * MON-FRI *)",  # every 30 minutes, 8:00 pm to 11:59 pm, Mon to Fri
    "cron(0/30 0-2 ? * MON-FRI *)",  # every 30 minutes, 12:00 am to 2:00 am, Mon to Fri
]

# TestScheduleRate.test_put_rule_with_invalid_schedule_rate: every one refused. EventBridge
# rules (unlike Scheduler) want the unit singular for 1 and plural otherwise, in lower case.
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

# TestScheduleCron.tests_put_rule_with_invalid_schedule_cron: every one refused.
INVALID_CRONS = [
    "cron(0 1 * * * *)",  # day-of-month and day-of-week may not both be given
    "cron(7 20 * * NOT *)",
    "cron(INVALID)",
    "cron(0 dummy ? * MON-FRI *)",
    "cron(71 8 1 * ? *)",
]

#: AWS's answer to each refused expression (the snapshot's, and the rate test's assert).
NOT_VALID = {"Code": "ValidationException", "Message": "Parameter ScheduleExpression is not valid."}


# -- helpers -----------------------------------------------------------------------------------


@pytest.fixture
def events(schedemu: Emulator) -> Any:
    """A boto3 ``events`` client bound to the test's emulator."""
    return schedemu.client("events")


def queue_arn(emu: Emulator, region: str | None = None) -> str:
    return f"arn:aws:sqs:{region or emu.region}:{emu.account_id}:{QUEUE_NAME}"


def rule_arn(emu: Emulator, name: str, region: str | None = None) -> str:
    return f"arn:aws:events:{region or emu.region}:{emu.account_id}:rule/{name}"


def error_of(excinfo: pytest.ExceptionInfo[ClientError]) -> dict[str, Any]:
    """The error as LocalStack's snapshot records it: the ``Error`` block and the status."""
    response = excinfo.value.response
    return {
        "Error": {"Code": response["Error"]["Code"], "Message": response["Error"]["Message"]},
        "HTTPStatusCode": response["ResponseMetadata"]["HTTPStatusCode"],
    }


def scheduled_rule_with_queue(
    events: Any, emu: Emulator, name: str, expression: str, **target: Any
) -> str:
    """LocalStack's set-up: a rule on the default bus and one SQS target; the rule's ARN."""
    arn = events.put_rule(Name=name, EventBusName="default", ScheduleExpression=expression)[
        "RuleArn"
    ]
    answer = events.put_targets(
        Rule=name,
        EventBusName="default",
        Targets=[{"Id": f"target-{name}", "Arn": queue_arn(emu), **target}],
    )
    assert answer["FailedEntryCount"] == 0
    assert answer["FailedEntries"] == []
    return str(arn)


def z_time(instant: datetime) -> str:
    return instant.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def assert_scheduled_event(
    delivery: Any, emu: Emulator, arn: str, at: datetime, region: str | None = None
) -> dict[str, Any]:
    """The delivery is the default Scheduled Event of rule ``arn`` for the occurrence ``at``,
    sent as the SQS message body: every key, in AWS's order, of AWS's types and values."""
    body = delivery.request["MessageBody"]
    assert body == delivery.input
    event = json.loads(body)
    assert list(event) == ENVELOPE_KEYS
    assert event["version"] == "0"
    assert isinstance(event["id"], str)
    assert str(uuid.UUID(event["id"])) == event["id"]  # a UUID, in its canonical form
    assert event["detail-type"] == "Scheduled Event"
    assert event["source"] == "aws.events"
    assert event["account"] == emu.account_id
    assert event["time"] == z_time(at)
    assert event["region"] == (region or emu.region)
    assert event["resources"] == [arn]
    assert event["detail"] == {}  # an object: Scheduler's default event has the string "{}"
    assert delivery.payload == event
    assert delivery.scheduled_time == at
    return event


# -- TestScheduleRate --------------------------------------------------------------------------


def test_put_rule_with_schedule_rate(schedemu: Emulator, events: Any) -> None:
    answer = events.put_rule(Name="rule-rate", ScheduleExpression="rate(1 minute)")

    assert answer["RuleArn"] == rule_arn(schedemu, "rule-rate")
    assert events.list_rules(NamePrefix="rule-rate")["Rules"] == [
        {
            "Arn": rule_arn(schedemu, "rule-rate"),
            "EventBusName": "default",
            "Name": "rule-rate",
            "ScheduleExpression": "rate(1 minute)",
            "State": "ENABLED",
        }
    ]


@pytest.mark.parametrize("bus", ["by-name", "by-arn"])
def test_put_rule_with_schedule_custom_event_bus(schedemu: Emulator, events: Any, bus: str) -> None:
    # LocalStack creates the bus first; the emulator keeps no event buses (CreateEventBus is
    # not a rule operation), and the refusal needs none: a schedule goes on the default bus.
    name = "test-bus-custom"
    bus_name = (
        name
        if bus == "by-name"
        else (f"arn:aws:events:{schedemu.region}:{schedemu.account_id}:event-bus/{name}")
    )
    with pytest.raises(ClientError) as excinfo:
        events.put_rule(
            Name="test-rule", EventBusName=bus_name, ScheduleExpression="rate(1 minute)"
        )

    assert error_of(excinfo) == {
        "Error": {
            "Code": "ValidationException",
            "Message": "ScheduleExpression is supported only on the default event bus.",
        },
        "HTTPStatusCode": 400,
    }
    assert events.list_rules(NamePrefix="test-rule")["Rules"] == []


@pytest.mark.parametrize("schedule_expression", INVALID_RATES)
def test_put_rule_with_invalid_schedule_rate(events: Any, schedule_expression: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        events.put_rule(Name="rule-invalid-rate", ScheduleExpression=schedule_expression)

    assert error_of(excinfo) == {"Error": NOT_VALID, "HTTPStatusCode": 400}
    assert events.list_rules()["Rules"] == []  # refused, so nothing was stored


def test_schedule_rate_target_sqs(schedemu: Emulator, events: Any) -> None:
    """tests_schedule_rate_target_sqs: a rate(1 minute) rule's SQS target gets one Scheduled
    Event a minute, the next one 60 seconds after the first.

    AWS's recording has exactly one message in the minute after the rule and its target
    were made, and one more in the next: the count starts at the rule's creation ("A rate
    expression starts when you create the scheduled event rule"), and the first occurrence
    is one period after it."""
    arn = scheduled_rule_with_queue(events, schedemu, "test-rule-rate", "rate(1 minute)")
    assert events.list_targets_by_rule(Rule="test-rule-rate")["Targets"] == [
        {"Arn": queue_arn(schedemu), "Id": "target-test-rule-rate"}
    ]

    schedemu.clock.advance(timedelta(seconds=60))  # LocalStack: time.sleep(60)
    [first] = schedemu.deliveries(queue_arn(schedemu))
    first_event = assert_scheduled_event(first, schedemu, arn, T0 + timedelta(minutes=1))

    schedemu.clock.advance(timedelta(seconds=60))
    deliveries = schedemu.deliveries(queue_arn(schedemu))
    assert len(deliveries) == 2
    second_event = assert_scheduled_event(deliveries[1], schedemu, arn, T0 + timedelta(minutes=2))
    # Each occurrence is an event of its own.
    assert second_event["id"] != first_event["id"]


def test_schedule_rate_custom_input_target_sqs(schedemu: Emulator, events: Any) -> None:
    """tests_schedule_rate_custom_input_target_sqs: a target's Input is delivered verbatim,
    instead of the Scheduled Event."""
    custom_input = json.dumps({"custom-value": "somecustominput"})
    scheduled_rule_with_queue(
        events, schedemu, "test-rule-input", "rate(1 minute)", Input=custom_input
    )
    assert events.list_targets_by_rule(Rule="test-rule-input")["Targets"] == [
        {"Arn": queue_arn(schedemu), "Id": "target-test-rule-input", "Input": custom_input}
    ]

    schedemu.clock.advance(timedelta(seconds=60))  # LocalStack: time.sleep(60)

    [delivery] = schedemu.deliveries(queue_arn(schedemu))
    assert delivery.request["MessageBody"] == custom_input  # byte for byte, spaces included
    assert delivery.input == custom_input
    assert delivery.payload == {"custom-value": "somecustominput"}


# -- TestScheduleCron --------------------------------------------------------------------------


@pytest.mark.parametrize("schedule_cron", VALID_CRONS)
def test_put_rule_with_schedule_cron(schedemu: Emulator, events: Any, schedule_cron: str) -> None:
    answer = events.put_rule(Name="rule-cron", ScheduleExpression=schedule_cron)

    assert answer["RuleArn"] == rule_arn(schedemu, "rule-cron")
    assert events.list_rules(NamePrefix="rule-cron")["Rules"] == [
        {
            "Arn": rule_arn(schedemu, "rule-cron"),
            "EventBusName": "default",
            "Name": "rule-cron",
            "ScheduleExpression": schedule_cron,
            "State": "ENABLED",
        }
    ]


@pytest.mark.parametrize("schedule_cron", INVALID_CRONS)
def test_put_rule_with_invalid_schedule_cron(events: Any, schedule_cron: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        events.put_rule(Name="rule-invalid-cron", ScheduleExpression=schedule_cron)

    assert error_of(excinfo) == {"Error": NOT_VALID, "HTTPStatusCode": 400}
    assert events.list_rules()["Rules"] == []


def test_schedule_cron_target_sqs(schedemu: Emulator, events: Any) -> None:
    """test_schedule_cron_target_sqs: a cron naming the next minute but one fires then, once,
    and its event's ``time`` is that minute (LocalStack builds the cron the same way,
    ``cron(<minute> <hour> <day> <month> ? *)``, and waits 120 seconds)."""
    due = T0 + timedelta(minutes=2)
    schedule_cron = f"cron({due.minute} {due.hour} {due.day} {due.month} ? *)"
    arn = scheduled_rule_with_queue(events, schedemu, "test-rule-cron", schedule_cron)

    schedemu.clock.advance(timedelta(seconds=119))
    assert schedemu.deliveries(queue_arn(schedemu)) == []
    schedemu.clock.advance(timedelta(seconds=1))  # LocalStack: time.sleep(120)

    [delivery] = schedemu.deliveries(queue_arn(schedemu))
    assert_scheduled_event(delivery, schedemu, arn, due)


# -- application code ----------------------------------------------------------------------------


def test_rule_of_a_module_level_client_fires_on_the_clock(schedemu: Emulator) -> None:
    """A rule made by a ``boto3.client("events")`` that application code built at import time,
    before the emulator started, is the emulator's, and fires when the test moves the clock."""
    region = APPLICATION_EVENTS.meta.region_name
    target = queue_arn(schedemu, region)
    APPLICATION_EVENTS.put_rule(Name="nightly-report", ScheduleExpression="cron(0 2 * * ? *)")
    APPLICATION_EVENTS.put_targets(
        Rule="nightly-report", Targets=[{"Id": "report-queue", "Arn": target}]
    )
    # The emulator's own client sees the rule the application made.
    described = schedemu.client("events", region_name=region).describe_rule(Name="nightly-report")
    assert described["ScheduleExpression"] == "cron(0 2 * * ? *)"

    schedemu.clock.advance(timedelta(days=1))  # 2026-03-01 10:00 to 2026-03-02 10:00

    [delivery] = schedemu.deliveries(target)
    assert_scheduled_event(
        delivery,
        schedemu,
        rule_arn(schedemu, "nightly-report", region),
        datetime(2026, 3, 2, 2, 0, tzinfo=timezone.utc),
        region=region,
    )


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without AWS configuration: no credentials, no region, no profile."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


UNCONFIGURED_APPLICATION = """
import json
from datetime import timedelta

import boto3
import pytest

# Application code, unchanged: built at import, on a machine with no AWS configuration.
EVENTS = boto3.client("events")

QUEUE = "arn:aws:sqs:us-east-1:123456789012:nightly"


@pytest.mark.schedemu(start="2026-03-01T10:00:00Z")
def test_nightly_report(schedemu):
    EVENTS.put_rule(Name="nightly-report", ScheduleExpression="cron(0 2 * * ? *)")
    EVENTS.put_targets(Rule="nightly-report", Targets=[{"Id": "queue", "Arn": QUEUE}])

    schedemu.clock.advance(timedelta(days=1))

    [delivery] = schedemu.deliveries(QUEUE)
    event = json.loads(delivery.request["MessageBody"])
    assert event["detail-type"] == "Scheduled Event"
    assert event["resources"] == ["arn:aws:events:us-east-1:123456789012:rule/nightly-report"]
    assert event["time"] == "2026-03-02T02:00:00Z"
"""


def test_rule_of_a_module_level_client_without_configuration_fires_on_the_clock(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    """The same on a machine without AWS configuration, where the client found neither
    credentials nor a region of its own when it was built (a run of its own)."""
    pytester.makepyfile(UNCONFIGURED_APPLICATION)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
