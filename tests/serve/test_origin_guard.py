"""Only the service's own hosts, and no page on another origin, reach it over the network.

What a web page the developer opens could send: a request under a name of its own that
resolves to 127.0.0.1 (DNS rebinding), a ``no-cors`` fetch or a form from another origin,
a text or form body. Each is refused before anything changes, and what is answered tells
the browser to keep it to the service's own pages.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from pytest_schedemu import Emulator
from tests.constants import START
from tests.helpers import create
from tests.serve.test_serve import Served

JSON = "application/json"


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> tuple[int, str]:
        return self.status, self.json["__type"]


def port_of(emu: Emulator) -> int:
    return int(emu.endpoint_url.rsplit(":", 1)[1])


def send(
    emu: Emulator,
    method: str,
    path: str,
    *,
    host: str | None = None,
    body: bytes | None = None,
    **headers: str,
) -> Answer:
    """``method path`` to ``emu`` over a socket, with the Host header ``host`` (default:
    127.0.0.1 and the port) and ``headers`` (underscores for dashes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port_of(emu), timeout=10)
    sent = {name.replace("_", "-"): value for name, value in headers.items()}
    sent["Host"] = f"127.0.0.1:{port_of(emu)}" if host is None else host
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START) as emulator:
        yield emulator


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=START)
    return served


# -- Host ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/_schedemu/health", "/schedules", "/_schedemu/ui"])
def test_a_foreign_host_is_refused_with_the_option_that_allows_it(emu: Emulator, path: str) -> None:
    answer = send(emu, "GET", path, host=f"evil.test:{port_of(emu)}")
    assert answer.error == (403, "AccessDeniedException")
    assert answer.headers["x-amzn-ErrorType"] == "AccessDeniedException"
    message = answer.json["Message"]
    assert f"'evil.test:{port_of(emu)}'" in message
    assert "--allowed-hosts" in message and "SCHEDEMU_ALLOWED_HOSTS" in message
    assert b"status" not in answer.body and b"ScheduleGroups" not in answer.body


def test_a_rebinding_host_reads_nothing_and_changes_nothing(emu: Emulator) -> None:
    create(emu.client(), "payroll", target={"Input": "secret"})
    rebound = f"attacker.example:{port_of(emu)}"
    assert send(emu, "GET", "/schedules/payroll", host=rebound).status == 403
    assert send(emu, "GET", "/_schedemu/attempts", host=rebound).status == 403
    refused = send(emu, "DELETE", "/schedules/payroll", host=rebound, Content_Type=JSON, body=b"")
    assert refused.status == 403
    assert [s["Name"] for s in emu.client().list_schedules()["Schedules"]] == ["payroll"]


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "LOCALHOST"])
def test_the_loopback_names_with_the_port_or_none_are_answered(emu: Emulator, name: str) -> None:
    assert send(emu, "GET", "/_schedemu/health", host=f"{name}:{port_of(emu)}").status == 200
    assert send(emu, "GET", "/_schedemu/health", host=name).status == 200


@pytest.mark.parametrize("host", ["localhost:1", "127.0.0.2", "localhost.", "", "a b"])
def test_another_port_or_name_is_refused(emu: Emulator, host: str) -> None:
    assert send(emu, "GET", "/_schedemu/health", host=host).status == 403


def test_allowed_hosts_are_answered_on_any_port_or_their_own() -> None:
    with Emulator(allowed_hosts=["schedemu", "localhost:9000"]) as emu:
        assert send(emu, "GET", "/_schedemu/health", host="schedemu:4566").status == 200
        assert send(emu, "GET", "/_schedemu/health", host="SchedEmu").status == 200
        assert send(emu, "GET", "/_schedemu/health", host="localhost:9000").status == 200
        assert send(emu, "GET", "/_schedemu/health", host="localhost:9001").status == 403
        assert send(emu, "GET", "/_schedemu/health", host="other:4566").status == 403


def test_a_star_allows_any_host() -> None:
    with Emulator(allowed_hosts=["*"]) as emu:
        assert send(emu, "GET", "/_schedemu/health", host="anything.test:1").status == 200


def test_allowed_hosts_is_a_serve_flag_and_variable() -> None:
    served = Served(env={"SCHEDEMU_ALLOWED_HOSTS": "schedemu, other:1"})
    try:
        port = served.port
        health = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        health.request("GET", "/_schedemu/health", headers={"Host": f"schedemu:{port}"})
        assert health.getresponse().status == 200
        health.close()
    finally:
        served.stop()
    with pytest.raises(ValueError, match="allowed_hosts"):
        Emulator(allowed_hosts=["http://x/"])


def test_requests_answered_in_process_are_not_the_guards(emu: Emulator) -> None:
    # They carry AWS's host, as botocore addressed them, and never cross a socket.
    client = boto3.client(
        "scheduler",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    with emu.intercept():
        client.create_schedule_group(Name="in-process")
        groups = client.list_schedule_groups()["ScheduleGroups"]
    assert client.meta.endpoint_url == "https://scheduler.us-east-1.amazonaws.com"
    assert "in-process" in [g["Name"] for g in groups]


# -- Origin ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin", ["http://evil.test", "null", "http://localhost:3000", "https://127.0.0.1"]
)
def test_a_foreign_origin_changes_nothing(emu: Emulator, origin: str) -> None:
    advance = send(
        emu,
        "POST",
        "/_schedemu/clock/advance",
        body=b'{"days": 3}',
        Content_Type=JSON,
        Origin=origin,
    )
    assert advance.error == (403, "AccessDeniedException")
    assert repr(origin) in advance.json["Message"]
    group = send(emu, "POST", "/schedule-groups/g", body=b"{}", Content_Type=JSON, Origin=origin)
    assert group.error == (403, "AccessDeniedException")
    assert send(emu, "GET", "/_schedemu/health", Origin=origin).status == 403
    assert emu.clock.now().isoformat() == "2026-03-01T10:00:00+00:00"
    assert [g["Name"] for g in emu.client().list_schedule_groups()["ScheduleGroups"]] == ["default"]


def test_the_services_own_origin_is_answered(emu: Emulator) -> None:
    own = f"http://127.0.0.1:{port_of(emu)}"
    answer = send(
        emu, "POST", "/_schedemu/clock/advance", body=b'{"hours": 1}', Content_Type=JSON, Origin=own
    )
    assert answer.status == 200
    assert answer.json["now"] == "2026-03-01T11:00:00Z"


# -- body types ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b'{"start": "2030-01-01T00:00:00Z"}'),
        ("text/plain;charset=UTF-8", b"{}"),
        ("application/x-www-form-urlencoded", b"a=b"),
        ("multipart/form-data; boundary=x", b"--x--"),
        (None, b""),
    ],
)
def test_a_control_change_without_json_is_refused_and_the_state_kept(
    emu: Emulator, content_type: str | None, body: bytes
) -> None:
    create(emu.client(), "kept")
    headers = {} if content_type is None else {"Content_Type": content_type}
    answer = send(emu, "POST", "/_schedemu/reset", body=body, **headers)
    assert answer.error == (415, "UnsupportedMediaTypeException")
    assert "application/json" in answer.json["Message"]
    assert [s["Name"] for s in emu.client().list_schedules()["Schedules"]] == ["kept"]
    tick = send(emu, "POST", "/_schedemu/clock/tick", body=b"", **headers)
    assert tick.status == 415


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_the_scheduler_api_refuses_form_and_text_bodies(emu: Emulator, content_type: str) -> None:
    answer = send(emu, "POST", "/schedule-groups/g", body=b"{}", Content_Type=content_type)
    assert answer.error == (415, "UnsupportedMediaTypeException")
    assert [g["Name"] for g in emu.client().list_schedule_groups()["ScheduleGroups"]] == ["default"]


def test_json_and_bodiless_reads_and_deletes_are_answered(emu: Emulator) -> None:
    assert send(emu, "POST", "/schedule-groups/g", body=b"{}", Content_Type=JSON).status == 200
    assert send(emu, "GET", "/schedule-groups/g").status == 200
    assert send(emu, "DELETE", "/schedule-groups/g").status == 200
    assert send(emu, "POST", "/_schedemu/clock/tick", body=b"", Content_Type=JSON).status == 200


# -- what every answer tells a browser ---------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "host"),
    [
        ("/_schedemu/ui", None),
        ("/_schedemu/ui/app.js", None),
        ("/_schedemu/health", None),
        ("/schedules", None),
        ("/_schedemu/timeline", None),
        ("/_schedemu/health", "evil.test"),
    ],
)
def test_every_answer_keeps_to_its_own_origin(emu: Emulator, path: str, host: str | None) -> None:
    answer = send(emu, "GET", path, host=host)
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.headers["Cross-Origin-Resource-Policy"] == "same-origin"
    policy = answer.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
