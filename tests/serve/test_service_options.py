"""``schedemu serve``: a flag and an environment variable for every setting, and a stop
that a target cannot hold up."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from pytest_schedemu import cli
from pytest_schedemu.settings.options import EMULATOR_OPTIONS, Settings

from .test_serve import QUEUE, ROLE, Served


def test_help_lists_every_setting_with_its_default_and_variable() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_schedemu", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    for option in EMULATOR_OPTIONS.values():
        assert option.flag in result.stdout
        assert option.environment_variable in result.stdout
    assert "(default: 4566;" in result.stdout  # the service's own port
    assert "(default: real;" in result.stdout


@pytest.mark.parametrize(
    "flag",
    [
        "--region",
        "--account-id",
        "--past-at",
        "--flexible-offsets",
        "--group-deletion-delay",
        "--max-schedules",
        "--max-schedule-groups",
        "--max-records",
        "--max-attempts-per-advance",
        "--sqs-queue-url-template",
        "--verify-signatures",
        "--credentials",
        "--connection-timeout",
        "--shutdown-timeout",
        "--delivery-timeout",
    ],
)
def test_the_issue_s_flags_exist(flag: str) -> None:
    assert flag in {option.flag for option in EMULATOR_OPTIONS.values()}


def test_settings_come_from_flags_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEDEMU_REGION", "eu-west-1")
    monkeypatch.setenv("SCHEDEMU_ACCOUNT_ID", "111122223333")
    served = Served("--clock", "virtual", "--account-id", "444455556666", "--max-schedules", "1")
    try:
        health = served.control("GET", "health")
        assert (health["region"], health["account_id"]) == ("eu-west-1", "444455556666")
        client = boto3.client(
            "scheduler",
            endpoint_url=served.url,
            region_name="eu-west-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        args = {
            "ScheduleExpression": "rate(1 hour)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": QUEUE.replace("us-east-1", "eu-west-1"), "RoleArn": ROLE},
        }
        client.create_schedule(Name="one", **args)
        with pytest.raises(client.exceptions.ServiceQuotaExceededException):
            client.create_schedule(Name="two", **args)
        client.close()
    finally:
        served.stop()


def test_a_bad_environment_value_is_a_clear_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_schedemu", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "SCHEDEMU_MAX_RECORDS": "lots"},
        timeout=20,
    )
    assert result.returncode != 0
    assert "SCHEDEMU_MAX_RECORDS" in result.stderr and "lots" in result.stderr


@contextlib.contextmanager
def hanging_delivery(shutdown_timeout: str) -> Iterator[Served]:
    """A service whose one delivery waits on a target that accepts and never answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        served = Served(
            "--tick-interval", "0.05", "--delivery", "boto3",
            "--delivery-endpoint-url", endpoint, "--shutdown-timeout", shutdown_timeout,
        )  # fmt: skip
        client = served.client()
        client.create_schedule(
            Name="now",
            ScheduleExpression="at(2020-01-01T00:00:00)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        client.close()
        silent.settimeout(20)
        accepted, _ = silent.accept()  # the delivery now waits for an answer that never comes
        try:
            yield served
        finally:
            accepted.close()
            if served.process.poll() is None:  # a failed test leaves no service behind
                served.process.kill()
                served.process.communicate()


def test_a_second_signal_stops_at_once_though_a_delivery_hangs() -> None:
    with hanging_delivery("30") as served:
        served.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        assert served.process.poll() is None  # waiting for the delivery, as it should
        started = time.monotonic()
        served.process.send_signal(signal.SIGTERM)
        served.process.communicate(timeout=10)
        assert time.monotonic() - started < 3
        assert served.process.returncode == 128 + signal.SIGTERM


def test_the_first_signal_waits_at_most_the_shutdown_timeout() -> None:
    with hanging_delivery("0.5") as served:
        started = time.monotonic()
        code, out, err = served.stop()
        assert time.monotonic() - started < 5
        assert code == 0 and "stopped" in out
        assert json.dumps("deliveries under way get 0.5 s")[1:-1] in err


# Each flag of the issue, a value other than its default, and the setting it must give.
TAKING_EFFECT = [
    ("region", "eu-west-1", "eu-west-1"),
    ("account_id", "210987654321", "210987654321"),
    ("past_at", "reject", "reject"),
    ("flexible_offsets", "zero", "zero"),
    ("iam", "strict", "strict"),
    ("group_deletion_delay", "2.5", 2.5),
    ("max_schedules", "7", 7),
    ("max_schedule_groups", "3", 3),
    ("max_records", "40", 40),
    ("max_records", "none", None),
    ("max_attempts_per_advance", "99", 99),
    ("sqs_queue_url_template", "http://q/{account}/{name}", "http://q/{account}/{name}"),
    ("connection_timeout", "5", 5.0),
    ("shutdown_timeout", "1.5", 1.5),
    ("delivery_timeout", "4", 4.0),
    ("verify_signatures", "true", True),
]


@pytest.mark.parametrize(("name", "text", "expected"), TAKING_EFFECT)
@pytest.mark.parametrize("source", ["flag", "environment"])
def test_each_flag_and_variable_gives_its_setting(
    name: str, text: str, expected: Any, source: str
) -> None:
    option = EMULATOR_OPTIONS[name]
    argv = ["serve", option.flag, text] if source == "flag" else ["serve"]
    environ = {option.environment_variable: text} if source == "environment" else {}
    chosen = cli.serve_settings(cli._parser().parse_args(argv), environ)
    assert chosen[name] == expected
    if name == "verify_signatures":
        chosen["credentials"] = {"AKID": "secret"}
    assert getattr(Settings(**chosen), name) == expected


@pytest.mark.parametrize(
    "text", ['{"AKIDONE": "s1", "AKIDTWO": "s2"}', "AKIDONE:s1\n\nAKIDTWO : s2\n"]
)
def test_credentials_are_read_from_json_or_lines(tmp_path: Path, text: str) -> None:
    path = tmp_path / "credentials"
    path.write_text(text)
    argv = ["serve", "--verify-signatures", "--credentials", str(path)]
    chosen = cli.serve_settings(cli._parser().parse_args(argv), {})
    assert chosen["credentials"] == {"AKIDONE": "s1", "AKIDTWO": "s2"}


def test_a_credentials_file_of_neither_form_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "credentials"
    path.write_text("just a secret\n")
    environ = {"SCHEDEMU_CREDENTIALS": str(path)}
    with pytest.raises(ValueError, match=r"SCHEDEMU_CREDENTIALS.*ACCESS_KEY_ID:SECRET_KEY"):
        cli.serve_settings(cli._parser().parse_args(["serve"]), environ)


def test_help_lists_one_flag_for_stacks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    shown = capsys.readouterr().out
    assert "--stacks PATHS" in shown
    assert "--stack " not in shown and "--stack PATH" not in shown


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--stack", "a.yaml", "--stack", "cdk.out#B"], ("a.yaml", "cdk.out#B")),
        (["--stacks", "a.yaml", "--stack", "b.yaml"], ("a.yaml", "b.yaml")),
    ],
)
def test_the_older_stack_flag_is_still_accepted(argv: list[str], expected: tuple[str]) -> None:
    args = cli._parser().parse_args(["serve", *argv])
    environ = {"SCHEDEMU_STACKS": "ignored.yaml"}  # a flag wins over the environment
    assert cli.serve_settings(args, environ)["stacks"] == expected
