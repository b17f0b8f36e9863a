"""A stack's AWS::Events::Rule resources: created through PutRule's and PutTargets' checks,
together with the stack's groups and schedules, all or none, and fired on the clock as the
same rules made through the API."""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.provisioning.loading import StackLoader
from pytest_schedemu.scheduler_api.app import service_validator
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.store import Store
from tests.constants import T0
from tests.stacks.building import read, write

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Retries:
    Type: Number
    Default: "2"
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  JobLetters:
    Type: AWS::SQS::Queue
  Poll:
    Type: AWS::Events::Rule
    Properties:
      Description: Poll the jobs every five minutes
      ScheduleExpression: rate(5 minutes)
      Tags:
        - Key: team
          Value: billing
      Targets:
        - Id: jobs
          Arn: !GetAtt Jobs.Arn
          InputTransformer:
            InputPathsMap:
              at: $.time
            InputTemplate: !Sub '{"at": <at>, "stack": "${AWS::StackName}"}'
          RetryPolicy:
            MaximumRetryAttempts: !Ref Retries
            MaximumEventAgeInSeconds: "3600"
          DeadLetterConfig:
            Arn: !GetAtt JobLetters.Arn
  OrderPlaced:
    Type: AWS::Events::Rule
    Properties:
      Name: order-placed
      EventPattern:
        source: [shop.orders]
      Targets:
        - Id: jobs
          Arn: !GetAtt Jobs.Arn
  EventsMaySend:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues: [!Ref Jobs, !Ref JobLetters]
      PolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal: {Service: events.amazonaws.com}
            Action: sqs:SendMessage
            Resource: "*"
"""


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write(tmp_path, TEMPLATE)


def test_a_stack_rule_fires_as_the_same_rule_made_through_the_api(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    poll = stack.rule("Poll")
    events = emu.client("events")
    described = events.describe_rule(Name=poll.name)
    assert (described["ScheduleExpression"], described["State"]) == ("rate(5 minutes)", "ENABLED")
    assert described["Description"] == "Poll the jobs every five minutes"
    assert events.list_tags_for_resource(ResourceARN=poll.arn)["Tags"] == [
        {"Key": "team", "Value": "billing"}
    ]
    (sent,) = events.list_targets_by_rule(Rule=poll.name)["Targets"]
    # CloudFormation's strings became the model's integers.
    assert sent["RetryPolicy"] == {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600}
    events.put_rule(Name="twin", ScheduleExpression=described["ScheduleExpression"])
    events.put_targets(Rule="twin", Targets=[sent])
    emu.clock.advance(minutes=11)
    from_stack = [(a.scheduled_time, a.payload) for a in emu.attempts(rule=poll.name)]
    from_api = [(a.scheduled_time, a.payload) for a in emu.attempts(rule="twin")]
    assert from_stack == from_api
    assert [payload for _, payload in from_stack] == [
        {"at": "2026-03-01T10:05:00Z", "stack": "template"},
        {"at": "2026-03-01T10:10:00Z", "stack": "template"},
    ]


def test_the_rules_targets_keep_their_retries_and_dead_letter_queue(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    emu.target(stack.resource("Jobs").arn).fail(error_code="ServiceUnavailable")
    emu.clock.advance(minutes=6)
    poll = stack.rule("Poll")
    (letter,) = emu.dead_letters(rule=poll.name)
    assert letter.queue_arn == stack.resource("JobLetters").arn
    assert letter.attributes["RULE_ARN"] == poll.arn
    assert letter.attributes["RETRY_ATTEMPTS"] == "2"


def test_a_rule_with_only_a_pattern_is_stored_and_never_fires(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    placed = stack.rule("OrderPlaced")
    assert placed.name == "order-placed"
    described = emu.client("events").describe_rule(Name="order-placed")
    assert described["EventPattern"] == '{"source":["shop.orders"]}'
    emu.clock.advance(days=1)
    assert {a.rule_name for a in emu.attempts()} == {stack.rule("Poll").name}


def test_rules_are_found_by_their_resources_names(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template)
    assert [rule.name for rule in stack.rules] == [
        stack.resource("Poll").physical_name,
        "order-placed",
    ]
    assert stack.rule("OrderPlaced") is stack.rules[1]
    with pytest.raises(
        LookupError, match=r"'Jobs' in stack template is an AWS::SQS::Queue, not a rule"
    ):
        stack.rule("Jobs")
    with pytest.raises(LookupError, match=r"is an AWS::Events::Rule, not a schedule$"):
        stack.schedule("Poll")
    with pytest.raises(LookupError, match="Pol"):
        stack.rule("Pol")


ON_A_BUS = """\
Resources:
  Orders:
    Type: AWS::Events::EventBus
    Properties:
      Name: orders
  Shipped:
    Type: AWS::Events::Rule
    Properties:
      EventBusName: !Ref Orders
      EventPattern: {source: [shop.shipping]}
"""


def test_a_pattern_on_another_bus_is_not_created(emu: Emulator, tmp_path: Path) -> None:
    stack = emu.load_stack(write(tmp_path, ON_A_BUS))
    assert stack.rules == ()
    with pytest.raises(LookupError, match="event bus orders, which the emulator does not keep"):
        stack.rule("Shipped")
    assert emu.client("events").list_rules()["Rules"] == []


def test_a_disabled_rule_is_created_disabled(emu: Emulator, tmp_path: Path) -> None:
    off = TEMPLATE.replace(
        "      ScheduleExpression: rate(5 minutes)\n",
        "      ScheduleExpression: rate(5 minutes)\n      State: DISABLED\n",
    )
    stack = emu.load_stack(write(tmp_path, off))
    assert stack.rule("Poll").state == "DISABLED"
    emu.clock.advance(hours=1)
    assert emu.attempts() == []


# -- refusals: a bad rule fails the whole load, which leaves nothing behind ------------------

QUEUE = {"Fn::GetAtt": ["Jobs", "Arn"]}


def stack_with(rule: dict[str, Any]) -> dict[str, Any]:
    """A stack of a group, a schedule in it and ``rule``'s properties as the rule ``Bad``."""
    return {
        "Resources": {
            "Jobs": {"Type": "AWS::SQS::Queue"},
            "Reports": {"Type": "AWS::Scheduler::ScheduleGroup", "Properties": {"Name": "reports"}},
            "Nightly": {
                "Type": "AWS::Scheduler::Schedule",
                "Properties": {
                    "GroupName": {"Ref": "Reports"},
                    "ScheduleExpression": "rate(1 day)",
                    "FlexibleTimeWindow": {"Mode": "OFF"},
                    "Target": {"Arn": QUEUE, "RoleArn": "arn:aws:iam::123456789012:role/r"},
                },
            },
            "Bad": {"Type": "AWS::Events::Rule", "Properties": rule},
        }
    }


def targets(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"Id": f"t{n}", "Arn": QUEUE, **entry} for n, entry in enumerate(entries)]


HOURLY = {"ScheduleExpression": "rate(1 hour)"}


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        (
            {"ScheduleExpression": "rate(1 hours)"},
            "ValidationException: Parameter ScheduleExpression is not valid.",
        ),
        (
            {"ScheduleExpression": "rate(1 hour)", "EventBusName": "orders"},
            "ValidationException: ScheduleExpression is supported only on the default event bus.",
        ),
        (
            {"Description": "neither"},
            "ValidationException: Parameter(s) EventPattern or ScheduleExpression must be "
            "specified.",
        ),
        (
            {"EventPattern": "[1]"},
            "InvalidEventPatternException: Event pattern is not valid. Reason: Filter is not an "
            "object",
        ),
        (
            {**HOURLY, "Targets": targets(*[{}] * 6)},
            "LimitExceededException: The requested resource exceeds the maximum number allowed.",
        ),
        (
            {**HOURLY, "Targets": [{"Id": "t", "Arn": QUEUE}, {"Id": "t", "Arn": QUEUE}]},
            "ValidationException: Targets has more than one target with the Id t: each target "
            "of a rule needs an Id of its own.",
        ),
        (
            {**HOURLY, "Targets": [{"Id": "t", "Arn": "not-an-arn"}]},
            "ValidationException: Parameter not-an-arn is not valid. Reason: Provided Arn is not "
            "in correct format.",
        ),
        (
            {**HOURLY, "Targets": targets({"Input": "{", "InputPath": "$.detail"})},
            "ValidationException: Only one of Input, InputPath, or InputTransformer must be "
            "provided for target t0.",
        ),
        (
            {**HOURLY, "Targets": targets({"RetryPolicy": {"MaximumRetryAttempts": "186"}})},
            "ValidationException: 1 validation error detected: Value '186' at "
            "'targets.1.member.retryPolicy.maximumRetryAttempts' failed to satisfy constraint: "
            "Member must have value less than or equal to 185",
        ),
        (
            {**HOURLY, "Targets": [{"Id": "t", "Arn": {"Fn::Sub": "${Jobs.Arn}.fifo"}}]},
            "ValidationException: Parameter(s) SqsParameters must be specified for target: t.",
        ),
    ],
)
def test_a_rule_the_api_would_refuse_fails_the_load_and_leaves_nothing(
    emu: Emulator, tmp_path: Path, rule: dict[str, Any], error: str
) -> None:
    before = emu.debug.state_snapshot()
    with pytest.raises(StackError) as refused:
        emu.load_stack(write(tmp_path, stack_with(rule)))
    assert str(refused.value) == f"template.json: resource Bad (AWS::Events::Rule): {error}"
    assert emu.debug.state_snapshot() == before
    assert emu.stacks == []


def test_a_rule_whose_name_is_taken_is_refused_as_cloudformation_refuses_it(
    emu: Emulator, tmp_path: Path
) -> None:
    events = emu.client("events")
    events.put_rule(Name="taken", ScheduleExpression="rate(2 hours)")
    before = emu.debug.state_snapshot()
    with pytest.raises(StackError) as refused:
        emu.load_stack(write(tmp_path, stack_with({**HOURLY, "Name": "taken"})))
    assert str(refused.value) == (
        "template.json: resource Bad (AWS::Events::Rule): ResourceAlreadyExistsException: "
        "Rule taken already exists on EventBus default."
    )
    assert emu.debug.state_snapshot() == before
    assert events.describe_rule(Name="taken")["ScheduleExpression"] == "rate(2 hours)"


def test_a_refused_schedule_leaves_no_rule_behind(emu: Emulator, tmp_path: Path) -> None:
    template = stack_with({**HOURLY, "Targets": targets({})})
    template["Resources"]["Nightly"]["Properties"]["ScheduleExpression"] = "cron(0 2 * * * *)"
    with pytest.raises(StackError, match=r"resource Nightly \(AWS::Scheduler::Schedule\)"):
        emu.load_stack(write(tmp_path, template))
    assert emu.client("events").list_rules()["Rules"] == []


def test_a_property_a_rule_does_not_take_is_refused(emu: Emulator, tmp_path: Path) -> None:
    with pytest.raises(StackError, match=r"resource Bad .*unsupported properties \['Schedule'\]"):
        emu.load_stack(write(tmp_path, stack_with({"Schedule": "rate(1 hour)"})))


def test_an_ecs_targets_cloudformation_names_are_the_apis(emu: Emulator, tmp_path: Path) -> None:
    ecs = {
        "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/report:1",
        "TaskCount": "2",
        "LaunchType": "FARGATE",
        "EnableECSManagedTags": "true",
        "NetworkConfiguration": {
            "AwsVpcConfiguration": {"Subnets": ["subnet-1"], "AssignPublicIp": "DISABLED"}
        },
        "PlacementStrategies": [{"Type": "spread", "Field": "attribute:ecs.availability-zone"}],
        "PlacementConstraints": [{"Type": "distinctInstance"}],
        "TagList": [{"Key": "team", "Value": "billing"}],
    }
    cluster = "arn:aws:ecs:us-east-1:123456789012:cluster/reports"
    rule = {**HOURLY, "Targets": [{"Id": "task", "Arn": cluster, "EcsParameters": ecs}]}
    stack = emu.load_stack(write(tmp_path, stack_with(rule)))
    (sent,) = emu.client("events").list_targets_by_rule(Rule=stack.rule("Bad").name)["Targets"]
    assert sent["EcsParameters"] == {
        "TaskDefinitionArn": "arn:aws:ecs:us-east-1:123456789012:task-definition/report:1",
        "TaskCount": 2,
        "LaunchType": "FARGATE",
        "EnableECSManagedTags": True,
        "NetworkConfiguration": {
            "awsvpcConfiguration": {"Subnets": ["subnet-1"], "AssignPublicIp": "DISABLED"}
        },
        "PlacementStrategy": [{"type": "spread", "field": "attribute:ecs.availability-zone"}],
        "PlacementConstraints": [{"type": "distinctInstance"}],
        "Tags": [{"Key": "team", "Value": "billing"}],
    }


# -- where a rule came from ------------------------------------------------------------------


def test_the_control_api_and_the_timeline_say_which_stack_made_a_rule(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    poll = stack.rule("Poll")

    def get(route: str) -> Any:
        with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/{route}", timeout=10) as r:
            return json.load(r)

    (listed,) = get("stacks")["stacks"]
    assert listed["rules"] == [
        {"arn": poll.arn, "name": poll.name, "logical_id": "Poll"},
        {"arn": stack.rule("OrderPlaced").arn, "name": "order-placed", "logical_id": "OrderPlaced"},
    ]
    shown = {rule["name"]: (rule["stack"], rule["logical_id"]) for rule in get("rules")["rules"]}
    assert shown == {poll.name: ("template", "Poll"), "order-placed": ("template", "OrderPlaced")}
    emu.clock.advance(minutes=6)
    lanes = emu.timeline_svg().count("template · Poll")
    assert lanes > 0
    # A target the application adds to the stack's rule later is the rule's too.
    emu.client("events").put_targets(
        Rule=poll.name, Targets=[{"Id": "later", "Arn": stack.resource("JobLetters").arn}]
    )
    emu.clock.advance(minutes=5)
    assert emu.timeline_svg().count("template · Poll") == 2 * lanes


def test_adopting_a_stack_finds_its_rules_in_the_store(tmp_path: Path) -> None:
    resolved = read(tmp_path, TEMPLATE)
    store = Store(T0, LiveSettings(Settings()))
    loader = StackLoader(service_validator(), Commands(store, store.settings), lambda: T0)
    assert loader.adopt(resolved) is None
    loaded = loader.load(resolved)
    adopted = loader.adopt(resolved)
    assert adopted is not None and adopted.rules == loaded.rules
    store.rules.delete_rule(
        resolved.account, resolved.region, "default", "order-placed", force=True
    )
    with pytest.raises(
        StackError, match="holds some of stack template's schedules, groups and rules"
    ):
        loader.adopt(resolved)


def test_the_rules_dates_are_the_loads_instant_to_the_second(emu: Emulator, template: Path) -> None:
    emu.clock.advance(seconds=1.5)
    stack = emu.load_stack(template)
    expected = datetime.fromisoformat("2026-03-01T10:00:01+00:00")
    assert {(r.creation_date, r.activated_at) for r in stack.rules} == {(expected, expected)}
