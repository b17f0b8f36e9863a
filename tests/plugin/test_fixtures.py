"""The plugin through pytester: fixtures, marker, options, environment, teardown checks."""

from __future__ import annotations

import pytest

from pytest_schedemu.wire.clients import applications_session
from tests.constants import QUEUE, ROLE

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

# The head of a user's test file, which names its queue and role itself.
COMMON = f'''
QUEUE = "{QUEUE}"
ROLE = "{ROLE}"

def create(client, name="s1", expression="rate(1 hour)", **extra):
    client.create_schedule(
        Name=name,
        ScheduleExpression=expression,
        FlexibleTimeWindow={{"Mode": "OFF"}},
        Target={{"Arn": QUEUE, "RoleArn": ROLE}},
        **extra,
    )
'''


def test_first_test_from_the_readme(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
from datetime import timedelta

def test_reminder(schedemu):
    client = schedemu.client()
    create(client, expression="rate(1 hour)")
    schedemu.clock.advance(timedelta(days=1))
    assert len(schedemu.deliveries(target_arn=QUEUE)) == 25
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_state_is_reset_between_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
def test_one(scheduler_client):
    create(scheduler_client)
    assert len(scheduler_client.list_schedules()["Schedules"]) == 1

def test_two(scheduler_client, schedemu):
    assert scheduler_client.list_schedules()["Schedules"] == []
    assert schedemu.attempts() == []
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_one_server_per_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
seen = []

def test_one(schedemu, schedemu_server):
    assert schedemu is schedemu_server
    seen.append(schedemu.endpoint_url)

def test_two(schedemu):
    assert seen == [schedemu.endpoint_url]
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_marker_sets_start_region_account_and_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest
from datetime import datetime, timezone

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", region="eu-west-1",
                      account_id="111122223333", seed=7)
def test_marked(schedemu):
    assert schedemu.clock.now() == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert schedemu.region == "eu-west-1"
    assert schedemu.account_id == "111122223333"
    assert schedemu.settings.seed == 7
    arn = schedemu.client().create_schedule_group(Name="g")["ScheduleGroupArn"]
    assert arn == "arn:aws:scheduler:eu-west-1:111122223333:schedule-group/g"

def test_unmarked_gets_defaults(schedemu):
    assert schedemu.region == "us-east-1"
    assert schedemu.account_id == "123456789012"
    assert schedemu.settings.seed == 0
"""
    )
    pytester.runpytest("-p", "no:cacheprovider", "--strict-markers").assert_outcomes(passed=2)


def test_default_start_is_the_wall_clock_now(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
from datetime import datetime, timezone

def test_now(schedemu):
    now = schedemu.clock.now()
    assert now.microsecond == 0
    assert abs((datetime.now(timezone.utc) - now).total_seconds()) < 5
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_precedence_marker_over_command_line_over_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
[pytest]
schedemu_region = ap-south-1
schedemu_start = 2031-01-01T00:00:00Z
schedemu_seed = 3
"""
    )
    pytester.makepyfile(
        """
import pytest

def test_ini_and_cli(schedemu):
    assert schedemu.region == "ap-south-1"
    assert schedemu.clock.now().year == 2032
    assert schedemu.settings.seed == 3

@pytest.mark.schedemu(region="sa-east-1", start="2033-01-01T00:00:00Z")
def test_marker_wins(schedemu):
    assert schedemu.region == "sa-east-1"
    assert schedemu.clock.now().year == 2033
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--schedemu-start=2032-01-01T00:00:00Z")
    result.assert_outcomes(passed=2)


def test_command_line_transport_and_account(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
def test_transport(schedemu):
    assert schedemu.transport == "inprocess"
    assert schedemu.account_id == "999988887777"
    schedemu.client().list_schedules()
"""
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--schedemu-transport=inprocess",
        "--schedemu-account-id=999988887777",
    )
    result.assert_outcomes(passed=1)


def test_environment_points_application_code_at_the_emulator(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
import os
import boto3

def test_app_client(schedemu, monkeypatch):
    assert os.environ["AWS_ENDPOINT_URL_SCHEDULER"] == schedemu.endpoint_url
    client = boto3.client("scheduler")          # application code, unchanged
    create(client)
    assert schedemu.client().get_schedule(Name="s1")["Name"] == "s1"
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("run", ["runpytest_inprocess", "runpytest_subprocess"])
def test_the_emulators_clients_need_no_profile(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, run: str
) -> None:
    # A profile that does not exist fails every client of boto3's default session, whether
    # that session was made before the profile was named (in process) or is made now (in a
    # new process).
    applications_session()
    monkeypatch.setenv("AWS_PROFILE", "fake")
    pytester.makepyfile(
        COMMON
        + """
def test_clients(scheduler_client, schedemu):
    create(scheduler_client)
    events = schedemu.client("events")
    events.put_rule(Name="nightly", ScheduleExpression="rate(1 day)")
    irish = schedemu.client(region_name="eu-west-1")
    assert irish.list_schedules()["Schedules"] == []
    assert [s.name for s in schedemu.schedules()] == ["s1"]
    assert events.describe_rule(Name="nightly")["State"] == "ENABLED"
"""
    )
    getattr(pytester, run)("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_environment_is_restored_after_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL_SCHEDULER", raising=False)
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-central-1")
    pytester.makepyfile(
        """
import os

def test_uses(schedemu):
    assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"
    assert os.environ["AWS_DEFAULT_REGION"] == "eu-central-1"   # kept: it was set

def test_after():
    assert "AWS_ENDPOINT_URL_SCHEDULER" not in os.environ
    assert "AWS_ACCESS_KEY_ID" not in os.environ
    assert os.environ["AWS_DEFAULT_REGION"] == "eu-central-1"
"""
    )
    # Without it, the run itself has the test credentials (test_nothing_reaches_aws.py).
    no_lending = "--schedemu-set-default-credentials=false"
    pytester.runpytest_subprocess("-p", "no:cacheprovider", no_lending).assert_outcomes(passed=2)


def test_server_error_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

def broken(call, params):
    raise RuntimeError("handler bug")

def test_crash(schedemu, monkeypatch):
    monkeypatch.setitem(schedemu.debug.operation_handlers, "ListSchedules", broken)
    with pytest.raises(Exception):
        schedemu.client().list_schedules()

@pytest.mark.schedemu(allow_server_errors=True)
def test_allowed(schedemu, monkeypatch):
    monkeypatch.setitem(schedemu.debug.operation_handlers, "ListSchedules", broken)
    with pytest.raises(Exception):
        schedemu.client().list_schedules()
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*internal error*", "*RuntimeError: handler bug*"])


def test_unknown_marker_argument_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
import pytest

@pytest.mark.schedemu(colour="blue")
def test_bad(schedemu):
    pass
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Unsupported @pytest.mark.schedemu arguments*colour*"])


def test_report_header_names_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["schedemu: pytest-schedemu *"])


def test_failure_report_lists_the_attempts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
def test_fails(schedemu, scheduler_client):
    create(scheduler_client)
    schedemu.clock.tick()
    assert False
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*schedemu attempts*", "*default/s1 #1 delivered*"])


def test_assert_delivered_explains_itself(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
def test_wrong_target(schedemu, scheduler_client):
    create(scheduler_client, State="DISABLED")
    schedemu.clock.advance(hours=2)
    schedemu.assert_delivered(QUEUE)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*Expected at least one delivery to arn:aws:sqs:us-east-1:123456789012:queue*",
            "*attempts: none*",
            "*default/s1 'rate(1 hour)' DISABLED, next occurrence none*",
        ]
    )


def test_freeze_moves_process_time_with_the_clock(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
import time
from datetime import datetime, timezone
import pytest

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", freeze=True)
def test_frozen(schedemu, scheduler_client):
    assert datetime.now(timezone.utc) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    seen = []
    schedemu.target(QUEUE).handle(lambda attempt: seen.append(time.time()))
    create(scheduler_client, expression="rate(30 minutes)")
    schedemu.clock.advance(hours=1)
    assert seen == [1893456000.0, 1893457800.0, 1893459600.0]
    assert datetime.now(timezone.utc) == datetime(2030, 1, 1, 1, tzinfo=timezone.utc)

def test_real_again():
    assert datetime.now(timezone.utc).year < 2030
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_freeze_composes_with_an_outer_freeze_time(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
from datetime import datetime, timezone
from freezegun import freeze_time
import pytest

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", freeze=True)
def test_own_freeze_follows_the_emulator_once_the_clock_moves(schedemu):
    with freeze_time("2020-05-05T00:00:00Z"):
        assert datetime.now(timezone.utc).year == 2020
        schedemu.clock.advance(days=1)
        assert datetime.now(timezone.utc) == datetime(2030, 1, 2, tzinfo=timezone.utc)
    assert datetime.now(timezone.utc) == datetime(2030, 1, 2, tzinfo=timezone.utc)

@pytest.mark.schedemu(start="2030-01-01T00:00:00Z", freeze=True)
def test_pytest_freezer_fixture_follows_the_emulator(schedemu, freezer):
    schedemu.clock.advance(hours=1)
    assert datetime.now(timezone.utc) == datetime(2030, 1, 1, 1, tzinfo=timezone.utc)
    # The emulator drives: moving the freezer by hand leaves the emulator's clock alone.
    freezer.move_to("2040-01-01T00:00:00Z")
    assert schedemu.clock.now() == datetime(2030, 1, 1, 1, tzinfo=timezone.utc)

@freeze_time("2020-05-05T00:00:00Z")
def test_unfrozen_emulator_keeps_its_own_clock(schedemu):
    assert datetime.now(timezone.utc).year == 2020
    schedemu.clock.advance(days=1)
    assert datetime.now(timezone.utc).year == 2020
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_xdist_workers_have_their_own_servers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
import os
import time
import pytest

@pytest.mark.parametrize("index", range(8))
def test_isolated(schedemu, scheduler_client, index):
    create(scheduler_client, name=f"s{index}")
    names = [s["Name"] for s in scheduler_client.list_schedules()["Schedules"]]
    assert names == [f"s{index}"]
    path = os.path.join(os.environ["RESULTS"], os.environ["PYTEST_XDIST_WORKER"])
    with open(path, "a") as handle:
        handle.write(schedemu.endpoint_url + "\\n")
    # Both workers' servers up at once: a port one freed as its session ended could be
    # the other's next, so only servers that overlap must differ.
    deadline = time.monotonic() + 60
    while len(os.listdir(os.environ["RESULTS"])) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
"""
    )
    results = pytester.mkdir("results")
    import os

    os.environ["RESULTS"] = str(results)
    try:
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    finally:
        del os.environ["RESULTS"]
    result.assert_outcomes(passed=8)
    endpoints = {path.name: set(path.read_text().split()) for path in results.iterdir()}
    assert len(endpoints) == 2
    assert all(len(urls) == 1 for urls in endpoints.values())
    assert len(set.union(*endpoints.values())) == 2
