"""PutTargets, RemoveTargets, ListTargetsByRule and ListRuleNamesByTarget."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE
from tests.helpers import error_of
from tests.rules.rulebook import PATTERN, stored_rules, target, without_metadata

FIFO = "arn:aws:sqs:us-east-1:123456789012:jobs.fifo"


@pytest.fixture
def rule(events: Any) -> str:
    events.put_rule(Name="r1", ScheduleExpression="rate(5 minutes)")
    return "r1"


def test_targets_are_answered_as_they_were_sent(events: Any, rule: str) -> None:
    sent = [
        target(
            "to-queue",
            Input=json.dumps({"job": 1}),
            RetryPolicy={"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 600},
            DeadLetterConfig={"Arn": DLQ},
        ),
        target(
            "to-function",
            FUNCTION,
            InputTransformer={
                "InputPathsMap": {"when": "$.time"},
                "InputTemplate": '{"at": <when>, "rule": <aws.events.rule-name>}',
            },
        ),
        target("to-fifo", FIFO, RoleArn=ROLE, SqsParameters={"MessageGroupId": "g"}),
    ]
    response = events.put_targets(Rule=rule, Targets=sent)
    assert without_metadata(response) == {"FailedEntries": [], "FailedEntryCount": 0}
    assert events.list_targets_by_rule(Rule=rule)["Targets"] == sent


def test_a_target_put_again_under_its_id_is_replaced_and_the_last_of_a_request_wins(
    events: Any, rule: str
) -> None:
    events.put_targets(Rule=rule, Targets=[target(InputPath="$.detail")])
    events.put_targets(
        Rule=rule, Targets=[target(InputPath="$.first"), target(InputPath="$.second")]
    )
    assert events.list_targets_by_rule(Rule=rule)["Targets"] == [target(InputPath="$.second")]


def test_one_bad_target_fails_alone_and_the_rest_are_applied(events: Any, rule: str) -> None:
    response = events.put_targets(
        Rule=rule, Targets=[target("bad-arn", "my-queue"), target("ok"), target("fifo", FIFO)]
    )
    assert without_metadata(response) == {
        "FailedEntries": [
            {
                "ErrorCode": "ValidationException",
                "ErrorMessage": "Parameter my-queue is not valid. Reason: Provided Arn is not "
                "in correct format.",
                "TargetId": "bad-arn",
            },
            {
                "ErrorCode": "ValidationException",
                "ErrorMessage": "Parameter(s) SqsParameters must be specified for target: fifo.",
                "TargetId": "fifo",
            },
        ],
        "FailedEntryCount": 2,
    }
    assert [t["Id"] for t in events.list_targets_by_rule(Rule=rule)["Targets"]] == ["ok"]


@pytest.mark.parametrize(
    "letters",
    [
        "arn:aws:sns:us-east-1:123456789012:alerts",
        FIFO,
        "my-dlq",
        "arn:aws:sqs:eu-west-1:123456789012:dlq",
    ],
    ids=["a topic", "a fifo queue", "not an arn", "another region"],
)
def test_a_dead_letter_queue_that_is_not_a_standard_queue_fails_its_target(
    events: Any, rule: str, letters: str
) -> None:
    response = events.put_targets(
        Rule=rule, Targets=[target("kept"), target("lost", DeadLetterConfig={"Arn": letters})]
    )
    (failed,) = response["FailedEntries"]
    assert failed["TargetId"] == "lost" and failed["ErrorCode"] == "ValidationException"
    assert (
        letters in failed["ErrorMessage"] and "standard Amazon SQS queue" in failed["ErrorMessage"]
    )
    assert [t["Id"] for t in events.list_targets_by_rule(Rule=rule)["Targets"]] == ["kept"]


def test_a_sixth_target_is_refused_whole_and_nothing_changes(events: Any, rule: str) -> None:
    events.put_targets(Rule=rule, Targets=[target(f"t{n}") for n in range(4)])
    with pytest.raises(events.exceptions.LimitExceededException) as excinfo:
        events.put_targets(
            Rule=rule, Targets=[target("t3", InputPath="$.x"), target("t4"), target("t5")]
        )
    assert error_of(excinfo) == {
        "code": "LimitExceededException",
        "message": "The requested resource exceeds the maximum number allowed.",
        "status": 400,
    }
    assert events.list_targets_by_rule(Rule=rule)["Targets"] == [target(f"t{n}") for n in range(4)]
    # Replacing one of five is no sixth.
    events.put_targets(Rule=rule, Targets=[target("t4"), target("t0", InputPath="$.x")])
    assert len(events.list_targets_by_rule(Rule=rule)["Targets"]) == 5


@pytest.mark.parametrize(
    ("members", "message"),
    [
        (
            {"Input": "{}", "InputPath": "$.detail"},
            "Only one of Input, InputPath, or InputTransformer must be provided for target t1.",
        ),
        (
            {"InputPath": "$.detail", "InputTransformer": {"InputTemplate": '"x"'}},
            "Only one of Input, InputPath, or InputTransformer must be provided for target t1.",
        ),
        (
            {
                "InputTransformer": {
                    "InputPathsMap": {"type": "$.detail-type"},
                    "InputTemplate": '"Event of <type> with <notdefinedkey>"',
                }
            },
            "InputTemplate for target t1 contains invalid placeholder notdefinedkey.",
        ),
    ],
)
def test_input_aws_refuses_refuses_the_whole_request(
    events: Any, rule: str, members: dict[str, Any], message: str
) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_targets(Rule=rule, Targets=[target("ok"), target(**members)])
    assert error_of(excinfo) == {"code": "ValidationException", "message": message, "status": 400}
    assert events.list_targets_by_rule(Rule=rule)["Targets"] == []


def test_input_must_be_json(events: Any, rule: str) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_targets(Rule=rule, Targets=[target(Input="{'db': 1}")])
    assert error_of(excinfo)["message"].startswith("JSON syntax error in input for target t1: ")


@pytest.mark.parametrize(
    ("policy", "path", "constraint"),
    [
        ({"MaximumRetryAttempts": 186}, "maximumRetryAttempts", "less than or equal to 185"),
        (
            {"MaximumEventAgeInSeconds": 59},
            "maximumEventAgeInSeconds",
            "greater than or equal to 60",
        ),
        (
            {"MaximumEventAgeInSeconds": 86401},
            "maximumEventAgeInSeconds",
            "less than or equal to 86400",
        ),
    ],
)
def test_retry_policy_ranges(
    lax_events: Any, rule: str, policy: dict[str, int], path: str, constraint: str
) -> None:
    with pytest.raises(lax_events.exceptions.ClientError) as excinfo:
        lax_events.put_targets(Rule=rule, Targets=[target(RetryPolicy=policy)])
    value = next(iter(policy.values()))
    assert error_of(excinfo)["message"] == (
        f"1 validation error detected: Value '{value}' at 'targets.1.member.retryPolicy.{path}' "
        f"failed to satisfy constraint: Member must have value {constraint}"
    )


def test_a_target_id_aws_refuses(lax_events: Any, rule: str) -> None:
    with pytest.raises(lax_events.exceptions.ClientError) as excinfo:
        lax_events.put_targets(Rule=rule, Targets=[target("!@#$@!#$")])
    assert error_of(excinfo)["message"] == (
        "1 validation error detected: Value '!@#$@!#$' at 'targets.1.member.id' failed to "
        r"satisfy constraint: Member must satisfy regular expression pattern: [\.\-_A-Za-z0-9]+"
    )


def test_targets_of_a_missing_rule(events: Any) -> None:
    with pytest.raises(events.exceptions.ResourceNotFoundException) as excinfo:
        events.put_targets(Rule="nope", Targets=[target()])
    assert error_of(excinfo)["message"] == "Rule nope does not exist on EventBus default."
    with pytest.raises(events.exceptions.ResourceNotFoundException):
        events.list_targets_by_rule(Rule="nope")
    with pytest.raises(events.exceptions.ResourceNotFoundException):
        events.remove_targets(Rule="nope", Ids=["t1"])


def test_remove_targets_reports_each_id_the_rule_does_not_have(events: Any, rule: str) -> None:
    events.put_targets(Rule=rule, Targets=[target("a"), target("b")])
    response = events.remove_targets(Rule=rule, Ids=["a", "typo"])
    assert without_metadata(response) == {
        "FailedEntries": [
            {
                "ErrorCode": "ResourceNotFoundException",
                "ErrorMessage": "Rule r1 does not have a target with the Id typo.",
                "TargetId": "typo",
            }
        ],
        "FailedEntryCount": 1,
    }
    assert events.list_targets_by_rule(Rule=rule)["Targets"] == [target("b")]


def test_list_targets_by_rule_pages(events: Any, rule: str) -> None:
    events.put_targets(Rule=rule, Targets=[target(f"t{n}") for n in range(5)])
    first = events.list_targets_by_rule(Rule=rule, Limit=3)
    assert [t["Id"] for t in first["Targets"]] == ["t0", "t1", "t2"]
    second = events.list_targets_by_rule(Rule=rule, NextToken=first["NextToken"])
    assert [t["Id"] for t in second["Targets"]] == ["t3", "t4"]
    assert "NextToken" not in second


def test_rule_names_by_target(events: Any) -> None:
    for name in ("c", "a", "b", "other"):
        events.put_rule(Name=name, EventPattern=PATTERN)
        arn = QUEUE if name != "other" else FUNCTION
        events.put_targets(Rule=name, Targets=[target(arn=arn)])
    first = events.list_rule_names_by_target(TargetArn=QUEUE, Limit=2)
    assert first["RuleNames"] == ["a", "b"]
    second = events.list_rule_names_by_target(TargetArn=QUEUE, NextToken=first["NextToken"])
    assert (second["RuleNames"], "NextToken" in second) == (["c"], False)
    assert events.list_rule_names_by_target(TargetArn=DLQ)["RuleNames"] == []


def test_targets_are_stored_for_the_dispatcher_as_firing_reads_them(
    emu: Emulator, events: Any, rule: str
) -> None:
    events.put_targets(
        Rule=rule,
        Targets=[
            target(
                RoleArn=ROLE,
                InputPath="$.detail",
                RetryPolicy={"MaximumRetryAttempts": 2},
                DeadLetterConfig={"Arn": DLQ},
                SqsParameters={"MessageGroupId": "g"},
            )
        ],
    )
    (stored,) = stored_rules(emu)[0].targets
    assert (stored.id, stored.arn, stored.role_arn, stored.input_path) == (
        "t1",
        QUEUE,
        ROLE,
        "$.detail",
    )
    assert (
        stored.retry_policy.maximum_retry_attempts,
        stored.retry_policy.maximum_event_age_in_seconds,
    ) == (2, 86400)
    assert (stored.dead_letter_arn, dict(stored.parameters)) == (
        DLQ,
        {"SqsParameters": {"MessageGroupId": "g"}},
    )
