"""Delivery that reaches AWS itself, with the developer's credentials, is an explicit choice.

A schedule's universal target may name any AWS action (``aws-sdk:iam:createAccessKey``), so
boto3 delivery without an endpoint of its own is refused unless ``allow_aws_delivery`` says
so, and the service's banner says where deliveries go. Under moto's ``mock_aws`` such
delivery lands in moto and needs no opt-in, while the mock is active.
"""

from __future__ import annotations

import subprocess
import sys

import boto3
import pytest

from pytest_schedemu import Emulator, SchedemuError
from pytest_schedemu.cli import deliveries
from pytest_schedemu.settings.options import Settings
from tests.serve.test_serve import Served, free_port

REFUSAL = "delivery='boto3' without delivery_endpoint_url would call AWS itself"


def test_boto3_delivery_without_an_endpoint_is_refused() -> None:
    with pytest.raises(ValueError, match=REFUSAL) as excinfo:
        Emulator(delivery="boto3")
    assert "allow_aws_delivery=True" in str(excinfo.value)
    assert "--allow-aws-delivery" in str(excinfo.value)


def test_an_endpoint_or_the_opt_in_is_accepted() -> None:
    assert not Settings(
        delivery="boto3", delivery_endpoint_url="http://127.0.0.1:9"
    ).delivers_to_aws
    assert Settings(delivery="boto3", allow_aws_delivery=True).delivers_to_aws


def test_a_test_cannot_switch_to_aws_delivery_without_the_opt_in() -> None:
    with Emulator() as emu:
        with pytest.raises(ValueError, match=REFUSAL):
            emu.configure(delivery="boto3")
        assert emu.settings.delivery == "record"
        with pytest.raises(ValueError, match=REFUSAL):
            emu.reset(delivery="boto3", delivery_endpoint_url=None)
        emu.configure(delivery="boto3", allow_aws_delivery=True)
        assert emu.settings.delivers_to_aws


def test_serve_refuses_aws_delivery_at_start_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_schedemu", "serve", "--port", str(free_port()),
         "--delivery", "boto3"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert REFUSAL in result.stderr and "SCHEDEMU_ALLOW_AWS_DELIVERY" in result.stderr


def test_the_banner_says_deliveries_reach_real_aws() -> None:
    served = Served(
        "--clock", "virtual", "--delivery", "boto3", env={"SCHEDEMU_ALLOW_AWS_DELIVERY": "true"}
    )
    _, out, _ = served.stop()
    assert "schedemu: deliveries sent to real AWS with your credentials" in out


def test_the_banner_names_where_deliveries_go() -> None:
    assert deliveries(Settings()) == "deliveries recorded, sent nowhere"
    endpoint = Settings(delivery="boto3", delivery_endpoint_url="http://127.0.0.1:4567")
    assert deliveries(endpoint) == "deliveries sent to http://127.0.0.1:4567"


QUEUE_NAME = "reminders"
QUEUE_ARN = f"arn:aws:sqs:us-east-1:123456789012:{QUEUE_NAME}"


def _schedule_into_the_queue(emu: Emulator) -> None:
    emu.client().create_schedule(
        Name="s1",
        ScheduleExpression="at(2026-03-01T10:05:00)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE_ARN, "RoleArn": "arn:aws:iam::123456789012:role/r", "Input": "hi"},
    )


@pytest.fixture
def moto_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SQS", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


def test_under_mock_aws_boto3_delivery_needs_no_opt_in(moto_environment: None) -> None:
    from moto import mock_aws

    with mock_aws(), Emulator(start="2026-03-01T10:00:00Z", delivery="boto3") as emu:
        assert not emu.settings.allow_aws_delivery
        sqs = boto3.client("sqs")
        url = sqs.create_queue(QueueName=QUEUE_NAME)["QueueUrl"]
        _schedule_into_the_queue(emu)
        emu.clock.advance(minutes=10)
        (message,) = sqs.receive_message(QueueUrl=url)["Messages"]
        assert message["Body"] == "hi"
    with Emulator() as emu, pytest.raises(ValueError, match=REFUSAL):
        emu.configure(delivery="boto3")  # the mock has ended: the opt-in is needed again


def test_a_test_switches_to_boto3_delivery_inside_mock_aws(moto_environment: None) -> None:
    from moto import mock_aws

    with Emulator() as emu, mock_aws():
        emu.configure(delivery="boto3")
        assert emu.settings.delivery == "boto3"


def test_nothing_is_sent_once_the_mock_has_ended(moto_environment: None) -> None:
    from moto import mock_aws

    with mock_aws():
        emu = Emulator(start="2026-03-01T10:00:00Z", delivery="boto3")
    with emu:
        _schedule_into_the_queue(emu)
        with pytest.raises(SchedemuError, match="sqs:SendMessage was not sent: delivery='boto3'"):
            emu.clock.advance(minutes=10)
        assert emu.attempts() == []


def test_telling_whether_moto_mocks_never_imports_it() -> None:
    script = (
        "import sys\n"
        "from pytest_schedemu.settings.options import Settings\n"
        "try:\n"
        "    Settings(delivery='boto3')\n"
        "except ValueError:\n"
        "    print('refused', 'moto' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["refused", "False"]
