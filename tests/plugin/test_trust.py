"""The plugin's guards through pytester: unused steering, per-test settings that never
leak, pytest's own timings under a freeze, and failures that are short and said once."""

from __future__ import annotations

import re

import pytest

from tests.constants import FUNCTION

from .test_fixtures import COMMON

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def test_a_rule_on_a_target_nothing_attempts_fails_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + f"""
def test_typo(schedemu, scheduler_client):
    schedemu.target("{FUNCTION}x").fail()
    create(scheduler_client)
    schedemu.clock.tick()
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [f"*steered {FUNCTION}x, but no attempt ever went there*Attempted targets: {'*'}queue*"]
    )


def test_unused_rules_may_be_allowed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        f"""
import pytest

@pytest.mark.schedemu(allow_unused_targets=True)
def test_marked(schedemu):
    schedemu.target("{FUNCTION}").fail()
    schedemu.deny_role("arn:aws:iam::123456789012:role/r")

def test_used(schedemu):
    schedemu.deny_role("arn:aws:iam::123456789012:role/never")
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*steered arn:aws:iam::123456789012:role/never*"])


def test_every_test_scoped_setting_is_a_marker_keyword_and_never_leaks(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        COMMON
        + """
import pytest

@pytest.mark.schedemu(past_at="reject", max_records=5, delivery="record",
                      flexible_offsets="zero", group_deletion_delay=60,
                      sqs_queue_url_template="http://localhost/{account}/{name}",
                      max_attempts_per_advance=10)
def test_marked(schedemu):
    s = schedemu.settings
    assert (s.past_at, s.max_records, s.flexible_offsets) == ("reject", 5, "zero")
    assert (s.group_deletion_delay, s.max_attempts_per_advance) == (60, 10)
    assert s.sqs_queue_url_template == "http://localhost/{account}/{name}"

def test_next(schedemu):
    s = schedemu.settings
    assert (s.past_at, s.max_records, s.flexible_offsets) == ("fire", 100_000, "hash")
    assert (s.group_deletion_delay, s.max_attempts_per_advance) == (0, 5_000_000)
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_settings_from_the_command_line_and_the_ini_file(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
[pytest]
schedemu_past_at = skip
schedemu_max_records = 7
"""
    )
    pytester.makepyfile(
        """
def test_it(schedemu):
    assert schedemu.settings.past_at == "reject"  # the command line wins over the ini
    assert schedemu.settings.max_records == 7
    assert schedemu.settings.delivery_endpoint_url == "http://localhost:1"
"""
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--schedemu-past-at=reject",
        "--schedemu-delivery-endpoint-url=http://localhost:1",
    )
    result.assert_outcomes(passed=1)


def test_a_bad_setting_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

@pytest.mark.schedemu(past_at="sometimes")
def test_it(schedemu):
    pass
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Unsupported past_at 'sometimes'*"])


@pytest.mark.parametrize("freezer", ["-pno:freezer", "-pfreezer"])
def test_a_freeze_leaves_pytests_own_timings_alone(pytester: pytest.Pytester, freezer: str) -> None:
    pytester.makepyfile(
        """
import time
import pytest

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", freeze=True)
def test_frozen(schedemu):
    time.sleep(0.01)
    schedemu.clock.advance(days=400)
"""
    )
    result = pytester.runpytest_subprocess(
        freezer, "-p", "no:cacheprovider", "--durations=0", "--junitxml=out.xml"
    )
    result.assert_outcomes(passed=1)
    durations = [
        float(m.group(1)) for m in re.finditer(r"^(\d+\.\d+)s ", result.stdout.str(), re.M)
    ]
    assert durations and max(durations) < 60
    junit = (pytester.path / "out.xml").read_text()
    assert all(float(t) < 60 for t in re.findall(r'time="([0-9.]+)"', junit))


def test_freeze_with_time_machine(pytester: pytest.Pytester) -> None:
    pytest.importorskip("time_machine")
    pytester.makepyfile(
        """
from datetime import datetime, timezone
import pytest

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", freeze="time_machine")
def test_it(schedemu):
    assert datetime.now(timezone.utc) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    schedemu.clock.advance(hours=5)
    assert datetime.now(timezone.utc) == datetime(2030, 1, 1, 5, tzinfo=timezone.utc)
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_time_machine_missing_is_a_clear_error(pytester: pytest.Pytester) -> None:
    # A module of that name that cannot be imported stands for the package not installed.
    pytester.makepyfile(time_machine="raise ImportError('No module named time_machine')")
    pytester.makepyfile(
        """
import pytest

@pytest.mark.schedemu(freeze="time_machine")
def test_it(schedemu):
    pass
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:time_machine", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*freeze='time_machine' needs time-machine*"])


def test_an_assertion_failure_is_not_repeated_in_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
def test_it(schedemu, scheduler_client):
    create(scheduler_client)
    schedemu.clock.advance(days=2)
    schedemu.assert_delivered(QUEUE, count=1)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "schedemu attempts" not in output
    # pytest's own short summary repeats the whole message when it runs on CI; only the
    # failure report itself is ours to keep short.
    report = output.split("short test summary info")[0]
    assert 1 <= report.count("default/s1 #1 delivered") <= 13


def test_full_payloads_with_very_verbose(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON.replace('"RoleArn": ROLE}', '"RoleArn": ROLE, "Input": "y" * 300}')
        + """
def test_it(schedemu, scheduler_client):
    create(scheduler_client)
    schedemu.clock.advance(hours=2)
    schedemu.assert_delivered(QUEUE, count=1)
"""
    )
    short = pytester.runpytest("-p", "no:cacheprovider").stdout.str()
    assert "y" * 300 not in short
    full = pytester.runpytest("-p", "no:cacheprovider", "-vv").stdout.str()
    assert "y" * 300 in full
