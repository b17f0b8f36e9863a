"""Scheduled EventBridge rules fire on the emulator's clock as AWS fires them: each target
its own invocation, rate() counted from the rule's activation, cron() in UTC, and a
disabled rule, a removed target or a deleted rule stopping at once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, T0
from tests.helpers import put_rule, rule_target

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"
OTHER_QUEUE = "arn:aws:sqs:us-east-1:123456789012:other"


def times(emu: Emulator, **filters: str) -> list[str]:
    return [a.scheduled_time.strftime("%H:%M") for a in emu.attempts(**filters)]


def test_a_rate_rule_first_fires_one_period_after_it_was_created(emu: Emulator) -> None:
    put_rule(emu, "nightly", "rate(5 minutes)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=4, seconds=59)
    assert emu.attempts() == []
    emu.clock.advance(minutes=10, seconds=1)
    assert times(emu) == ["10:05", "10:10", "10:15"]


def test_rate_counts_from_creation_not_from_the_hour(emu: Emulator) -> None:
    emu.clock.advance(minutes=2, seconds=30)
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=3)
    assert [a.scheduled_time for a in emu.attempts()] == [
        T0 + timedelta(hours=n, minutes=2, seconds=30) for n in (1, 2, 3)
    ]


def test_a_cron_rule_fires_at_its_utc_matches_after_its_creation(emu: Emulator) -> None:
    put_rule(emu, "nightly", "cron(0 * * * ? *)", rule_target("q", QUEUE))
    emu.clock.advance(hours=2)
    # 10:00 is the instant of its creation: the rule was not there to fire then.
    assert times(emu) == ["11:00", "12:00"]


def test_each_target_receives_the_same_event_in_an_invocation_of_its_own(
    emu: Emulator,
) -> None:
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE), rule_target("f", FUNCTION))
    made = emu.clock.advance(hours=1)
    assert [(a.target_id, a.target_arn) for a in made] == [("q", QUEUE), ("f", FUNCTION)]
    assert made[0].event_id == made[1].event_id == made[0].payload["id"]
    assert made[0].execution_id != made[1].execution_id
    assert made[0].payload == {
        "version": "0",
        "id": made[0].event_id,
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-03-01T11:00:00Z",
        "region": "us-east-1",
        "resources": [RULE],
        "detail": {},
    }
    assert made[1].request["FunctionName"] == FUNCTION


def test_a_custom_input_is_delivered_verbatim(emu: Emulator) -> None:
    text = '{"custom-value": "somecustominput", "at": "<aws.events.rule-name>"}'
    put_rule(emu, "nightly", "rate(1 minute)", rule_target("q", QUEUE, Input=text))
    [attempt] = emu.clock.advance(minutes=1)
    assert attempt.input == text
    assert attempt.request["MessageBody"] == text


def test_an_event_pattern_rule_never_fires_on_the_clock(emu: Emulator) -> None:
    put_rule(emu, "matcher", None, rule_target("q", QUEUE), pattern='{"source": ["my.app"]}')
    emu.clock.advance(days=2)
    assert emu.attempts() == []
    assert emu.pending() == []


def test_a_disabled_rule_stops_at_once_and_enabling_restarts_the_count(
    emu: Emulator,
) -> None:
    put_rule(emu, "nightly", "rate(10 minutes)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=15)
    emu.client("events").disable_rule(Name="nightly")
    emu.clock.advance(hours=1)
    assert times(emu) == ["10:10"]
    emu.client("events").enable_rule(Name="nightly")
    emu.clock.advance(minutes=25)
    # Enabled again at 11:15: its first period ends at 11:25.
    assert times(emu) == ["10:10", "11:25", "11:35"]


def test_retries_of_an_occurrence_go_on_after_its_rule_is_disabled(emu: Emulator) -> None:
    emu.target(QUEUE).fail(times=2)
    put_rule(emu, "nightly", "rate(10 minutes)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=10)
    emu.client("events").disable_rule(Name="nightly")
    emu.clock.advance(hours=1)
    # A disabled rule no longer triggers; the event it sent before is still delivered.
    assert [(a.attempt_number, a.succeeded) for a in emu.attempts()] == [
        (1, False),
        (2, False),
        (3, True),
    ]
    assert emu.executions(rule="nightly")[0].status == "success"


def test_a_target_added_later_keeps_the_rules_phase(emu: Emulator) -> None:
    put_rule(emu, "nightly", "rate(10 minutes)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=13)
    emu.client("events").put_targets(Rule="nightly", Targets=[rule_target("o", OTHER_QUEUE)])
    emu.clock.advance(minutes=20)
    assert times(emu, target_arn=QUEUE) == ["10:10", "10:20", "10:30"]
    assert times(emu, target_arn=OTHER_QUEUE) == ["10:20", "10:30"]


def test_a_removed_target_stops_and_its_retries_are_cancelled(emu: Emulator) -> None:
    emu.target(OTHER_QUEUE).fail()
    put_rule(
        emu,
        "nightly",
        "rate(10 minutes)",
        rule_target("q", QUEUE),
        rule_target("o", OTHER_QUEUE, DeadLetterConfig={"Arn": DLQ}),
    )
    emu.clock.advance(minutes=10)
    emu.client("events").remove_targets(Rule="nightly", Ids=["o"])
    emu.clock.advance(hours=1)
    assert times(emu, target_arn=OTHER_QUEUE) == ["10:10"]
    assert len(emu.attempts(target_arn=QUEUE)) == 7
    cancelled = emu.activity("cancelled")
    assert [(c.target_id, c.detail) for c in cancelled] == [("o", "target_removed")]
    assert emu.dead_letters() == []
    assert [(a.kind, a.detail) for a in emu.activity("deleted")] == [("deleted", "target_removed")]


def test_a_deleted_rule_stops_at_once(emu: Emulator) -> None:
    put_rule(emu, "nightly", "rate(1 minute)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=3)
    events = emu.client("events")
    events.remove_targets(Rule="nightly", Ids=["q"])
    events.delete_rule(Name="nightly")
    emu.clock.advance(hours=1)
    assert times(emu) == ["10:01", "10:02", "10:03"]
    assert emu.pending() == []


def test_a_target_put_again_with_a_new_definition_keeps_the_phase(emu: Emulator) -> None:
    put_rule(emu, "nightly", "rate(10 minutes)", rule_target("q", QUEUE))
    emu.clock.advance(minutes=12)
    emu.client("events").put_targets(
        Rule="nightly", Targets=[rule_target("q", QUEUE, Input='{"v": 2}')]
    )
    emu.clock.advance(minutes=10)
    assert [(a.scheduled_time.minute, a.input) for a in emu.attempts()][1:] == [(20, '{"v": 2}')]
    assert [a.kind for a in emu.activity() if a.target_id == "q"] == ["created", "updated"]


def test_a_rule_fires_the_same_way_on_every_run(session_emulator: Emulator) -> None:
    def run() -> list[tuple[str, str, str]]:
        session_emulator.reset(start=T0)
        emu = session_emulator
        emu.target(OTHER_QUEUE).fail(times=3)
        put_rule(
            emu,
            "nightly",
            "rate(7 minutes)",
            rule_target("q", QUEUE),
            rule_target(
                "o",
                OTHER_QUEUE,
                RetryPolicy={"MaximumEventAgeInSeconds": 60, "MaximumRetryAttempts": 2},
            ),
        )
        made = emu.clock.advance(hours=2)
        return [(a.target_id, a.execution_id, a.attempted_at.isoformat()) for a in made]

    assert run() == run()


def test_a_long_quiet_stretch_of_rules_plays_in_bulk_as_item_by_item(emu: Emulator) -> None:
    def play(bulk: bool) -> list[tuple[str, str, str, str]]:
        emu.reset(start=T0)
        emu.debug.play_in_bulk_from(3600 if bulk else None)
        put_rule(emu, "a", "rate(7 minutes)", rule_target("q", QUEUE), rule_target("f", FUNCTION))
        put_rule(emu, "b", "cron(15 */2 * * ? *)", rule_target("q", QUEUE))
        runs = emu.debug.bulk_runs
        made = emu.clock.advance(days=2)
        assert (emu.debug.bulk_runs > runs) == bulk
        return [(a.target_id, a.event_id, a.execution_id, a.attempted_at.isoformat()) for a in made]

    try:
        assert play(True) == play(False)
    finally:
        emu.debug.play_in_bulk_from(3600)


APPLICATION = """
import boto3

# Built at import, before any test and before the emulator exists, as application code does.
EVENTS = boto3.client(
    "events", region_name="us-east-1",
    aws_access_key_id="AKIAIOSFODNN7EXAMPLE", aws_secret_access_key="secret",
)
QUEUE = "arn:aws:sqs:us-east-1:123456789012:exports"


def schedule_the_nightly_export():
    EVENTS.put_rule(Name="nightly-export", ScheduleExpression="cron(0 2 * * ? *)")
    EVENTS.put_targets(
        Rule="nightly-export",
        Targets=[{"Id": "export", "Arn": QUEUE, "Input": '{"job": "export"}'}],
    )


def test_the_export_runs_every_night(schedemu):
    schedule_the_nightly_export()
    schedemu.clock.advance(days=3)
    delivered = schedemu.assert_delivered(
        QUEUE, count=3, payload={"job": "export"}, rule="nightly-export"
    )
    assert [d.scheduled_time.hour for d in delivered] == [2, 2, 2]
"""


def test_a_rule_made_by_a_module_level_client_fires_on_advance(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EVENTS", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(APPLICATION)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
