"""A simple mistake (a misspelt name, an invalid stack name, a missing or broken template)
fails a test at the user's own line, in a few lines that name what was meant: no frame or
source line of the emulator's, no list of attempts.

Each mistake runs as a user would write it, through pytester, with pytest's default
traceback style.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import pytest_schedemu

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

#: The most lines a mistake's report may take, its header included.
MOST_LINES = 15

QUEUE = "arn:aws:sqs:us-east-1:123456789012:charges"
LETTERS = "arn:aws:sqs:us-east-1:123456789012:letters"

TEMPLATE = """\
Resources:
  ChargeQueue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: charges
  Letters:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: letters
  SchedulerRole:
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
              - Effect: Allow
                Action: "sqs:SendMessage"
                Resource: [!GetAtt ChargeQueue.Arn, !GetAtt Letters.Arn]
  Nightly:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: nightly-charge
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {Mode: "OFF"}
      Target:
        Arn: !GetAtt ChargeQueue.Arn
        RoleArn: !GetAtt SchedulerRole.Arn
        DeadLetterConfig: {Arn: !GetAtt Letters.Arn}
  HourlyReport:
    Type: AWS::Events::Rule
    Properties:
      Name: hourly-report
      ScheduleExpression: rate(1 hour)
      Targets:
        - Id: charges
          Arn: !GetAtt ChargeQueue.Arn
  EventsMaySend:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues: [!Ref ChargeQueue]
      PolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal: {Service: events.amazonaws.com}
            Action: sqs:SendMessage
            Resource: !GetAtt ChargeQueue.Arn
            Condition:
              ArnEquals:
                aws:SourceArn: !GetAtt HourlyReport.Arn
"""

# A logical id misspelt inside the template: a StackError from deep in its resolution.
BROKEN = TEMPLATE.replace("!GetAtt SchedulerRole.Arn", "!GetAtt SchedulerRol.Arn")

HEAD = f"""
from datetime import timedelta
from pathlib import Path

import pytest

HERE = Path(__file__).parent
QUEUE = "{QUEUE}"


@pytest.fixture
def stack(schedemu):
    loaded = schedemu.load_stack(HERE / "billing.yaml")
    schedemu.clock.advance(timedelta(hours=2))
    return loaded
"""

#: id -> (the test's body, text its report must hold: the name meant, or the refusal).
MISTAKES = {
    "stack_name_lookup": ('schedemu.stack("billng")', "did you mean billing?"),
    "logical_id": ('stack.resource("ChargQueue")', "did you mean ChargeQueue?"),
    "construct_path": (
        'schedemu.load_stack(HERE / "cdk.out").resource("Billing/ChargQueue")',
        "did you mean Billing/ChargeQueue?",
    ),
    "invalid_stack_name": (
        'schedemu.load_stack(HERE / "billing.yaml", stack_name="bad.name")',
        "Value 'bad.name' at 'stackName' failed to satisfy constraint",
    ),
    "deliveries_schedule": ('schedemu.deliveries(schedule="nightly-charg")', "nightly-charge"),
    "assert_delivered_schedule": (
        'schedemu.assert_delivered(QUEUE, schedule="nightly-charg")',
        "nightly-charge",
    ),
    "fire_schedule": ('schedemu.fire("nightly-charg")', "nightly-charge"),
    "group": ('schedemu.deliveries(group="defalt")', "closest first: default"),
    "rule": ('schedemu.deliveries(rule="hourly-repor")', "closest first: hourly-report"),
    "target": ('schedemu.assert_delivered(QUEUE + "x")', f"Did you mean {QUEUE}?"),
    "queue": (
        'schedemu.assert_dead_lettered(QUEUE.replace("charges", "letter"))',
        f"Did you mean {LETTERS}?",
    ),
    "missing_template": (
        'schedemu.load_stack(HERE / "billng.yaml")',
        "did you mean billing.yaml?",
    ),
    "broken_template": (
        'schedemu.load_stack(HERE / "broken.yaml")',
        "no resource SchedulerRol; did you mean SchedulerRole?",
    ),
    "hand_written_trust": (
        'schedemu.iam.role("arn:aws:iam::123456789012:role/runner", trust="{not json")',
        "policy runner trust policy: is not JSON",
    ),
    "hand_written_policy": (
        'schedemu.iam.resource_policy(QUEUE, {"Statement": [{"Effect": "Maybe"}]})',
        "statement 0, element Effect: must be Allow or Deny, not 'Maybe'",
    ),
}


def _user_project(pytester: pytest.Pytester, tests: str) -> None:
    (pytester.path / "billing.yaml").write_text(TEMPLATE)
    (pytester.path / "broken.yaml").write_text(BROKEN)
    assembly = pytester.path / "cdk.out"
    assembly.mkdir()
    logical_id = "ChargeQueueAB12CD34"
    manifest = {
        "version": "36.0.0",
        "artifacts": {
            "Billing": {
                "type": "aws:cloudformation:stack",
                "environment": "aws://unknown-account/unknown-region",
                "properties": {"templateFile": "Billing.template.json"},
                "metadata": {
                    "/Billing/ChargeQueue/Resource": [
                        {"type": "aws:cdk:logicalId", "data": logical_id}
                    ]
                },
            }
        },
    }
    (assembly / "manifest.json").write_text(json.dumps(manifest))
    template = {"Resources": {logical_id: {"Type": "AWS::SQS::Queue"}}}
    (assembly / "Billing.template.json").write_text(json.dumps(template))
    pytester.makepyfile(test_mistakes=HEAD + tests)


def _report_of(output: str, test: str) -> list[str]:
    """The lines pytest's report gives ``test``, from its header to the next one."""
    body = output.split("short test summary info")[0]
    sections = re.split(r"\n(?=_{3,} .+ _{3,}\n)", body)
    found = [s for s in sections if re.match(rf"_{{3,}} (ERROR at setup of )?{test} _{{3,}}", s)]
    assert len(found) == 1, output
    return found[0].rstrip("\n").splitlines()


def _package_source_lines() -> set[str]:
    """Every line of the package's source that could not be mistaken for a user's."""
    package = Path(pytest_schedemu.__file__).parent
    lines = set()
    for path in package.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if len(stripped) > 12 and not stripped.startswith(("#", "import ", "from ")):
                lines.add(stripped)
    return lines


def _assert_short_and_at_the_users_line(report: list[str], meant: str) -> None:
    text = "\n".join(report)
    assert len(report) <= MOST_LINES, text
    assert meant in text, text
    assert "schedemu attempts" not in text, text
    assert not [line for line in report if "pytest_schedemu" + "/" in line], text
    package = _package_source_lines()
    # A source line shows as "    code" or ">   code" in a traceback.
    shown = {line.lstrip(">").strip() for line in report}
    assert not shown & package, text


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_mistake_fails_at_the_users_line_in_a_few_lines_naming_what_was_meant(
    pytester: pytest.Pytester, mistake: str
) -> None:
    body, meant = MISTAKES[mistake]
    _user_project(pytester, f"\n\ndef test_{mistake}(schedemu, stack):\n    {body}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    report = _report_of(result.stdout.str(), f"test_{mistake}")
    _assert_short_and_at_the_users_line(report, meant)
    assert any(line.startswith("test_mistakes.py:") for line in report), "\n".join(report)


def test_a_stacks_marker_naming_a_missing_file_fails_the_setup_in_a_few_lines(
    pytester: pytest.Pytester,
) -> None:
    _user_project(
        pytester,
        """

@pytest.mark.schedemu(stacks=["billng.yaml"])
def test_marked(schedemu):
    pass
""",
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    report = _report_of(result.stdout.str(), "test_marked")
    _assert_short_and_at_the_users_line(report, "did you mean billing.yaml?")
    # Said once: not again "during handling of the above exception".
    assert sum("billng.yaml: cannot be read" in line for line in report) == 1, report
