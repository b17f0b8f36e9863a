"""The mistakes real users made that once passed while checking nothing, replayed through
pytester: each one now fails, with a short report that names its cause at the test's line."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

FN = "arn:aws:lambda:us-east-1:123456789012:function:charge"

HEADER = f'''
import pytest

FN = "{FN}"
DLQ = "arn:aws:sqs:us-east-1:123456789012:dlq"
ROLE = "arn:aws:iam::123456789012:role/scheduler"
TRIAL_END = "at(2026-03-01T10:00:00)"
pytestmark = pytest.mark.schedemu(start="2026-03-01T09:00:00Z")


def schedule(client, name, expression="rate(1 day)", group="default", **target):
    client.create_schedule(
        Name=name,
        GroupName=group,
        ScheduleExpression=expression,
        FlexibleTimeWindow={{"Mode": "OFF"}},
        Target={{"Arn": FN, "RoleArn": ROLE, "Input": '{{"user": "ada"}}', **target}},
    )
'''

MISTAKES = """
def test_paused_then_denied_without_moving_the_clock(schedemu, scheduler_client):
    schedule(scheduler_client, "charge-ada", expression="at(2026-03-02T09:00:00)")
    scheduler_client.update_schedule(
        Name="charge-ada",
        ScheduleExpression="at(2026-03-02T09:00:00)",
        State="DISABLED",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": FN, "RoleArn": ROLE},
    )
    schedemu.assert_not_delivered(FN)


def test_no_dead_letter_where_no_schedule_had_a_queue(schedemu, scheduler_client):
    schedemu.target(FN).missing()
    schedule(scheduler_client, "trial-ada", expression=TRIAL_END)
    schedemu.clock.advance(hours=2)
    schedemu.assert_not_dead_lettered()


def test_no_dead_letter_while_the_message_was_dropped(schedemu, scheduler_client):
    schedemu.target(FN).missing()
    schedule(scheduler_client, "trial-ada", expression=TRIAL_END)
    schedule(scheduler_client, "renewal", "at(2026-04-01T09:00:00)", DeadLetterConfig={"Arn": DLQ})
    schedemu.clock.advance(hours=2)
    schedemu.assert_not_dead_lettered(DLQ)


def test_not_delivered_in_a_group_that_never_existed(schedemu, scheduler_client):
    scheduler_client.create_schedule_group(Name="subscriptions")
    schedule(scheduler_client, "charge-ada", group="subscriptions")
    schedemu.clock.advance(days=1)
    schedemu.assert_not_delivered(FN, group="subscription")


def test_no_deliveries_in_a_group_that_never_existed(schedemu, scheduler_client):
    scheduler_client.create_schedule_group(Name="subscriptions")
    schedule(scheduler_client, "charge-ada", group="subscriptions")
    schedemu.clock.advance(days=1)
    assert schedemu.deliveries(FN, group="subscription") == []


def test_not_delivered_with_a_payload_key_no_payload_has(schedemu, scheduler_client):
    schedule(scheduler_client, "charge-ada")
    schedemu.clock.advance(days=1)
    schedemu.assert_not_delivered(FN, payload_contains={"usr": "ada"})


def test_not_dead_lettered_with_an_attribute_no_dead_letter_has(schedemu, scheduler_client):
    schedemu.target(FN).missing()
    schedule(scheduler_client, "trial-ada", expression=TRIAL_END, DeadLetterConfig={"Arn": DLQ})
    schedemu.clock.advance(hours=2)
    schedemu.assert_not_dead_lettered(DLQ, attributes={"ERRORCODE": "ResourceNotFoundException"})


def test_reminder_denied_a_minute_after_it_was_set(schedemu, scheduler_client):
    schedule(scheduler_client, "reminder-cy", expression="at(2026-03-02T09:30:00)")
    schedemu.clock.advance(minutes=1)
    schedemu.assert_not_delivered(FN, schedule="reminder-cy")


@pytest.mark.schedemu(start="2026-03-01T10:00:00Z")
def test_lunch_report_denied_before_lunch(schedemu, scheduler_client):
    schedule(scheduler_client, "lunch-report", expression="cron(0 13 * * ? *)")
    schedemu.clock.advance(hours=1)
    schedemu.assert_not_delivered(FN)


def test_delivered_from_a_schedule_that_never_existed(schedemu, scheduler_client):
    schedule(scheduler_client, "charge-ada")
    schedemu.clock.advance(days=1)
    schedemu.assert_delivered(FN, schedule="charge-adda")
"""

#: Each replayed test, the section of the report that must say why, and what it must say.
CAUSES = {
    "test_paused_then_denied_without_moving_the_clock": [
        "*nothing in its scope could have fired by 2026-03-01T09:00:00Z, so nothing could have "
        "been delivered: move the clock past 2026-03-02T09:00:00Z (default/charge-ada's next "
        "occurrence), then assert."
    ],
    "test_reminder_denied_a_minute_after_it_was_set": [
        "*nothing in its scope could have fired by 2026-03-01T09:01:00Z, so nothing could have "
        "been delivered: move the clock past 2026-03-02T09:30:00Z (default/reminder-cy's next "
        "occurrence), then assert."
    ],
    "test_lunch_report_denied_before_lunch": [
        "*nothing in its scope could have fired by 2026-03-01T11:00:00Z, so nothing could have "
        "been delivered: move the clock past 2026-03-01T13:00:00Z (default/lunch-report's next "
        "occurrence), then assert."
    ],
    "test_no_dead_letter_where_no_schedule_had_a_queue": [
        "*no schedule or rule target in this test ever had a dead-letter queue*"
    ],
    "ERROR at teardown of test_no_dead_letter_where_no_schedule_had_a_queue": [
        "schedemu: 1 occurrence was lost during this test*",
        "  2026-03-01T10:00:00Z default/trial-ada scheduled 2026-03-01T10:00:00Z dropped: "
        "ResourceNotFoundException: *",
    ],
    # The only schedule with a queue could not have fired yet: the assertion says so, and
    # the teardown still reports the drop.
    "test_no_dead_letter_while_the_message_was_dropped": [
        "*nothing in its scope could have fired by 2026-03-01T11:00:00Z, so nothing could have "
        "been dead-lettered: move the clock past 2026-04-01T09:00:00Z (default/renewal's next "
        "occurrence), then assert."
    ],
    "ERROR at teardown of test_no_dead_letter_while_the_message_was_dropped": [
        "schedemu: 1 occurrence was lost during this test*",
        "  2026-03-01T10:00:00Z default/trial-ada scheduled 2026-03-01T10:00:00Z dropped: "
        "ResourceNotFoundException: *",
    ],
    "test_not_delivered_in_a_group_that_never_existed": [
        "E*LookupError: No schedule group 'subscription' ever existed*closest first: "
        "subscriptions, default"
    ],
    "test_no_deliveries_in_a_group_that_never_existed": [
        "E*LookupError: No schedule group 'subscription' ever existed*closest first: "
        "subscriptions, default"
    ],
    "test_not_delivered_with_a_payload_key_no_payload_has": [
        "E*ValueError: payload_contains key 'usr' is in no payload*closest first: user."
    ],
    "test_not_dead_lettered_with_an_attribute_no_dead_letter_has": [
        "E*ValueError: 'ERRORCODE' is not a dead-letter attribute*closest first: ERROR_CODE, *"
    ],
    "test_delivered_from_a_schedule_that_never_existed": [
        "E*LookupError: No schedule 'charge-adda' ever existed*closest first: charge-ada"
    ],
}


def sections(output: str) -> dict[str, list[str]]:
    """The report's sections (a failure, an error at teardown) by title, each its lines."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        title = re.fullmatch(r"_{3,} (.+?) _{3,}", line)
        if title:
            current = found[title.group(1)] = []
        elif line.startswith("=" * 10):
            current = None
        elif current is not None:
            current.append(line)
    return found


def test_every_mistake_fails_with_a_short_report_that_names_its_cause(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(HEADER + MISTAKES)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(failed=10, errors=2)
    report = sections(result.stdout.str())
    assert set(report) == set(CAUSES)
    for title, wanted in CAUSES.items():
        lines = report[title]
        pytest.LineMatcher(lines).fnmatch_lines(wanted)
        assert len(lines) <= 25, (title, lines)
        # The test's own line is the only frame: nothing of the plugin's is shown.
        assert not [line for line in lines if "pytest_schedemu/" in line], (title, lines)
        assert len(set(lines) - {""}) == len([line for line in lines if line]), (title, lines)


def test_a_lookup_through_the_api_shows_the_test_line_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + """
def test_typo(schedemu, scheduler_client):
    schedule(scheduler_client, "charge-ada")
    schedemu.clock.advance(days=1)
    schedemu.executions("charge-adda")
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    lines = sections(result.stdout.str())["test_typo"]
    assert [line for line in lines if line.startswith(">")] == [
        '>       schedemu.executions("charge-adda")'
    ]
    assert len(lines) <= 25
    # Under --full-trace every frame is there for whoever debugs the plugin itself.
    full = pytester.runpytest("-p", "no:cacheprovider", "--full-trace").stdout.str()
    assert "pytest_schedemu/records/reader.py" in full


def test_drops_asserted_or_allowed_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + """
def lose(schedemu, scheduler_client, name="trial-ada"):
    schedemu.target(FN).missing()
    schedule(scheduler_client, name, expression=TRIAL_END)
    schedemu.clock.advance(hours=2)


def test_asserted(schedemu, scheduler_client):
    lose(schedemu, scheduler_client)
    (drop,) = schedemu.assert_dropped(count=1, schedule="trial-ada")
    assert drop.detail.startswith("ResourceNotFoundException: ")


def test_one_of_two_asserted(schedemu, scheduler_client):
    schedule(scheduler_client, "trial-bob", expression=TRIAL_END)
    lose(schedemu, scheduler_client)
    schedemu.assert_dropped(schedule="trial-ada")


@pytest.mark.schedemu(allow_drops=True)
def test_allowed(schedemu, scheduler_client):
    lose(schedemu, scheduler_client)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=3, errors=1)
    report = sections(result.stdout.str())
    assert list(report) == ["ERROR at teardown of test_one_of_two_asserted"]
    pytest.LineMatcher(report["ERROR at teardown of test_one_of_two_asserted"]).fnmatch_lines(
        ["drops (1):", "  * default/trial-bob scheduled *"]
    )


@pytest.mark.parametrize("how", ["ini", "command line"])
def test_drops_may_be_allowed_for_a_whole_run(pytester: pytest.Pytester, how: str) -> None:
    pytester.makepyfile(
        HEADER
        + """
def test_lost(schedemu, scheduler_client):
    schedemu.target(FN).missing()
    schedule(scheduler_client, "trial-ada", expression=TRIAL_END)
    schedemu.clock.advance(hours=2)
"""
    )
    if how == "ini":
        pytester.makeini("[pytest]\nschedemu_allow_drops = true\n")
        result = pytester.runpytest("-p", "no:cacheprovider")
    else:
        result = pytester.runpytest("-p", "no:cacheprovider", "--schedemu-allow-drops=yes")
    result.assert_outcomes(passed=1)


def test_an_unused_rule_with_a_clock_that_never_moved_says_so(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        HEADER
        + f"""
def test_never_moved(schedemu, scheduler_client):
    schedemu.target("{FN}").fail()
    schedule(scheduler_client, "charge-ada", expression="at(2026-03-02T09:00:00)")
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    output = result.stdout.str()
    assert "mistyped ARN" not in output
    result.stdout.fnmatch_lines(
        [
            f"*steered {FN}, but no attempt ever went there (the clock never moved from "
            "2026-03-01T09:00:00Z, so no attempt was made at all*"
        ]
    )


def test_a_failure_with_no_attempts_says_so_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + """
def test_nothing_yet(schedemu, scheduler_client):
    schedule(scheduler_client, "charge-ada", expression="at(2026-03-02T09:00:00)")
    assert schedemu.deliveries(FN)
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    report = result.stdout.str().split("short test summary info")[0]
    assert report.count("attempts: none") == 1
