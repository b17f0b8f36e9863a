"""The control API's list of EventBridge rules, with their targets, over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, QUEUE, START
from tests.rules.rulebook import PATTERN, RULE_ARN, target


def listed(emu: Emulator, query: str = "") -> tuple[int, Any]:
    url = f"{emu.endpoint_url}/_schedemu/rules{'?' + query if query else ''}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_rules_are_listed_with_their_targets(emu: Emulator, events: Any) -> None:
    events.put_rule(
        Name="r1",
        ScheduleExpression="rate(5 minutes)",
        Description="every five",
        Tags=[{"Key": "team", "Value": "billing"}],
    )
    sent = target(
        Input='{"job": 1}', RetryPolicy={"MaximumRetryAttempts": 2}, DeadLetterConfig={"Arn": DLQ}
    )
    events.put_targets(Rule="r1", Targets=[sent])
    status, answer = listed(emu)
    assert (status, answer["total"], answer["next_token"]) == (200, 1, None)
    assert answer["rules"] == [
        {
            "arn": RULE_ARN,
            "name": "r1",
            "event_bus_name": "default",
            "account_id": "123456789012",
            "region": "us-east-1",
            "state": "ENABLED",
            "schedule_expression": "rate(5 minutes)",
            "event_pattern": None,
            "description": "every five",
            "role_arn": None,
            "managed_by": None,
            "fires": True,
            "stack": None,
            "logical_id": None,
            "creation_date": START,
            "activated_at": START,
            "tags": {"team": "billing"},
            "next_occurrence": "2026-03-01T10:05:00Z",
            "targets": [
                {
                    "id": "t1",
                    "arn": QUEUE,
                    "role_arn": None,
                    "input": '{"job": 1}',
                    "input_path": None,
                    "input_transformer": None,
                    "dead_letter_arn": DLQ,
                    "maximum_retry_attempts": 2,
                    "maximum_event_age_in_seconds": 86400,
                    "parameters": {},
                    "raw": sent,
                    "next_occurrence": "2026-03-01T10:05:00Z",
                    "last_execution": None,
                }
            ],
        }
    ]


def test_filters_and_pages(emu: Emulator, events: Any) -> None:
    events.put_rule(Name="a-pattern", EventPattern=PATTERN)
    events.put_rule(Name="b-off", ScheduleExpression="rate(1 hour)", State="DISABLED")
    for name in ("c1", "c2", "c3"):
        events.put_rule(Name=name, ScheduleExpression="rate(1 hour)")
    other = emu.client("events", region_name="eu-west-1")
    other.put_rule(Name="c0", ScheduleExpression="rate(1 hour)")

    def names(query: str) -> list[str]:
        return [rule["name"] for rule in listed(emu, query)[1]["rules"]]

    # By account, region, bus and name: eu-west-1 before us-east-1.
    assert names("") == ["c0", "a-pattern", "b-off", "c1", "c2", "c3"]
    assert names("schedule=false") == ["a-pattern"]
    assert names("state=DISABLED") == ["b-off"]
    assert names("region=eu-west-1") == ["c0"]
    assert names("prefix=c&region=us-east-1") == ["c1", "c2", "c3"]
    assert [rule["fires"] for rule in listed(emu, "prefix=b")[1]["rules"]] == [False]
    _, first = listed(emu, "prefix=c&limit=2")
    assert ([rule["name"] for rule in first["rules"]], first["total"]) == (["c0", "c1"], 4)
    _, second = listed(emu, f"prefix=c&limit=2&next_token={first['next_token']}")
    assert ([rule["name"] for rule in second["rules"]], second["next_token"]) == (
        ["c2", "c3"],
        None,
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("state=PAUSED", "Invalid state 'PAUSED'"),
        ("schedule=maybe", "Invalid schedule 'maybe'"),
        ("limit=-1", "Invalid limit '-1'"),
    ],
)
def test_a_bad_filter_is_refused(emu: Emulator, query: str, message: str) -> None:
    status, answer = listed(emu, query)
    assert (status, answer["__type"]) == (400, "ValidationException")
    assert answer["Message"].startswith(message)


def test_each_target_shows_its_newest_run_and_a_rule_its_next_occurrence(
    emu: Emulator, events: Any
) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="r1", Targets=[target("a"), target("b")])
    emu.clock.advance(minutes=5)
    emu.fire_rule("r1", "b")
    (rule,) = listed(emu)[1]["rules"]
    assert rule["next_occurrence"] == "2026-03-01T11:00:00Z"
    runs = {t["id"]: t["last_execution"] for t in rule["targets"]}
    assert runs["a"] is None
    assert runs["b"] == {
        "scheduled_time": "2026-03-01T10:05:00Z",
        "status": "success",
        "fired": True,
        "attempt_count": 1,
        "event_id": emu.deliveries(rule="r1")[0].event_id,
    }
    events.disable_rule(Name="r1")
    (rule,) = listed(emu)[1]["rules"]
    assert rule["next_occurrence"] is None
    assert [t["next_occurrence"] for t in rule["targets"]] == [None, None]
