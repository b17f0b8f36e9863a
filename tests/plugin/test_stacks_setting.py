"""Stacks named by the marker, the ini file or the command line: loaded for each test,
from paths relative to the rootdir wherever pytest runs."""

from __future__ import annotations

import pytest

TEMPLATE = """\
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
  Hourly:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {Mode: "OFF"}
      Target:
        Arn: !GetAtt Jobs.Arn
        RoleArn: !GetAtt Runner.Arn
        Input: !Sub '{"stage": "${Stage}"}'
Parameters:
  Stage:
    Type: String
    AllowedValues: [dev, prod]
"""

TESTS = """\
import pytest

START = "2026-03-01T00:00:00Z"


@pytest.mark.schedemu(start=START, stacks=["infra/template.yaml"],
                      stack_parameters={"Stage": "dev"})
def test_the_marker_loads_the_stack(schedemu):
    stack = schedemu.stack("template")
    schedemu.clock.advance(hours=2)
    # A rate counts from the schedule's creation: at 00:00, 01:00 and 02:00.
    assert [d.payload for d in schedemu.deliveries(stack.resource("Jobs").arn)] == [
        {"stage": "dev"}
    ] * 3


@pytest.mark.schedemu(start=START)
def test_the_ini_loads_it_for_every_test_afresh(schedemu):
    assert [s.name for s in schedemu.stacks] == ["template"]
    assert len(schedemu.client().list_schedules()["Schedules"]) == 1


@pytest.mark.schedemu(start=START, stacks=["infra/template.yaml"],
                      stack_parameters={"Stage": "qa"})
def test_a_bad_parameter_fails_the_test(schedemu):
    pass
"""


def test_stacks_come_from_the_rootdir_and_fail_the_test_when_bad(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini(
        "[pytest]\nschedemu_stacks = infra/template.yaml\nschedemu_stack_parameters = Stage=prod\n"
    )
    (pytester.path / "infra").mkdir()
    (pytester.path / "infra" / "template.yaml").write_text(TEMPLATE)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_app.py").write_text(TESTS)
    # From a subfolder: the paths are the rootdir's, not the working directory's.
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        str(pytester.path / "tests"),
        "-rA",
        "--rootdir",
        str(pytester.path),
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*parameter Stage*'qa' is not one of*"])
