"""The schedules and scheduled rules this application's infrastructure defines, run on the
emulator's clock.

The CDK app (``cdk/app.js``) and the SAM template (``sam/template.yaml``) are loaded as
they are: each test asserts what a schedule or a rule does, not what the template says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_schedemu import Emulator

HERE = Path(__file__).parent
# Sunday 1 March 2026, midnight UTC: a week before New York's clocks go forward.
pytestmark = pytest.mark.schedemu(start="2026-03-01T00:00:00Z")


def test_the_nightly_charge_runs_at_half_past_two_in_new_york(
    schedemu: Emulator, billing_assembly: Path
) -> None:
    stack = schedemu.load_stack(billing_assembly)  # the assembly's one stack, "Billing"
    queue = stack.resource("ChargeQueue").arn  # a CDK construct id, not the logical id
    nightly = stack.schedule("NightlyCharge").name  # the hourly report shares the queue

    schedemu.clock.move_to("2026-03-10T12:00:00Z")

    charges = schedemu.deliveries(queue, schedule=nightly)
    # 02:30 EST is 07:30 UTC; on March 8 New York skips 02:30; then 02:30 EDT is 06:30 UTC.
    assert [d.scheduled_time.strftime("%m-%d %H:%M") for d in charges][-4:] == [
        "03-06 07:30",
        "03-07 07:30",
        "03-09 06:30",
        "03-10 06:30",
    ]
    assert charges[-1].payload == {"run": "nightly", "scheduledAt": "2026-03-10T06:30:00Z"}


def test_a_failing_charge_is_retried_three_times_then_dead_lettered(
    schedemu: Emulator, billing_assembly: Path
) -> None:
    stack = schedemu.load_stack(billing_assembly)
    queue = stack.resource("ChargeQueue").arn
    schedemu.target(queue).fail(error_code="ServiceUnavailable")

    schedemu.clock.move_to("2026-03-03T12:00:00Z")

    (letter, *_) = schedemu.dead_letters(schedule=stack.schedule("NightlyCharge").name)
    assert letter.queue_arn == stack.resource("ChargeDeadLetters").arn
    assert letter.attributes["RETRY_ATTEMPTS"] == "3"


def test_the_hourly_report_rule_asks_for_the_report_every_hour(
    schedemu: Emulator, billing_assembly: Path
) -> None:
    stack = schedemu.load_stack(billing_assembly)
    report = stack.rule("HourlyReport")  # an events.Rule: an EventBridge scheduled rule

    schedemu.clock.move_to("2026-03-01T03:00:00Z")

    sent = schedemu.deliveries(stack.resource("ChargeQueue").arn, rule=report.name)
    # rate(1 hour) counts from the rule's creation; the target's InputTransformer fills in
    # the Scheduled Event's time.
    assert [d.payload for d in sent] == [
        {"report": "hourly", "at": "2026-03-01T01:00:00Z"},
        {"report": "hourly", "at": "2026-03-01T02:00:00Z"},
        {"report": "hourly", "at": "2026-03-01T03:00:00Z"},
    ]


def test_weekday_reminders_from_the_sam_template(schedemu: Emulator) -> None:
    stack = schedemu.load_stack(HERE / "sam" / "template.yaml", parameters={"Stage": "prod"})
    reminders = stack.resource("SendReminders").arn

    schedemu.clock.move_to("2026-03-09T12:00:00Z")  # from Sunday 1 March to Monday 9 March

    sent = schedemu.deliveries(reminders)
    # 09:00 in Paris, Monday to Friday: 08:00 UTC in winter.
    assert [d.scheduled_time.strftime("%a %d %H:%M") for d in sent] == [
        "Mon 02 08:00",
        "Tue 03 08:00",
        "Wed 04 08:00",
        "Thu 05 08:00",
        "Fri 06 08:00",
        "Mon 09 08:00",
    ]
    assert sent[0].payload == {"kind": "morning", "at": "2026-03-02T08:00:00Z"}
