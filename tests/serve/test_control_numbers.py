"""Every number the control API takes, given out of its range or of the wrong type, is a 400
``ValidationException`` that names the field and its range, and changes nothing."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import JSON_TYPE, QUEUE, START
from tests.helpers import create

#: JSON texts no number field takes: infinity (JSON reads 1e400 so), huge, negative, a bool,
#: a string, and a whole number of 400 digits.
BAD_NUMBERS = ["1e400", "-1e400", "1e30", "-1", "true", '"5"', "1" + "0" * 400]
#: Also refused where a whole number is asked for.
BAD_WHOLE_NUMBERS = [*BAD_NUMBERS, "0", "2.5", "1e30"]

#: (route, the body around the value (VALUE), the field named, the range named).
BODY_FIELDS = [
    *(
        ("clock/advance", '{"' + unit + '": VALUE}', unit, f"from 0 to {most}")
        for unit, most in [
            ("seconds", 315537897600),
            ("minutes", 5258964960),
            ("hours", 87649416),
            ("days", 3652059),
            ("weeks", 521722),
        ]
    ),
    ("clock/run-until-idle", '{"within": VALUE}', "within", "from 0 to 315537897600"),
    ("clock/run-until-idle", '{"within": {"hours": VALUE}}', "hours", "from 0 to 87649416"),
    (
        "clock/run-until-idle",
        '{"within": {"days": 1, "weeks": VALUE}}',
        "weeks",
        "from 0 to 521722",
    ),
]
WHOLE_FIELDS = [
    ("clock/advance-to-next", '{"n": VALUE}', "n", "from 1 to 100000"),
    ("targets/fail", '{"arn": "' + QUEUE + '", "times": VALUE}', "times", "from 1 to 1000000000"),
]
#: (method, route, query parameter, range named).
QUERY_FIELDS = [
    ("POST", "clock/advance", "limit", "from 0 to 10000"),
    ("POST", "clock/advance-to-next", "limit", "from 0 to 10000"),
    ("GET", "attempts", "limit", "from 0 to 10000"),
    ("GET", "pending", "limit", "from 0 to 10000"),
    ("GET", "schedules", "limit", "from 0 to 10000"),
    ("GET", "timeline", "width", "from 640 to 4000"),
]
BAD_QUERY_VALUES = ["1e30", "-1", "inf", "nan", "true", "2.5", "1" + "0" * 5000, "9" * 30]


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START, transport="http") as emu:
        yield emu


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=START)
    create(served.client(), "hourly", "rate(1 hour)")
    return served


def send(emu: Emulator, method: str, path: str, body: str | None) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"{emu.endpoint_url}/_schedemu/{path}",
        data=None if body is None else body.encode(),
        method=method,
        headers=JSON_TYPE,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def assert_refused(emu: Emulator, answer: tuple[int, Any], field: str, allowed: str) -> None:
    status, body = answer
    assert (status, body.get("__type")) == (400, "ValidationException"), body
    assert field in body["Message"] and allowed in body["Message"], body["Message"]
    assert "Python" not in body["Message"] and "C int" not in body["Message"]
    # Nothing moved, nothing was made, and the target was not told to fail.
    assert emu.clock.now().isoformat() == "2026-03-01T10:00:00+00:00"
    assert emu.attempts() == []
    made = emu.clock.advance(hours=1)
    assert [attempt.succeeded for attempt in made] == [True, True]


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("route, body, field, allowed", BODY_FIELDS)
def test_a_bad_span_is_refused_by_name_and_range(
    emu: Emulator, route: str, body: str, field: str, allowed: str, value: str
) -> None:
    answer = send(emu, "POST", route, body.replace("VALUE", value))
    assert_refused(emu, answer, field, allowed)


@pytest.mark.parametrize("value", BAD_WHOLE_NUMBERS)
@pytest.mark.parametrize("route, body, field, allowed", WHOLE_FIELDS)
def test_a_bad_count_is_refused_by_name_and_range(
    emu: Emulator, route: str, body: str, field: str, allowed: str, value: str
) -> None:
    answer = send(emu, "POST", route, body.replace("VALUE", value))
    assert_refused(emu, answer, field, allowed)


@pytest.mark.parametrize("value", BAD_QUERY_VALUES)
@pytest.mark.parametrize("method, route, field, allowed", QUERY_FIELDS)
def test_a_bad_query_number_is_refused_by_name_and_range(
    emu: Emulator, method: str, route: str, field: str, allowed: str, value: str
) -> None:
    body = '{"hours": 1}' if route == "clock/advance" else "{}" if method == "POST" else None
    answer = send(emu, method, f"{route}?{field}={value}", body)
    assert_refused(emu, answer, field, allowed)


def test_the_largest_counts_are_taken() -> None:
    with Emulator(start=START, transport="http") as emu:
        create(emu.client(), "hourly", "rate(1 hour)")
        status, answer = send(
            emu, "POST", "targets/fail", '{"arn": "' + QUEUE + '", "times": 1000000000}'
        )
        assert status == 200, answer
        status, answer = send(emu, "POST", "clock/advance-to-next?limit=10000", '{"n": 3}')
        assert (status, answer["attempts_made"]) == (200, 3)
        assert not any(attempt["succeeded"] for attempt in answer["attempts"])


def test_next_with_a_huge_n_answers_at_once_and_moves_nothing(emu: Emulator) -> None:
    for n in ("1e30", "1" + "0" * 30):
        began = time.monotonic()
        answer = send(emu, "POST", "clock/advance-to-next", '{"n": ' + n + "}")
        assert time.monotonic() - began < 5
        assert_refused(emu, answer, "n", "from 1 to 100000")
        emu.reset(start=START)
        create(emu.client(), "hourly", "rate(1 hour)")
