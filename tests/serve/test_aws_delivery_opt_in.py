"""Delivery that reaches AWS itself, with the developer's credentials, is an explicit choice.

A schedule's universal target may name any AWS action (``aws-sdk:iam:createAccessKey``), so
boto3 delivery without an endpoint of its own is refused unless ``allow_aws_delivery`` says
so, and the service's banner says where deliveries go.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_schedemu import Emulator
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
