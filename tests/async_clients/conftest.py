"""The async SDKs' clients, for real: aiobotocore, and aioboto3 on top of it.

aiobotocore pins botocore to a narrow range below the newest release, which the main
suite installs, so these tests run in an environment of their own (``tox -e aiobotocore``,
and a step of ``.ci/run``) and the default run deselects them (``-m 'not aiobotocore'``).
Run where aiobotocore is missing, they fail: they never skip.
"""

from __future__ import annotations

import importlib
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from pytest_schedemu import Emulator

CREDENTIALS = {
    "region_name": "us-east-1",
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
}

#: How a client reaches the emulator: intercepted in process, or over its HTTP endpoint.
WAYS = ["in process", "http"]

AsyncClientMaker = Callable[[], AbstractAsyncContextManager[Any]]


def _require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        pytest.fail(
            f"{module} is not installed: these tests run in environments of their own "
            "(tox -e aiobotocore, tox -e aioboto3, or .ci/run), where it is",
            pytrace=False,
        )


def _dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture(params=WAYS)
def way(request: pytest.FixtureRequest, emu: Emulator) -> Iterator[str]:
    """Where clients send their requests; in process, nothing listens there, so a request
    that was not intercepted fails to connect."""
    if request.param == "http":
        yield emu.endpoint_url
        return
    with emu.intercept():
        yield _dead_url()


def _aiobotocore_client(endpoint_url: str) -> AbstractAsyncContextManager[Any]:
    session = _require("aiobotocore.session").get_session()
    return session.create_client("scheduler", endpoint_url=endpoint_url, **CREDENTIALS)


def _aioboto3_client(endpoint_url: str) -> AbstractAsyncContextManager[Any]:
    session = _require("aioboto3").Session()
    return session.client("scheduler", endpoint_url=endpoint_url, **CREDENTIALS)


@pytest.fixture(
    params=[
        pytest.param(_aiobotocore_client, id="aiobotocore"),
        pytest.param(_aioboto3_client, id="aioboto3", marks=pytest.mark.aioboto3),
    ]
)
def async_client(request: pytest.FixtureRequest, way: str) -> AsyncClientMaker:
    """Makes a Scheduler client of an async SDK as application code makes one (an async
    context manager), sending where ``way`` says."""
    make = request.param
    return lambda: make(way)
