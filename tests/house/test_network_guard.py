"""The suite's network guard (``tests/_network_guard.py``) works: no test of the suite can
reach further than this machine, AWS least of all."""

from __future__ import annotations

import socket

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import HTTPClientError

from tests._network_guard import REFUSALS, NetworkRefused, is_local

NO_RETRIES = Config(retries={"total_max_attempts": 1, "mode": "standard"})


def test_a_connection_beyond_this_machine_is_refused() -> None:
    with pytest.raises(NetworkRefused, match=r"refused a connection to 10\.255\.255\.1:443"):
        socket.create_connection(("10.255.255.1", 443), timeout=1)
    with socket.socket() as sock, pytest.raises(NetworkRefused):
        sock.connect(("10.255.255.1", 443))
    with socket.socket(socket.AF_INET6) as sock, pytest.raises(NetworkRefused):
        sock.connect_ex(("2001:db8::1", 443, 0, 0))
    # Taken, so that the guard does not fail this test for them.
    assert len(REFUSALS.take()) == 3


def test_resolving_an_aws_name_is_refused() -> None:
    with pytest.raises(NetworkRefused, match=r"refused resolving 'scheduler\.us-east-1\.amazonaws"):
        socket.getaddrinfo("scheduler.us-east-1.amazonaws.com", 443)
    with pytest.raises(NetworkRefused):
        socket.gethostbyname("sqs.cn-north-1.amazonaws.com.cn")
    assert len(REFUSALS.take()) == 2


def test_a_scheduler_call_outside_the_emulator_never_reaches_aws() -> None:
    client = boto3.client(
        "scheduler",
        region_name="us-east-1",
        aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key="secret",
        config=NO_RETRIES,
    )
    with pytest.raises(HTTPClientError, match=r"refused resolving 'scheduler\.us-east-1"):
        client.list_schedules()
    client.close()
    assert REFUSALS.take() == ["resolving 'scheduler.us-east-1.amazonaws.com'"]


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "localhost", "0.0.0.0", ""]
)
def test_this_machine_is_local(host: str) -> None:
    assert is_local(host)


@pytest.mark.parametrize("host", ["10.255.255.1", "2001:db8::1", "example.com", "8.8.8.8"])
def test_anywhere_else_is_not(host: str) -> None:
    assert not is_local(host)


def test_a_refusal_the_code_swallowed_still_fails_the_test_even_in_a_new_process(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
import contextlib
import socket

def test_reaches_out():
    socket.create_connection(("10.255.255.1", 443), timeout=1)

def test_swallows_it():
    with contextlib.suppress(Exception):
        socket.create_connection(("10.255.255.1", 443), timeout=1)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*NetworkRefused: * refused a connection to 10.255.255.1:443",
            "*The network guard refused, during this test's call (and the code under test "
            "carried on):",
            "a connection to 10.255.255.1:443",
        ]
    )
