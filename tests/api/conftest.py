from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

import boto3
import pytest
from botocore.config import Config

from pytest_schedemu import Emulator

START = "2026-03-01T08:00:00Z"
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:queue"


@pytest.fixture(scope="session", params=["http", "inprocess"])
def session_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    with Emulator(start=START, transport=request.param) as emu:
        yield emu


@pytest.fixture
def emu(session_emulator: Emulator) -> Emulator:
    session_emulator.reset(start=START)
    return session_emulator


@pytest.fixture(scope="session")
def _clients(session_emulator: Emulator) -> dict[str, Any]:
    return {
        "strict": session_emulator.client(),
        "lax": session_emulator.client(
            config=Config(parameter_validation=False, retries={"total_max_attempts": 1})
        ),
    }


@pytest.fixture
def client(emu: Emulator, _clients: dict[str, Any]) -> Any:
    return _clients["strict"]


@pytest.fixture
def lax_client(emu: Emulator, _clients: dict[str, Any]) -> Any:
    """A client that sends what botocore would refuse to send (min lengths, required)."""
    return _clients["lax"]


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


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


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
        request = urllib.request.Request(
            emu.endpoint_url + path, data=body, method=method, headers=headers or {}
        )
        try:
            with urllib.request.urlopen(request) as response:
                return RawResponse(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return RawResponse(error.code, dict(error.headers), error.read())

    return send


def schedule_args(name: str = "s1", **overrides: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "Name": name,
        "ScheduleExpression": "rate(5 minutes)",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {"Arn": QUEUE, "RoleArn": ROLE},
    }
    args.update(overrides)
    return args


def error_of(excinfo: Any) -> dict[str, Any]:
    """The parsed error of a botocore ClientError: code, message, HTTP status."""
    response = excinfo.value.response
    return {
        "code": response["Error"]["Code"],
        "message": response["Error"]["Message"],
        "status": response["ResponseMetadata"]["HTTPStatusCode"],
    }
