"""A bug in a test's target handler fails that test, wherever the handler ran."""

from __future__ import annotations

import pytest

from .test_fixtures import COMMON, QUEUE

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

# A test file's opening: the helpers, and a handler with a bug.
OPENING = (
    COMMON
    + """
import pytest

def handler(attempt):
    undefined_name
"""
)

HEADLINE = (
    f"The handler of {QUEUE} raised NameError: name 'undefined_name' is not defined "
    "(attempt 1 of schedule default/s1, scheduled at 2026-03-01T10:00:00Z)"
)


def test_a_name_error_in_a_handler_fails_the_test_that_moved_the_clock(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        OPENING
        + """
@pytest.mark.schedemu(start="2026-03-01T10:00:00Z")
def test_reminder(schedemu, scheduler_client):
    schedemu.target(QUEUE).handle(handler)
    create(scheduler_client)
    schedemu.clock.advance(hours=1)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            ">       undefined_name",
            "E       NameError: name 'undefined_name' is not defined",
            "*direct cause of the following exception*",
            ">       schedemu.clock.advance(hours=1)",
            f"E  *HandlerError: {HEADLINE}*",
        ]
    )


def test_a_handler_bug_in_a_move_over_http_fails_the_test_at_teardown(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        OPENING
        + """
import urllib.error
import urllib.request

@pytest.mark.schedemu(start="2026-03-01T10:00:00Z")
def test_application_moves_the_clock(schedemu, scheduler_client):
    schedemu.target(QUEUE).handle(handler)
    create(scheduler_client, "s1")
    create(scheduler_client, "s2")
    url = schedemu.endpoint_url + "/_schedemu/clock/tick"
    for _ in range(2):  # each tick stops at the first bug it meets
        try:
            request = urllib.request.Request(
                url, data=b"{}", method="POST", headers={"Content-Type": "application/json"}
            )
            urllib.request.urlopen(request)
        except urllib.error.HTTPError as error:
            error.close()  # an application that does not look at the answer
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_application_moves_the_clock*",
            f"schedemu: {HEADLINE}*",
            "Traceback (most recent call last):",
            '  File "*", line *, in handler',
            "    undefined_name",
            "NameError: name 'undefined_name' is not defined",
            "(and 1 more: see schedemu.handler_errors)",
        ]
    )


def test_a_handler_bug_in_real_time_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest

from pytest_schedemu import Emulator

@pytest.fixture(scope="session")
def schedemu_server():
    with Emulator(clock="real", tick_interval=0.05) as emulator:
        yield emulator
"""
    )
    pytester.makepyfile(
        OPENING
        + """
import time

def test_delivered_as_time_passes(schedemu, scheduler_client):
    schedemu.target(QUEUE).handle(handler)
    create(scheduler_client, expression="at(2020-01-01T00:00:00)")
    deadline = time.monotonic() + 10
    while not schedemu.attempts() and time.monotonic() < deadline:
        time.sleep(0.01)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            f"schedemu: The handler of {QUEUE} raised NameError: name 'undefined_name' is not "
            "defined (attempt 1 of schedule default/s1, scheduled at 2020-01-01T00:00:00Z)*",
            "    undefined_name",
        ]
    )
