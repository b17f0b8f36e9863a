"""Interception of EventBridge clients: their rule operations reach the test's emulator,
their other operations go to moto under ``mock_aws`` (in either order), or fail at once;
nothing leaves the process, and an option turns it off."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import boto3
import botocore.session
import pytest
from botocore.config import Config

from pytest_schedemu import Emulator
from tests.constants import START
from tests.helpers import error_of
from tests.rules.rulebook import stored_rules, target

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

NO_RETRIES = Config(retries={"total_max_attempts": 1, "mode": "standard"})
EVENT = {"Source": "app.orders", "DetailType": "Order Placed", "Detail": '{"id": 1}'}


@pytest.fixture
def aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EVENTS", "AWS_ENDPOINT_URL_SCHEDULER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


@pytest.fixture
def no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def build() -> Iterator[Callable[..., Any]]:
    """EventBridge clients built as application code builds them, closed after the test."""
    made: list[Any] = []

    def build(**options: Any) -> Any:
        client = boto3.client(
            "events", **{"region_name": "us-east-1", "config": NO_RETRIES, **options}
        )
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


@pytest.fixture
def own_emulator() -> Iterator[Emulator]:
    with Emulator(start=START) as emu:
        yield emu


def test_rule_operations_of_a_client_built_before_are_served_without_a_socket(
    own_emulator: Emulator, build: Callable[..., Any], aws_environment: None, no_socket: None
) -> None:
    early = build(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    with own_emulator.intercept():
        assert early.meta.endpoint_url == "https://events.us-east-1.amazonaws.com"
        arn = early.put_rule(Name="nightly", ScheduleExpression="cron(0 2 * * ? *)")["RuleArn"]
        early.put_targets(Rule="nightly", Targets=[target()])
        assert arn == "arn:aws:events:us-east-1:123456789012:rule/nightly"
    (rule,) = stored_rules(own_emulator)
    assert (rule.name, [t.id for t in rule.targets]) == ("nightly", ["t1"])


def test_a_client_without_credentials_is_served_with_lent_ones(
    own_emulator: Emulator,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    no_socket: None,
) -> None:
    # A machine without AWS configuration: no credentials, no profile.
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    session = botocore.session.Session()
    assert session.get_credentials() is None
    client = session.create_client("events", "us-east-1")
    try:
        with own_emulator.intercept():
            client.put_rule(Name="nightly", ScheduleExpression="rate(1 day)")
    finally:
        client.close()
    assert [rule.arn for rule in stored_rules(own_emulator)] == [
        "arn:aws:events:us-east-1:123456789012:rule/nightly"
    ]


def test_other_operations_fail_at_once_without_moto(
    own_emulator: Emulator, build: Callable[..., Any], aws_environment: None, no_socket: None
) -> None:
    client = build(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    with own_emulator.intercept():
        with pytest.raises(client.exceptions.ClientError) as excinfo:
            client.put_events(Entries=[EVENT])
        with pytest.raises(client.exceptions.ClientError):
            client.create_event_bus(Name="orders")
    error = error_of(excinfo)
    assert (error["code"], error["status"]) == ("UnknownOperationException", 400)
    assert "nothing in the process answered PutEvents (moto's mock_aws would)" in error["message"]
    assert "intercept_rules=False" in error["message"]


@pytest.mark.parametrize("mock_aws_first", [True, False], ids=["mock_aws-outer", "mock_aws-inner"])
def test_under_mock_aws_rules_reach_the_emulator_and_the_rest_moto(
    own_emulator: Emulator,
    build: Callable[..., Any],
    aws_environment: None,
    no_socket: None,
    mock_aws_first: bool,
) -> None:
    from moto import mock_aws
    from moto.events.models import events_backends

    with ExitStack() as stack:
        contexts = [mock_aws(), own_emulator.intercept()]
        for context in contexts if mock_aws_first else reversed(contexts):
            stack.enter_context(context)
        client = build()
        client.put_rule(Name="nightly", ScheduleExpression="rate(1 day)")
        assert client.put_events(Entries=[EVENT])["FailedEntryCount"] == 0
        bus = client.create_event_bus(Name="orders")["EventBusArn"]
        backend = events_backends["123456789012"]["us-east-1"]
        assert bus == "arn:aws:events:us-east-1:123456789012:event-bus/orders"
        assert set(backend.event_buses) == {"default", "orders"}
        assert backend.event_buses["default"].rules == {}
    assert [rule.name for rule in stored_rules(own_emulator)] == ["nightly"]


def test_with_rules_left_out_an_events_client_goes_where_it_would_go(
    own_emulator: Emulator, build: Callable[..., Any], aws_environment: None, no_socket: None
) -> None:
    from moto import mock_aws
    from moto.events.models import events_backends

    with mock_aws(), own_emulator.intercept(rules=False):
        build().put_rule(Name="nightly", ScheduleExpression="rate(1 day)")
        assert list(events_backends["123456789012"]["us-east-1"].event_buses["default"].rules) == [
            "nightly"
        ]
    assert stored_rules(own_emulator) == ()


# -- through the plugin, in a process of its own -----------------------------------------------

MODULE_LEVEL_CLIENT = """
import socket

import boto3
import botocore.session
import pytest

# Built at import, before any test and before the emulator exists, as application code does.
EVENTS = boto3.client(
    "events", region_name="us-east-1",
    aws_access_key_id="AKIAIOSFODNN7EXAMPLE", aws_secret_access_key="secret",
)
QUEUE = "arn:aws:sqs:us-east-1:123456789012:q"


@pytest.fixture
def no_socket(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_rule_is_served(schedemu, no_socket):
    assert EVENTS.meta.endpoint_url == "https://events.us-east-1.amazonaws.com"
    EVENTS.put_rule(Name="nightly", ScheduleExpression="rate(1 day)")
    EVENTS.put_targets(Rule="nightly", Targets=[{"Id": "t1", "Arn": QUEUE}])
    assert EVENTS.list_targets_by_rule(Rule="nightly")["Targets"][0]["Id"] == "t1"
    assert [r["Name"] for r in schedemu.client("events").list_rules()["Rules"]] == ["nightly"]


def test_put_events_is_refused_in_process(schedemu, no_socket):
    with pytest.raises(EVENTS.exceptions.ClientError) as excinfo:
        EVENTS.put_events(Entries=[{"Source": "a", "DetailType": "b", "Detail": "{}"}])
    assert excinfo.value.response["Error"]["Code"] == "UnknownOperationException"


@pytest.mark.schedemu(intercept_rules=False)
def test_the_option_turns_rule_interception_off(schedemu):
    from moto import mock_aws
    from moto.events.models import events_backends

    with mock_aws():
        client = boto3.client("events", region_name="us-east-1")
        client.put_rule(Name="kept-by-moto", ScheduleExpression="rate(1 day)")
        backend = events_backends["123456789012"]["us-east-1"]
        assert list(backend.event_buses["default"].rules) == ["kept-by-moto"]
    assert schedemu.client("events").list_rules()["Rules"] == []
"""


def test_a_module_level_client_is_served_and_the_option_turns_it_off(
    pytester: pytest.Pytester, aws_environment: None
) -> None:
    pytester.makepyfile(MODULE_LEVEL_CLIENT)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_the_option_is_read_from_the_ini_file(
    pytester: pytest.Pytester, aws_environment: None
) -> None:
    pytester.makeini("[pytest]\nschedemu_intercept_rules = false\n")
    pytester.makepyfile(
        """
import boto3

def test_not_intercepted(schedemu):
    from moto import mock_aws

    with mock_aws():
        boto3.client("events", region_name="us-east-1").put_rule(
            Name="r", ScheduleExpression="rate(1 day)"
        )
    assert schedemu.client("events").list_rules()["Rules"] == []
"""
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
