from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_schedemu import Emulator

START = "2026-03-01T10:00:00Z"
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:queue"
DLQ = "arn:aws:sqs:us-east-1:123456789012:dlq"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:remind"


@pytest.fixture(scope="session")
def session_emulator() -> Iterator[Emulator]:
    from pytest_schedemu import Emulator

    with Emulator(start=START, transport="inprocess") as emu:
        yield emu


@pytest.fixture
def emu(session_emulator: Emulator) -> Emulator:
    session_emulator.reset(start=START)
    return session_emulator


@pytest.fixture(scope="session")
def _client(session_emulator: Emulator) -> Any:
    return session_emulator.client()


@pytest.fixture
def client(emu: Emulator, _client: Any) -> Any:
    return _client


def create(client: Any, name: str = "s1", expression: str = "rate(1 hour)", **extra: Any) -> str:
    target: dict[str, Any] = {"Arn": QUEUE, "RoleArn": ROLE}
    target.update(extra.pop("target", {}))
    args: dict[str, Any] = {
        "Name": name,
        "ScheduleExpression": expression,
        "FlexibleTimeWindow": extra.pop("window", {"Mode": "OFF"}),
        "Target": target,
    }
    args.update(extra)
    return str(client.create_schedule(**args)["ScheduleArn"])
