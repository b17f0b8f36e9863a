"""The plugin's fixtures through pytester: the ``schedemu`` fixture hands the test its client,
and a test whose other fixtures cannot reach the emulator gets it from its own setup (sparing
pytest a function-scoped fixture's setup each time). Everything a test could notice stays as
fixtures of their own would have it: the client, the order of the test's fixtures' setups
and teardowns, fixtures that ask for the emulator, overrides, parametrization and
``--setup-show``."""

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
    schedemu.configure(transport="http")
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


def test_pytest_sets_up_no_function_scoped_fixture(pytester: pytest.Pytester) -> None:
    # What the handing is for: pytest runs no function-scoped fixture of the plugin's, only
    # the session's emulator, once.
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
    assert conftest.set_up == ["schedemu_server"]
"""
    )
    _run(pytester).assert_outcomes(passed=2)


def test_setups_and_teardowns_keep_their_order_around_the_emulator(
    pytester: pytest.Pytester,
) -> None:
    # A fixture set up before the emulator sees no environment on either side of the test;
    # one set up after it sees the environment at its teardown too (torn down first).
    pytester.makepyfile(
        """
import os
import pytest

seen = []

@pytest.fixture
def before():
    seen.append(("before up", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))
    yield
    seen.append(("before down", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))

@pytest.fixture
def after():
    seen.append(("after up", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))
    yield
    seen.append(("after down", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))

def test_one(before, schedemu, after):
    seen.append(("test", schedemu.endpoint_url))

def test_check():
    url = seen[2][1]
    assert url
    assert seen == [
        ("before up", None),
        ("after up", url),
        ("test", url),
        ("after down", url),
        ("before down", None),
    ]
"""
    )
    _run(pytester).assert_outcomes(passed=2)


def test_fixtures_that_reach_the_emulator_share_one_setup(pytester: pytest.Pytester) -> None:
    # Made in a fixture, before the test: a second setup of the emulator would reset it away.
    pytester.makepyfile(
        """
import pytest

START = {"ScheduleExpression": "rate(1 hour)", "FlexibleTimeWindow": {"Mode": "OFF"},
         "Target": {"Arn": "arn:aws:sqs:us-east-1:123456789012:q",
                    "RoleArn": "arn:aws:iam::123456789012:role/r"}}

@pytest.fixture
def made(schedemu):
    schedemu.client().create_schedule(Name="by-fixture", **START)

@pytest.fixture
def fetched(request):
    request.getfixturevalue("schedemu").client().create_schedule(Name="by-request", **START)

def test_dependent(made, schedemu):
    assert [s["Name"] for s in schedemu.client().list_schedules()["Schedules"]] == ["by-fixture"]

def test_by_request(schedemu, fetched):
    assert [s["Name"] for s in schedemu.client().list_schedules()["Schedules"]] == ["by-request"]

def test_by_request_first(fetched, scheduler_client):
    assert [s["Name"] for s in scheduler_client.list_schedules()["Schedules"]] == ["by-request"]
"""
    )
    _run(pytester).assert_outcomes(passed=3)


def test_a_failure_after_the_test_is_an_error_at_its_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
def test_steers_nothing(schedemu):
    schedemu.target("arn:aws:sqs:us-east-1:123456789012:nowhere").fail()
"""
    )
    result = _run(pytester)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_steers_nothing*", "*no attempt*"])


def test_a_pytest_without_the_internals_gets_ordinary_fixtures_in_the_same_order(
    pytester: pytest.Pytester,
) -> None:
    # A pytest whose tests lack what the handing and the own setup read: pytest sets the
    # plugin's function-scoped fixtures up itself, and a test sees what it always saw.
    pytester.makeconftest(
        """
import os
import pytest
from pytest_schedemu.plugin import placement

set_up = []
seen = []
kept = placement.fits_pytest

def pytest_configure():
    placement.fits_pytest = lambda item: False

def pytest_unconfigure():
    placement.fits_pytest = kept

def pytest_fixture_setup(fixturedef):
    set_up.append(fixturedef.argname)

@pytest.fixture
def before():
    seen.append(("before up", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))
    yield
    seen.append(("before down", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))

@pytest.fixture
def after():
    seen.append(("after up", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))
    yield
    seen.append(("after down", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))
"""
    )
    pytester.makepyfile(
        """
import conftest
import pytest

def test_one(before, schedemu, after):
    seen = conftest.seen
    seen.append(("test", schedemu.endpoint_url))

@pytest.mark.schedemu(region="eu-west-1")
def test_client(scheduler_client, schedemu):
    assert scheduler_client.meta.region_name == "eu-west-1"
    assert scheduler_client.list_schedules()["Schedules"] == []

def test_check():
    seen = conftest.seen
    url = seen[2][1]
    assert url
    assert seen == [
        ("before up", None),
        ("after up", url),
        ("test", url),
        ("after down", url),
        ("before down", None),
    ]
    assert conftest.set_up == [
        "schedemu_server", "before", "schedemu", "after", "schedemu", "scheduler_client",
    ]
"""
    )
    _run(pytester).assert_outcomes(passed=3)
