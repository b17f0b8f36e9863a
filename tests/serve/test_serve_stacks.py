"""``schedemu serve --stacks``: stacks loaded as the service starts, taken back on restart
(``--stack``, the older flag, still works this release)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.serve.test_serve import Served

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "stacks" / "cloudformation"
START = ("--clock", "virtual", "--start", "2026-01-01T00:00:00Z")


def test_the_stack_is_loaded_listed_and_fires(tmp_path: Path) -> None:
    served = Served(*START, "--stacks", str(TEMPLATE / "template.yaml"))
    try:
        (stack,) = served.control("GET", "stacks")["stacks"]
        (schedule,) = stack["schedules"]
        assert schedule["logical_id"] == "InvoiceReminder"
        got = served.client().get_schedule(Name=schedule["name"], GroupName=schedule["group_name"])
        assert got["Arn"] == schedule["arn"]
        served.control("POST", "clock/advance", {"days": 7})
        attempts = served.control("GET", "attempts")["attempts"]
        assert {a["schedule_arn"] for a in attempts} == {schedule["arn"]}
    finally:
        code, out, _ = served.stop()
    assert code == 0
    assert "schedemu: stack template from " in out and ": 1 group, 1 schedule" in out


def test_a_restart_on_the_same_state_takes_its_stacks_back(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    args = (*START, "--state", state)
    environment = {"SCHEDEMU_STACKS": str(TEMPLATE / "template.yaml")}
    first = Served(*args, env=environment)
    (stack,) = first.control("GET", "stacks")["stacks"]
    first.stop()
    second = Served(*args, env=environment)
    try:
        assert second.control("GET", "stacks")["stacks"] == [stack]
    finally:
        second.stop()


def test_an_invalid_stack_stops_the_service_with_its_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "Resources:\n  Broken:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n"
        "      ScheduleExpression: rate(0 minutes)\n      FlexibleTimeWindow: {Mode: 'OFF'}\n"
        "      Target: {Arn: 'arn:aws:sqs:us-east-1:123456789012:q',"
        " RoleArn: 'arn:aws:iam::123456789012:role/r'}\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_schedemu",
            "serve",
            "--port",
            "0",
            *START,
            "--stack",
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    # The older flag still loads the stack, and says what to use instead.
    warning, stderr = done.stderr.split("\n", 1)
    assert warning.startswith("schedemu: --stack is deprecated") and "--stacks" in warning
    assert stderr.startswith("schedemu: bad.yaml: resource Broken (AWS::Scheduler::Schedule): ")
    assert "ValidationException" in done.stderr
