"""The control API's moves by events, pending work and fire now (of a schedule or a
rule), over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, JSON_TYPE, QUEUE, START
from tests.helpers import create


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START, transport="http") as emu:
        yield emu


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=START)
    return served


def call(emu: Emulator, method: str, route: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"{emu.endpoint_url}/_schedemu/{route}", data=data, method=method, headers=JSON_TYPE
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_next_moves_to_the_next_work_n_times(emu: Emulator) -> None:
    create(emu.client(), "quarter", "rate(15 minutes)")
    status, answer = call(emu, "POST", "clock/advance-to-next", {"n": 3})
    assert status == 200
    assert answer["now"] == "2026-03-01T10:30:00Z"
    assert answer["attempts_made"] == 3
    assert [a["scheduled_time"] for a in answer["attempts"]] == [
        "2026-03-01T10:00:00Z",
        "2026-03-01T10:15:00Z",
        "2026-03-01T10:30:00Z",
    ]


def test_next_without_a_body_takes_one_step_and_conflicts_when_nothing_is_pending(
    emu: Emulator,
) -> None:
    status, answer = call(emu, "POST", "clock/advance-to-next")
    assert status == 409 and "Nothing is pending" in answer["Message"]
    status, answer = call(emu, "POST", "clock/advance-to-next", {"n": 0})
    assert status == 400 and "n must be a whole number" in answer["Message"]


def test_until_idle_runs_a_retry_ladder_to_its_dead_letter(emu: Emulator) -> None:
    emu.target(QUEUE).fail()
    create(
        emu.client(),
        "once",
        "at(2026-03-01T10:00:00)",
        target={"RetryPolicy": {"MaximumRetryAttempts": 2}, "DeadLetterConfig": {"Arn": DLQ}},
    )
    status, answer = call(emu, "POST", "clock/run-until-idle", {"within": {"hours": 1}})
    assert status == 200
    assert answer["attempts_made"] == 3
    assert answer["now"] == "2026-03-01T10:03:00Z"
    assert len(emu.dead_letters(DLQ)) == 1


def test_until_idle_takes_seconds_and_answers_a_conflict_when_still_busy(emu: Emulator) -> None:
    emu.target(QUEUE).fail()
    create(
        emu.client(), "once", "at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}}
    )
    status, answer = call(emu, "POST", "clock/run-until-idle", {"within": 120})
    assert status == 409
    assert "Still busy" in answer["Message"] and "retry of default/once" in answer["Message"]
    status, answer = call(emu, "POST", "clock/run-until-idle", {"within": {"fortnights": 1}})
    assert status == 400 and "fortnights" in answer["Message"]
    status, answer = call(emu, "POST", "clock/run-until-idle", {})
    assert status == 400 and '{"within": {"hours": 24}}' in answer["Message"]


def test_pending_lists_the_work_ahead(emu: Emulator) -> None:
    create(emu.client(), "hourly", "rate(1 hour)")
    create(emu.client(), "later", "at(2026-03-01T12:00:00)")
    status, answer = call(emu, "GET", "pending?limit=1")
    assert status == 200
    assert answer["pending"] == [
        {
            "due": "2026-03-01T10:00:00Z",
            "kind": "occurrence",
            "schedule_name": "hourly",
            "group_name": "default",
            "schedule_arn": "arn:aws:scheduler:us-east-1:123456789012:schedule/default/hourly",
            "target_arn": QUEUE,
            "attempt_number": 1,
            "scheduled_time": "2026-03-01T10:00:00Z",
            "fired": False,
            "rule_arn": None,
            "rule_name": None,
            "target_id": None,
            "source": "schedule",
        }
    ]
    assert len(call(emu, "GET", "pending")[1]["pending"]) == 2


def test_fire_runs_a_schedule_now_by_group_and_name(emu: Emulator) -> None:
    create(emu.client(), "daily", "cron(0 9 * * ? *)")
    status, answer = call(emu, "POST", "schedules/default/daily/fire")
    assert status == 200
    assert answer["now"] == "2026-03-01T10:00:00Z"
    assert answer["attempt"]["fired"] is True and answer["attempt"]["succeeded"] is True
    assert [a.fired for a in emu.deliveries()] == [True]


def test_fire_of_an_unknown_schedule_is_not_found(emu: Emulator) -> None:
    create(emu.client(), "daily", "rate(1 day)")
    status, answer = call(emu, "POST", "schedules/default/dialy/fire")
    assert status == 404 and "No schedule 'dialy'" in answer["Message"]
    status, answer = call(emu, "POST", "schedules/default/daily/fire/now")
    assert status == 404 and answer["__type"] == "UnknownOperationException"
    status, answer = call(emu, "GET", "schedules/default/daily/fire")
    assert status == 404 and answer["__type"] == "UnknownOperationException"


def scheduled_rule(emu: Emulator, region: str | None = None) -> None:
    events = emu.client("events", **({} if region is None else {"region_name": region}))
    events.put_rule(Name="hourly", ScheduleExpression="rate(1 hour)")
    events.put_targets(
        Rule="hourly",
        Targets=[{"Id": "queue", "Arn": QUEUE}, {"Id": "letters", "Arn": DLQ}],
    )


def test_fire_runs_a_rule_now_for_every_target_sharing_one_event(emu: Emulator) -> None:
    scheduled_rule(emu)
    status, answer = call(emu, "POST", "rules/hourly/fire")
    assert status == 200 and answer["now"] == "2026-03-01T10:00:00Z"
    attempts = answer["attempts"]
    assert [(a["target_id"], a["fired"], a["succeeded"]) for a in attempts] == [
        ("queue", True, True),
        ("letters", True, True),
    ]
    assert attempts[0]["event_id"] == attempts[1]["event_id"]
    assert [a.execution_id for a in emu.deliveries(rule="hourly")] == [
        a["execution_id"] for a in attempts
    ]


def test_fire_runs_one_target_of_a_rule_in_the_region_named(emu: Emulator) -> None:
    scheduled_rule(emu)
    scheduled_rule(emu, "eu-west-1")
    body = {"target_id": "letters", "region": "eu-west-1", "account_id": "123456789012"}
    status, answer = call(emu, "POST", "rules/hourly/fire", body)
    assert status == 200
    (attempt,) = answer["attempts"]
    assert (attempt["target_id"], attempt["rule_arn"]) == (
        "letters",
        "arn:aws:events:eu-west-1:123456789012:rule/hourly",
    )


def test_fire_of_an_unknown_rule_or_target_is_not_found(emu: Emulator) -> None:
    scheduled_rule(emu)
    status, answer = call(emu, "POST", "rules/hourli/fire")
    assert (status, answer["__type"]) == (404, "ResourceNotFoundException")
    assert "No rule 'hourli'" in answer["Message"] and "closest first: hourly" in answer["Message"]
    status, answer = call(emu, "POST", "rules/hourly/fire", {"target_id": "queu"})
    assert status == 404
    assert "no target 'queu'; its targets, closest first: queue" in answer["Message"]
    status, answer = call(emu, "GET", "rules/hourly/fire")
    assert status == 404 and answer["__type"] == "UnknownOperationException"
    assert emu.attempts() == []


def test_fire_of_a_rule_refuses_a_bad_body_and_a_rule_without_a_schedule(emu: Emulator) -> None:
    scheduled_rule(emu)
    status, answer = call(emu, "POST", "rules/hourly/fire", {"target_id": 3})
    assert (status, answer["__type"]) == (400, "ValidationException")
    assert "target_id must be a non-empty string, not 3" in answer["Message"]
    emu.client("events").put_rule(Name="orders", EventPattern='{"source": ["orders"]}')
    status, answer = call(emu, "POST", "rules/orders/fire")
    assert (status, answer["__type"]) == (400, "ValidationException")
    assert "no ScheduleExpression" in answer["Message"]
