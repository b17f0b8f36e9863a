"""The API tests run each test that uses the session's emulator over both transports, HTTP
and in process, and add clients and raw requests of their own."""

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


@pytest.fixture(scope="session")
def _lax_client(session_emulator: Emulator) -> Any:
    return session_emulator.client(
        config=Config(parameter_validation=False, retries={"total_max_attempts": 1})
    )


@pytest.fixture
def lax_client(emu: Emulator, _lax_client: Any) -> Any:
    """A client that sends what botocore would refuse to send (min lengths, required)."""
    return _lax_client


@pytest.fixture
def plain_client() -> Iterator[Callable[..., Any]]:
    """Build boto3 clients the ordinary way, as application code would; each is closed
    after the test, so no connection is left for the garbage collector to warn about."""
    made: list[Any] = []

    def build(
        emu: Emulator, key: str = "testing", secret: str = "testing", region: str = "us-east-1"
    ) -> Any:
        client = boto3.client(
            "scheduler",
            endpoint_url=emu.endpoint_url,
            region_name=region,
            aws_access_key_id=key,
            aws_secret_access_key=secret,
        )
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


@pytest.fixture
def raw(emu: Emulator):  # type: ignore[no-untyped-def]
    """Send a raw HTTP request to the emulator: raw(method, path, body=None, headers=None)."""

    def send(
        method: str,
        path: str,
        body: bytes | str | dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> RawResponse:
        if isinstance(body, dict):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        # As the SDKs do; urllib would call a body a form.
        typed = {} if body is None else {"Content-Type": "application/json"}
        request = urllib.request.Request(
            emu.endpoint_url + path, data=body, method=method, headers={**typed, **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request) as response:
                return RawResponse(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return RawResponse(error.code, dict(error.headers), error.read())

    return send
