"""Inputs that once broke the service: each answers a clear 4xx now, and changes nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import JSON_TYPE, QUEUE, ROLE, START


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START, transport="http") as emu:
        yield emu


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=START)
    return served


def send(emu: Emulator, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        emu.endpoint_url + path, data=body, method=method, headers=JSON_TYPE
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_a_400_digit_number_is_refused_by_name(emu: Emulator) -> None:
    status, body = send(emu, "POST", "/_schedemu/clock/advance", b'{"days": 1' + b"0" * 400 + b"}")
    assert (status, body["__type"]) == (400, "ValidationException")
    assert "days 1000" in body["Message"] and "out of range" in body["Message"]
    assert emu.clock.now().isoformat() == "2026-03-01T10:00:00+00:00"


@pytest.mark.parametrize("path", ["/_schedemu/clock/move-to", "/_schedemu/reset"])
def test_a_time_past_the_year_9999_in_utc_is_refused(emu: Emulator, path: str) -> None:
    key = "time" if "move" in path else "start"
    status, body = send(emu, "POST", path, json.dumps({key: "9999-12-31T23:59:59-01:00"}).encode())
    assert (status, body["__type"]) == (400, "ValidationException")
    assert "9999-12-31T23:59:59-01:00" in body["Message"]


def test_the_python_api_raises_value_error_for_such_a_time() -> None:
    with pytest.raises(ValueError, match="after the year 9999"):
        Emulator(start="9999-12-31T23:59:59-01:00")


def test_a_schedule_date_past_the_year_9999_is_a_validation_error(emu: Emulator) -> None:
    body = {
        "ScheduleExpression": "rate(1 hour)",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {"Arn": QUEUE, "RoleArn": ROLE},
        "EndDate": "9999-12-31T23:59:59-01:00",
    }
    status, answer = send(emu, "POST", "/schedules/s", json.dumps(body).encode())
    assert (status, answer["__type"]) == (400, "ValidationException")
    assert "9999-12-31T23:59:59-01:00" in answer["Message"]
    assert emu.schedules() == []


@pytest.mark.parametrize("depth", [200, 980, 5000])
def test_deep_nesting_is_a_400_on_both_apis(emu: Emulator, depth: int) -> None:
    nested = b"[" * depth + b"]" * depth
    status, body = send(emu, "POST", "/schedules/s", b'{"Target": ' + nested + b"}")
    assert (status, body["__type"]) == (400, "SerializationException")
    status, body = send(emu, "POST", "/_schedemu/clock/advance", b'{"days": ' + nested + b"}")
    assert status == 400
    assert emu.server_errors == []


def test_a_runaway_move_answers_a_modelled_error_with_the_instant_it_stopped(
    emu: Emulator,
) -> None:
    emu.reset(max_attempts_per_advance=10)
    client = emu.client()
    client.create_schedule(
        Name="s",
        ScheduleExpression="rate(1 minute)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    emu.target(QUEUE).handle(lambda attempt: None)  # item by item, no bulk play
    status, body = send(emu, "POST", "/_schedemu/clock/advance", b'{"hours": 1}')
    assert (status, body["__type"]) == (402, "ServiceQuotaExceededException")
    assert "max_attempts_per_advance=10" in body["Message"]
    assert body["now"] == "2026-03-01T10:10:00Z"


def test_a_move_answers_a_bounded_page_of_its_attempts(emu: Emulator) -> None:
    client = emu.client()
    client.create_schedule(
        Name="s",
        ScheduleExpression="rate(1 minute)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    status, body = send(emu, "POST", "/_schedemu/clock/advance?limit=5", b'{"days": 1}')
    assert status == 200
    assert (body["attempt_count"], len(body["attempts"]), body["truncated"]) == (1441, 5, True)
    status, body = send(emu, "POST", "/_schedemu/clock/tick?limit=0", b"")
    assert (body["attempt_count"], body["attempts"], body["truncated"]) == (0, [], False)


def test_lists_come_in_pages_that_never_repeat_or_skip(emu: Emulator) -> None:
    client = emu.client()
    client.create_schedule(
        Name="s",
        ScheduleExpression="rate(1 minute)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    emu.clock.advance(minutes=99)
    seen: list[str] = []
    token = None
    while True:
        query = "limit=30" + (f"&next_token={token}" if token else "")
        status, body = send(emu, "GET", f"/_schedemu/attempts?schedule=s&{query}")
        assert status == 200 and len(body["attempts"]) <= 30
        seen += [a["scheduled_time"] for a in body["attempts"]]
        token = body["next_token"]
        if token is None:
            break
    assert len(seen) == len(set(seen)) == 100
    status, body = send(emu, "GET", "/_schedemu/attempts?limit=30&next_token=bogus")
    assert (status, body["__type"]) == (400, "ValidationException")
    status, body = send(emu, "GET", "/_schedemu/attempts?limit=100001")
    assert status == 400


def test_max_records_bounds_dead_letters_and_activity_too() -> None:
    dlq = "arn:aws:sqs:us-east-1:123456789012:dlq"
    with Emulator(start=START, max_records=50) as emu:
        emu.target(QUEUE).fail(retryable=False)
        emu.client().create_schedule(
            Name="s",
            ScheduleExpression="rate(1 minute)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE, "DeadLetterConfig": {"Arn": dlq}},
        )
        emu.clock.advance(hours=5)
        assert len(emu.dead_letters()) <= 50 and len(emu.activity()) <= 50
        dropped = emu.dropped_records
        assert dropped.dead_letters > 200 and dropped.activity > 200
        # Every attempt failed for good and sent one dead letter, kept or dropped alike.
        made = len(emu.attempts()) + dropped.attempts
        assert len(emu.dead_letters()) + dropped.dead_letters == made == 301
