"""SAM templates, translated by the real aws-sam-translator, never calling AWS."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.errors import StackError
from pytest_schedemu.stacks import ResolvedStack, read_stack
from tests.stacks.building import ACCOUNT, REGION, SEED

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "stacks" / "sam" / "template.yaml"


@pytest.fixture(scope="module")
def reminders() -> ResolvedStack:
    return read_stack(EXAMPLE, account=ACCOUNT, region=REGION, seed=SEED, stack_name="reminders")


def test_a_schedule_v2_event_becomes_a_schedule_to_its_function(reminders: ResolvedStack) -> None:
    (schedule,) = reminders.of_type("AWS::Scheduler::Schedule")
    function = reminders.resource("SendReminders")
    properties = schedule.properties
    assert properties["ScheduleExpression"] == "cron(0 9 ? * MON-FRI *)"
    assert properties["ScheduleExpressionTimezone"] == "Europe/Paris"
    target = properties["Target"]
    assert target["Arn"] == function.arn
    assert target["Arn"].startswith(f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:reminders-")
    assert json.loads(target["Input"]) == {
        "kind": "morning",
        "at": "<aws.scheduler.scheduled-time>",
    }
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 4, "MaximumEventAgeInSeconds": 3600}
    assert target["DeadLetterConfig"]["Arn"] == reminders.resource("ReminderDeadLetters").arn
    assert target["RoleArn"].startswith(f"arn:aws:iam::{ACCOUNT}:role/reminders-")


def test_a_schedule_event_becomes_a_rule_that_resolves(reminders: ResolvedStack) -> None:
    (rule,) = reminders.of_type("AWS::Events::Rule")
    assert rule.properties["ScheduleExpression"] == "rate(1 day)"
    assert rule.properties["Targets"][0]["Arn"] == reminders.resource("CleanUp").arn
    assert rule.arn == f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{rule.physical_name}"


def test_parameters_reach_the_translated_template() -> None:
    stack = read_stack(
        EXAMPLE, account=ACCOUNT, region=REGION, seed=SEED, parameters={"Stage": "prod"}
    )
    variables = stack.resource("SendReminders").properties["Environment"]["Variables"]
    assert variables == {"STAGE": "prod"}


def test_an_invalid_sam_template_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(
        "Transform: AWS::Serverless-2016-10-31\n"
        "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties: {Events: 3}\n"
    )
    with pytest.raises(StackError, match=r"template\.yaml: SAM translation failed: "):
        read_stack(path, account=ACCOUNT, region=REGION, seed=SEED)


def test_without_the_translator_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def without_samtranslator(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("samtranslator"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_samtranslator)
    with pytest.raises(StackError, match=r"pip install 'pytest-schedemu\[sam\]'"):
        read_stack(EXAMPLE, account=ACCOUNT, region=REGION, seed=SEED)


def test_another_transform_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(
        "Transform: AWS::LanguageExtensions\nResources:\n  Q: {Type: AWS::SQS::Queue}\n"
    )
    with pytest.raises(StackError, match="Transform AWS::LanguageExtensions is not supported"):
        read_stack(path, account=ACCOUNT, region=REGION, seed=SEED)
