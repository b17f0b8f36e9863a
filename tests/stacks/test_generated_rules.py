"""Scheduled rules as the real generators write them, loaded and fired on the clock: CDK's
``events.Rule`` (synthesised by aws-cdk-lib), SAM's ``Schedule`` event (translated by
aws-sam-translator) and the Serverless Framework's ``schedule`` event (its compiled
template)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from pytest_schedemu import Emulator
from tests.stacks.test_serverless import COMPILED

SAM_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "stacks" / "sam" / "template.yaml"


@pytest.fixture
def billing(emu: Emulator, cdk_assembly: Path) -> Emulator:
    emu.load_stack(cdk_assembly)
    return emu


def test_cdks_hourly_report_sends_its_transformed_input_to_the_queue(billing: Emulator) -> None:
    stack = billing.stack("Billing")
    report = stack.rule("HourlyReport")  # the construct id, not the logical id
    assert report.schedule_expression == "rate(1 hour)"
    assert report.description == "Ask for the billing report every hour"
    billing.clock.advance(hours=2, minutes=1)
    sent = billing.deliveries(stack.resource("ChargeQueue").arn, rule=report.name)
    assert [d.payload for d in sent] == [
        {"report": "hourly", "at": "2026-03-01T11:00:00Z"},
        {"report": "hourly", "at": "2026-03-01T12:00:00Z"},
    ]
    # The target's key names the rule and CDK's target id.
    assert {(d.source, d.rule_arn, d.target_id) for d in sent} == {("rule", report.arn, "Target0")}


def test_cdks_hourly_report_is_retried_twice_then_dead_lettered(billing: Emulator) -> None:
    stack = billing.stack("Billing")
    report = stack.rule("HourlyReport")
    billing.target(stack.resource("ChargeQueue").arn).fail(error_code="ServiceUnavailable")
    billing.clock.advance(hours=1, minutes=1)
    assert len(billing.attempts(rule=report.name)) == 3
    (letter,) = billing.dead_letters(rule=report.name)
    assert letter.queue_arn == stack.resource("ChargeDeadLetters").arn
    assert letter.attributes["RULE_ARN"] == report.arn
    assert letter.attributes["TARGET_ARN"] == stack.resource("ChargeQueue").arn
    assert letter.attributes["RETRY_ATTEMPTS"] == "2"
    assert json.loads(letter.body) == {"report": "hourly", "at": "2026-03-01T11:00:00Z"}


def test_sams_schedule_event_sends_its_input_to_the_function(emu: Emulator) -> None:
    stack = emu.load_stack(SAM_EXAMPLE)
    nightly = stack.rule("CleanUpNightly")  # SAM's logical id: the function's, the event's
    cleanup = stack.resource("CleanUp").arn
    assert [(t.id, t.arn) for t in nightly.targets] == [("CleanUpNightlyLambdaTarget", cleanup)]
    emu.clock.advance(days=2)
    sent = emu.deliveries(cleanup)
    assert [d.scheduled_time.isoformat() for d in sent] == [
        "2026-03-02T10:00:00+00:00",
        "2026-03-03T10:00:00+00:00",
    ]
    assert sent[0].payload == {"scope": "expired"}
    assert [s.name for s in stack.schedules] == [
        stack.resource("SendRemindersWeekdayMornings").physical_name
    ]


def test_a_serverless_schedule_event_sends_the_scheduled_event(
    emu: Emulator, tmp_path: Path
) -> None:
    path = tmp_path / ".serverless" / "cloudformation-template-update-stack.json"
    path.parent.mkdir()
    path.write_text(json.dumps(COMPILED))
    stack = emu.load_stack(path, stack_name="reports-dev")
    daily = stack.rule("DailyEventsRuleSchedule1")
    emu.clock.move_to("2026-03-02T07:00:00Z")
    (sent,) = emu.deliveries(stack.resource("DailyLambdaFunction").arn)
    event = sent.payload
    assert uuid.UUID(event.pop("id"))
    assert event == {
        "version": "0",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-03-02T06:00:00Z",
        "region": "us-east-1",
        "resources": [daily.arn],
        "detail": {},
    }


def test_a_restart_on_the_same_state_takes_the_stacks_rules_back_and_keeps_their_phase(
    tmp_path: Path,
) -> None:
    state = str(tmp_path / "state.db")
    start = "2026-03-01T10:00:30Z"
    with Emulator(start=start, state=state, stacks=[str(SAM_EXAMPLE)]) as first:
        nightly = first.stack("template").rule("CleanUpNightly")
        first.clock.advance(hours=12)
        now = first.clock.now()
    with Emulator(start=now, state=state, stacks=[str(SAM_EXAMPLE)]) as second:
        assert second.stack("template").rule("CleanUpNightly") == nightly
        second.clock.advance(days=1)
        # rate(1 day) counts from the rule's creation at 10:00:30, across the restart.
        times = [d.scheduled_time.isoformat() for d in second.deliveries(rule=nightly.name)]
        assert times == ["2026-03-02T10:00:30+00:00"]
