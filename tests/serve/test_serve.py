"""``schedemu serve`` as a separate process, driven over HTTP only, as any language would."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

from tests.constants import JSON_TYPE, QUEUE, ROLE


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """One ``schedemu serve`` process, up once its health answers."""

    def __init__(
        self, *args: str, output: Any = subprocess.PIPE, env: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pytest_schedemu", "serve", "--port", str(self.port), *args],
            stdout=output,
            stderr=output,
            text=True,
            env={**os.environ, **(env or {})},
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.control("GET", "health")
                return
            except (urllib.error.URLError, ConnectionError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(self.failure()) from None
                time.sleep(0.02)

    def failure(self) -> str:
        """What the process said, when it did not come up."""
        return self.process.stderr.read() if self.process.stderr else ""

    def control(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/_schedemu/{path}", data=data, method=method, headers=JSON_TYPE
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            return {"status": error.code, **json.loads(error.read())}

    def client(self, config: Config | None = None) -> Any:
        return boto3.client(
            "scheduler",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=config,
        )

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=20)
        return self.process.returncode, out, err


@pytest.fixture
def virtual() -> Iterator[Served]:
    served = Served("--clock", "virtual", "--start", "2026-03-01T10:00:00Z")
    yield served
    served.stop()


def create(client: Any, expression: str, **target: Any) -> None:
    client.create_schedule(
        Name="s1",
        ScheduleExpression=expression,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE, **target},
    )


def test_health_and_clock(virtual: Served) -> None:
    health = virtual.control("GET", "health")
    assert health["status"] == "ok"
    assert health["clock"] == "virtual"
    assert virtual.control("GET", "clock") == {"now": "2026-03-01T10:00:00Z", "real_time": False}


def test_time_travel_and_deliveries_over_http(virtual: Served) -> None:
    create(virtual.client(), "rate(1 hour)", Input="hello")
    travelled = virtual.control("POST", "clock/advance", {"hours": 2})
    assert travelled["now"] == "2026-03-01T12:00:00Z"
    assert [a["scheduled_time"] for a in travelled["attempts"]] == [
        "2026-03-01T10:00:00Z",
        "2026-03-01T11:00:00Z",
        "2026-03-01T12:00:00Z",
    ]
    deliveries = virtual.control("GET", f"deliveries?target_arn={QUEUE}")["deliveries"]
    assert [d["input"] for d in deliveries] == ["hello"] * 3
    assert deliveries[0]["request"]["QueueUrl"].endswith("/123456789012/queue")
    moved = virtual.control("POST", "clock/move-to", {"time": "2026-03-01T13:30:00Z"})
    assert len(moved["attempts"]) == 1
    executions = virtual.control("GET", "executions?schedule=s1&group=default")["executions"]
    assert [e["status"] for e in executions] == ["success"] * 4


def test_failures_and_dead_letters_over_http(virtual: Served) -> None:
    dlq = "arn:aws:sqs:us-east-1:123456789012:dlq"
    assert virtual.control("POST", "targets/fail", {"arn": QUEUE, "error_code": "Boom"}) == {}
    create(
        virtual.client(),
        "at(2026-03-01T10:00:00)",
        RetryPolicy={"MaximumRetryAttempts": 1},
        DeadLetterConfig={"Arn": dlq},
    )
    virtual.control("POST", "clock/tick")
    virtual.control("POST", "clock/advance", {"minutes": 5})
    (letter,) = virtual.control("GET", f"dead-letters?queue_arn={dlq}")["dead_letters"]
    assert letter["attributes"]["ERROR_CODE"] == "Boom"
    assert letter["attributes"]["RETRY_ATTEMPTS"] == "1"
    attempts = virtual.control("GET", "attempts?schedule=s1")["attempts"]
    assert [a["succeeded"] for a in attempts] == [False, False]


def test_moving_back_and_bad_input_are_clear_errors(virtual: Served) -> None:
    back = virtual.control("POST", "clock/move-to", {"time": "2020-01-01T00:00:00Z"})
    assert back["status"] == 400 and "Cannot move the clock back" in back["Message"]
    assert virtual.control("POST", "clock/advance", {})["status"] == 400
    for amount in ({"days": 1e12}, {"weeks": 1e300}, {"seconds": -1}, {"hours": "1"}):
        refused = virtual.control("POST", "clock/advance", amount)
        assert (refused["status"], refused["__type"]) == (400, "ValidationException")
    assert virtual.control("GET", "clock")["now"] == "2026-03-01T10:00:00Z"
    assert virtual.control("GET", "nope")["__type"] == "UnknownOperationException"


def test_reset_empties_state(virtual: Served) -> None:
    client = virtual.client()
    create(client, "rate(1 hour)")
    virtual.control("POST", "clock/tick")
    assert virtual.control("POST", "reset", {"start": "2030-01-01T00:00:00Z"}) == {
        "now": "2030-01-01T00:00:00Z"
    }
    assert virtual.control("GET", "attempts") == {"attempts": [], "next_token": None}
    assert client.list_schedules()["Schedules"] == []


def test_real_clock_refuses_travel_and_delivers_by_itself() -> None:
    served = Served("--tick-interval", "1")
    try:
        refused = served.control("POST", "clock/advance", {"seconds": 60})
        assert refused["status"] == 409
        assert refused["__type"] == "ConflictException"
        create(served.client(), "at(2020-01-01T00:00:00)")
        deadline = time.monotonic() + 5
        while not served.control("GET", "deliveries")["deliveries"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert len(served.control("GET", "deliveries")["deliveries"]) == 1
    finally:
        code, out, err = served.stop()
    assert code == 0
    assert f"Scheduler API on {served.url}" in out
    assert f"control API on {served.url}/_schedemu/" in out
    assert f"dashboard on {served.url}/_schedemu/ui" in out
    assert "attempt schedule=arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1" in err
    assert "outcome=ok" in err


def test_sigint_stops_cleanly() -> None:
    served = Served("--clock", "virtual")
    served.process.send_signal(signal.SIGINT)
    out, _ = served.process.communicate(timeout=20)
    assert served.process.returncode == 0
    assert "stopped" in out


def test_busy_port_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "pytest_schedemu", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ},
        )
    assert result.returncode == 1
    assert f"Port {port} is in use" in result.stderr


def test_console_script_is_installed() -> None:
    script = os.path.join(os.path.dirname(sys.executable), "schedemu")
    result = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    assert result.stdout.startswith("schedemu ")
