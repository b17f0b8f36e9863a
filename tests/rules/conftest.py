"""The rule tests run each test that uses the session's emulator over both transports, HTTP
and in process, and add EventBridge clients and raw JSON 1.1 requests of their own."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, Callable

import boto3
import pytest
from botocore.config import Config

from pytest_schedemu import Emulator
from tests.helpers import RawResponse

TRANSPORTS = ["http", "inprocess"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "session_emulator" in metafunc.fixturenames:
        metafunc.parametrize("session_emulator", TRANSPORTS, indirect=True, scope="session")


@pytest.fixture
def events(emu: Emulator) -> Any:
    """The emulator's own EventBridge client (``emu.client("events")``)."""
    return emu.client("events")


@pytest.fixture(scope="session")
def _lax_events(session_emulator: Emulator) -> Any:
    return session_emulator.client(
        "events", config=Config(parameter_validation=False, retries={"total_max_attempts": 1})
    )


@pytest.fixture
def lax_events(emu: Emulator, _lax_events: Any) -> Any:
    """An EventBridge client that sends what botocore would refuse to send."""
    return _lax_events


@pytest.fixture
def plain_events(emu: Emulator) -> Iterator[Any]:
    """An EventBridge client built the ordinary way, pointed at the emulator's URL."""
    client = boto3.client(
        "events",
        endpoint_url=emu.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )
    yield client
    client.close()


@pytest.fixture
def raw_events(emu: Emulator) -> Callable[..., RawResponse]:
    """Send a raw JSON 1.1 request over HTTP: raw_events(target, body, headers=, method=)."""

    def send(
        target: str | None,
        body: bytes | str | dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        method: str = "POST",
        path: str = "/",
    ) -> RawResponse:
        if isinstance(body, dict):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        sent = {"Content-Type": "application/x-amz-json-1.1"}
        if target is not None:
            sent["X-Amz-Target"] = target
        request = urllib.request.Request(
            emu.endpoint_url + path, data=body, method=method, headers={**sent, **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request) as response:
                return RawResponse(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return RawResponse(error.code, dict(error.headers), error.read())

    return send
