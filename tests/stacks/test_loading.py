"""Stacks loaded into the emulator: their schedules created through CreateSchedule's
checks, all or none, and fired on the clock as the same schedules made through the API."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StackError
from tests.constants import START

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Retries:
    Type: Number
    Default: "3"
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Runner:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - {Effect: Allow, Principal: {Service: scheduler.amazonaws.com}, Action: "sts:AssumeRole"}
      Policies:
        - PolicyName: send
          PolicyDocument:
            Version: "2012-10-17"
            Statement:
              - {Effect: Allow, Action: "sqs:SendMessage", Resource: [!GetAtt Jobs.Arn]}
  Reports:
    Type: AWS::Scheduler::ScheduleGroup
    Properties:
      Name: reports
      Tags:
        - Key: team
          Value: billing
  Nightly:
    Type: AWS::Scheduler::Schedule
    Properties:
      GroupName: !Ref Reports
      ScheduleExpression: cron(30 2 * * ? *)
      ScheduleExpressionTimezone: America/New_York
      FlexibleTimeWindow:
        Mode: "OFF"
      Target:
        Arn: !GetAtt Jobs.Arn
        RoleArn: !GetAtt Runner.Arn
        Input: !Sub '{"at": "<aws.scheduler.scheduled-time>", "stack": "${AWS::StackName}"}'
        RetryPolicy:
          MaximumRetryAttempts: !Ref Retries
"""


def write(folder: Path, text: str = TEMPLATE, name: str = "template.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write(tmp_path)


def test_a_stack_schedule_fires_as_the_same_schedule_made_through_the_api(
    emu: Emulator, client: Any, template: Path
) -> None:
    stack = emu.load_stack(template)
    nightly = stack.schedule("Nightly")
    queue = stack.resource("Jobs").arn
    assert nightly.target.arn == queue
    assert nightly.target.retry_policy.maximum_retry_attempts == 3
    got = client.get_schedule(Name=nightly.name, GroupName="reports")
    client.create_schedule(
        Name="twin",
        ScheduleExpression=got["ScheduleExpression"],
        ScheduleExpressionTimezone=got["ScheduleExpressionTimezone"],
        FlexibleTimeWindow=got["FlexibleTimeWindow"],
        Target=got["Target"],
    )
    # Across the spring-forward night, when 02:30 does not exist in New York.
    emu.clock.move_to("2026-03-12T00:00:00Z")
    from_stack = [a.scheduled_time for a in emu.attempts() if a.schedule_name == nightly.name]
    from_api = [a.scheduled_time for a in emu.attempts() if a.schedule_name == "twin"]
    assert from_stack == from_api
    # March 2 to 11 at 02:30 in New York, but not on March 8 (EST, then EDT).
    days = [(t.day, t.hour) for t in from_stack]
    assert days == [(d, 7) for d in range(2, 8)] + [(d, 6) for d in range(9, 12)]
    assert all(a.target_arn == queue for a in emu.attempts())
    first = next(a for a in emu.attempts() if a.schedule_name == nightly.name)
    assert first.payload == {"at": "2026-03-02T07:30:00Z", "stack": "template"}


def test_the_group_keeps_its_tags(emu: Emulator, client: Any, template: Path) -> None:
    stack = emu.load_stack(template)
    (group,) = stack.schedule_groups
    tags = client.list_tags_for_resource(ResourceArn=group.arn)["Tags"]
    assert tags == [{"Key": "team", "Value": "billing"}]


def test_an_invalid_resource_fails_the_load_naming_it_and_creates_nothing(
    emu: Emulator, client: Any, tmp_path: Path
) -> None:
    path = write(tmp_path, TEMPLATE.replace("cron(30 2 * * ? *)", "cron(30 2 * * * *)"))
    before = emu.debug.state_snapshot()
    with pytest.raises(StackError) as error:
        emu.load_stack(path)
    assert str(error.value) == (
        "template.yaml: resource Nightly (AWS::Scheduler::Schedule): ValidationException: "
        "Invalid Schedule Expression cron(30 2 * * * *)."
    )
    assert emu.debug.state_snapshot() == before
    assert emu.activity() == []
    assert emu.stacks == []


def test_a_name_already_taken_fails_the_load_and_creates_nothing(
    emu: Emulator, client: Any, template: Path
) -> None:
    client.create_schedule_group(Name="reports")
    before = emu.debug.state_snapshot()
    with pytest.raises(StackError, match=r"resource Reports .*ConflictException"):
        emu.load_stack(template)
    assert emu.debug.state_snapshot() == before


def test_a_property_the_resource_type_does_not_take_is_refused(
    emu: Emulator, tmp_path: Path
) -> None:
    path = write(tmp_path, TEMPLATE.replace("      GroupName: !Ref Reports\n", "      Group: x\n"))
    with pytest.raises(StackError, match=r"resource Nightly .*unsupported properties \['Group'\]"):
        emu.load_stack(path)


def test_stacks_are_found_by_name_and_gone_after_a_reset(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template, stack_name="billing")
    assert emu.stack("billing") is stack
    with pytest.raises(LookupError, match="loaded stacks: billing"):
        emu.stack("other")
    with pytest.raises(StackError, match="already loaded"):
        emu.load_stack(template, stack_name="billing")
    emu.reset()
    assert emu.stacks == []
    with pytest.raises(LookupError):
        emu.stack("billing")


def test_parameters_are_given_and_checked(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template, parameters={"Retries": "0"})
    assert stack.schedule("Nightly").target.retry_policy.maximum_retry_attempts == 0


def test_the_settings_load_stacks_at_the_start_and_after_every_reset(template: Path) -> None:
    with Emulator(start=START, stacks=[str(template)], stack_parameters={"Retries": "1"}) as emu:
        assert [s.name for s in emu.stacks] == ["template"]
        policy = emu.stack("template").schedule("Nightly").target.retry_policy
        assert policy.maximum_retry_attempts == 1
        emu.reset()
        assert [s.name for s in emu.stacks] == ["template"]
        assert len(emu.client().list_schedules()["Schedules"]) == 1


def test_the_control_api_and_the_timeline_say_which_stack_made_a_schedule(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    nightly = stack.schedule("Nightly")

    def get(route: str) -> Any:
        with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/{route}", timeout=10) as r:
            return json.load(r)

    (listed,) = get("stacks")["stacks"]
    assert listed["name"] == "template"
    assert listed["schedules"] == [
        {"arn": nightly.arn, "group_name": "reports", "name": nightly.name, "logical_id": "Nightly"}
    ]
    (shown,) = get("schedules")["schedules"]
    assert (shown["stack"], shown["logical_id"]) == ("template", "Nightly")
    assert "template · Nightly" in emu.timeline_svg()


def test_a_restarted_service_takes_its_stacks_back_from_the_state(
    tmp_path: Path, template: Path
) -> None:
    state = str(tmp_path / "state.db")
    with Emulator(start=START, state=state, stacks=[str(template)]) as first:
        name = first.stack("template").schedule("Nightly").name
    with Emulator(start=START, state=state, stacks=[str(template)]) as second:
        assert second.stack("template").schedule("Nightly").name == name
        assert len(second.client().list_schedules(GroupName="reports")["Schedules"]) == 1


UNKNOWN_TARGET = """\
Resources:
  Widget:
    Type: AWS::Widgets::Widget
  Poke:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: rate(1 day)
      FlexibleTimeWindow: {Mode: "OFF"}
      Target:
        Arn: !GetAtt Widget.Arn
        RoleArn: arn:aws:iam::123456789012:role/r
"""


def test_a_target_of_an_unknown_type_needs_placeholders(emu: Emulator, tmp_path: Path) -> None:
    path = write(tmp_path, UNKNOWN_TARGET)
    with pytest.raises(StackError, match="AWS::Widgets::Widget"):
        emu.load_stack(path)
    stack = emu.load_stack(path, placeholders=True)
    assert stack.schedule("Poke").target.arn == stack.resource("Widget").arn


def test_a_date_without_an_offset_is_read_as_utc(emu: Emulator, tmp_path: Path) -> None:
    naive = TEMPLATE.replace(
        "      ScheduleExpressionTimezone: America/New_York\n",
        "      ScheduleExpressionTimezone: America/New_York\n"
        "      StartDate: '2026-03-05T00:00:00'\n",
    )
    stack = emu.load_stack(write(tmp_path, naive))
    assert stack.schedule("Nightly").start_date.isoformat() == "2026-03-05T00:00:00+00:00"


_DEAD_LETTERED = TEMPLATE.replace(
    "        RetryPolicy:",
    "        DeadLetterConfig:\n          Arn: !GetAtt Letters.Arn\n        RetryPolicy:",
).replace("  Runner:", "  Letters:\n    Type: AWS::SQS::Queue\n  Runner:")


def test_a_file_name_with_dots_gives_a_stack_whose_generated_names_aws_accepts(
    emu: Emulator, tmp_path: Path
) -> None:
    # A dot in a generated queue's name would make the dead-letter ARN CreateSchedule refuses.
    stack = emu.load_stack(write(tmp_path, _DEAD_LETTERED, "billing.prod.template.yaml"))
    assert stack.name == "billing-prod-template"
    letters = stack.resource("Letters").physical_name or ""
    assert letters.startswith("billing-prod-template-Letters-")
    assert stack.schedule("Nightly").target.dead_letter_arn == stack.resource("Letters").arn
    assert emu.stack("billing-prod-template") is stack


def test_an_invalid_stack_name_is_refused_as_cloudformation_refuses_it_and_nothing_is_made(
    emu: Emulator, template: Path
) -> None:
    with pytest.raises(StackError) as refused:
        emu.load_stack(template, stack_name="bad.name")
    assert str(refused.value) == (
        f"{template}: 1 validation error detected: Value 'bad.name' at 'stackName' failed to "
        "satisfy constraint: Member must satisfy regular expression pattern: "
        "[a-zA-Z][-a-zA-Z0-9]*. A valid name: 'bad-name'"
    )
    assert (emu.stacks, emu.schedules()) == ([], [])
