"""``scheduler_client`` through pytester: the ``schedemu`` fixture hands the test its client
(sparing pytest a second fixture's setup), and everything a test could notice stays as a
fixture of its own would have it: the client, the order of the test's fixtures, overrides,
parametrization and ``--setup-show``."""

from __future__ import annotations

import pytest


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_the_client_is_the_emulators_own_and_follows_the_marker(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
import pytest

def test_plain(scheduler_client, schedemu):
    assert scheduler_client is schedemu.client()
    assert scheduler_client.list_schedules()["Schedules"] == []

@pytest.mark.schedemu(region="eu-west-1", transport="http")
def test_marked(scheduler_client, schedemu):
    assert scheduler_client.meta.region_name == "eu-west-1"
    assert scheduler_client.meta.endpoint_url == schedemu.endpoint_url
    assert scheduler_client is schedemu.client()

def test_only_the_client(scheduler_client):
    assert scheduler_client.meta.region_name == "us-east-1"
"""
    )
    _run(pytester).assert_outcomes(passed=3)


def test_fixtures_are_set_up_in_the_order_they_always_were(pytester: pytest.Pytester) -> None:
    # A function-scoped fixture named before the client runs before the emulator's
    # environment exists; one named after it runs inside it.
    pytester.makepyfile(
        """
import os
import pytest

@pytest.fixture
def probe():
    return os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")

def test_probe_first(probe, scheduler_client):
    assert probe is None

def test_probe_after(scheduler_client, probe, schedemu):
    assert probe == schedemu.endpoint_url
"""
    )
    _run(pytester).assert_outcomes(passed=2)


def test_a_conftest_override_of_the_client_is_what_the_test_gets(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
import pytest

@pytest.fixture
def scheduler_client(schedemu):
    return schedemu.client(region_name="ap-southeast-2")
"""
    )
    pytester.makepyfile(
        """
def test_overridden(scheduler_client, schedemu):
    assert scheduler_client.meta.region_name == "ap-southeast-2"
    assert scheduler_client is not schedemu.client()
"""
    )
    _run(pytester).assert_outcomes(passed=1)


def test_the_client_is_built_after_an_override_of_schedemu(pytester: pytest.Pytester) -> None:
    # The client fixture asks for ``schedemu``, so an override of it runs first: here it
    # turns the transport to HTTP, which the client must have.
    pytester.makeconftest(
        """
import pytest

@pytest.fixture
def schedemu(schedemu):
    schedemu.use_transport("http")
    return schedemu
"""
    )
    pytester.makepyfile(
        """
def test_http(scheduler_client, schedemu):
    assert scheduler_client.meta.endpoint_url == schedemu.endpoint_url
    assert scheduler_client is schedemu.client()
"""
    )
    _run(pytester).assert_outcomes(passed=1)


def test_direct_parametrization_replaces_the_client(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

@pytest.mark.parametrize("scheduler_client", ["not a client"])
def test_parametrized(scheduler_client, schedemu):
    assert scheduler_client == "not a client"
"""
    )
    _run(pytester).assert_outcomes(passed=1)


def test_setup_show_lists_the_client(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
def test_shown(scheduler_client):
    scheduler_client.list_schedules()
"""
    )
    result = _run(pytester, "--setup-show")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*SETUP    F schedemu*",
            "*SETUP    F scheduler_client (fixtures used: schedemu)*",
            "*TEARDOWN F scheduler_client*",
        ]
    )


def test_pytest_sets_up_no_fixture_for_the_client(pytester: pytest.Pytester) -> None:
    # What the handing is for: pytest runs one function-scoped fixture, not two.
    pytester.makeconftest(
        """
set_up = []

def pytest_fixture_setup(fixturedef):
    set_up.append(fixturedef.argname)
"""
    )
    pytester.makepyfile(
        """
import conftest

def test_one(scheduler_client):
    scheduler_client.list_schedules()

def test_two(scheduler_client, schedemu):
    scheduler_client.list_schedules()
    assert conftest.set_up == ["schedemu_server", "schedemu", "schedemu"]
"""
    )
    _run(pytester).assert_outcomes(passed=2)
