"""The clock's control routes are named after its Python verbs; the names they had before
answer as their successors do for one more release, and say so in their headers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import JSON_TYPE, START
from tests.helpers import create

#: (old route, new route, a body).
RENAMED = [
    ("clock/next", "clock/advance-to-next", {"n": 2}),
    ("clock/until-idle", "clock/run-until-idle", {"within": {"hours": 1}}),
    ("tick", "clock/tick", {}),
]


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START, transport="http") as emu:
        yield emu


def post(emu: Emulator, route: str, body: Any) -> tuple[int, dict[str, str], Any]:
    """The status, headers and JSON body of ``POST /_schedemu/<route>``, after a reset with
    a schedule due now and every quarter of an hour, and a one-time one an hour ahead."""
    emu.reset(start=START)
    create(emu.client(), "quarter", "rate(15 minutes)")
    create(emu.client(), "once", "at(2026-03-01T10:30:00)")
    request = urllib.request.Request(
        f"{emu.endpoint_url}/_schedemu/{route}",
        data=json.dumps(body).encode(),
        method="POST",
        headers=JSON_TYPE,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def without_request_id(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name.lower() == "content-type"}


@pytest.mark.parametrize(("old", "new", "body"), RENAMED, ids=[old for old, _, _ in RENAMED])
def test_an_old_route_answers_as_its_successor_and_names_it(
    served: Emulator, old: str, new: str, body: Any
) -> None:
    new_status, new_headers, new_answer = post(served, new, body)
    old_status, old_headers, old_answer = post(served, old, body)
    assert new_status == 200 and new_answer["attempts_made"] > 0
    assert (old_status, old_answer) == (new_status, new_answer)
    assert without_request_id(old_headers) == without_request_id(new_headers)
    assert old_headers["Deprecation"] == "true"
    assert old_headers["Link"] == f'</_schedemu/{new}>; rel="successor-version"'
    assert "Deprecation" not in new_headers and "Link" not in new_headers


def test_an_old_routes_error_answer_names_its_successor_too(served: Emulator) -> None:
    new = post(served, "clock/advance-to-next", {"n": 0})
    status, headers, answer = post(served, "clock/next", {"n": 0})
    assert (status, answer) == (new[0], new[2])
    assert status == 400 and answer["__type"] == "ValidationException"
    assert headers["Deprecation"] == "true"
    assert headers["Link"] == '</_schedemu/clock/advance-to-next>; rel="successor-version"'


def test_an_old_route_with_a_method_it_never_had_is_unknown(served: Emulator) -> None:
    request = urllib.request.Request(f"{served.endpoint_url}/_schedemu/tick", method="GET")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=30)
    assert raised.value.code == 404
    assert "Deprecation" not in raised.value.headers
