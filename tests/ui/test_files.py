"""The dashboard's files as the browser fetches them: every script module with a
JavaScript type, as it is in the package, and nothing but the files of the ``ui`` folder."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import pytest_schedemu
from pytest_schedemu import Emulator

UI = Path(pytest_schedemu.__file__).parent / "control_api" / "ui"
SCRIPTS = sorted(path.name for path in UI.glob("*.js"))
START = "2026-03-07T12:00:00Z"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def get(emu: Emulator, route: str) -> Answer:
    """The answer to ``GET /_schedemu/<route>``, the path sent exactly as written (a URL
    library would tidy a ``..`` away before the server saw it)."""
    address = urlsplit(emu.endpoint_url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    try:
        connection.request("GET", f"/_schedemu/{route}")
        response = connection.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(start=START) as started:
        yield started


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_script_is_served_as_javascript_as_it_is_in_the_package(
    emu: Emulator, name: str
) -> None:
    answer = get(emu, f"ui/{name}")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert answer.body == (UI / name).read_bytes()
    assert set(answer.headers) == set(get(emu, "ui/app.js").headers)
    text = answer.body.decode()
    assert "http://" not in text and "https://" not in text and "//cdn" not in text


@pytest.mark.parametrize(
    "route",
    [
        "ui/missing.js",
        "ui/../control_ui.py",
        "ui/%2e%2e/control_ui.py",
        "ui/..%2fcontrol_ui.py",
        "ui/../../__init__.py",
    ],
)
def test_a_path_that_names_no_file_of_the_ui_folder_is_not_served(
    emu: Emulator, route: str
) -> None:
    answer = get(emu, route)
    assert answer.status == 404
    assert json.loads(answer.body)["__type"] == "UnknownOperationException"


def test_with_signatures_verified_no_script_is_served() -> None:
    with Emulator(start=START, verify_signatures=True, credentials={"AKID": "secret"}) as emu:
        for name in SCRIPTS:
            answer = get(emu, f"ui/{name}")
            assert (answer.status, answer.headers["Content-Type"]) == (
                403,
                "text/html; charset=utf-8",
            )
