"""The reminders service tested with the schedemu fixtures only: no AWS, no waiting."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from reminder_service import Config, ReminderService

CONFIG = Config()


@pytest.fixture
def service(schedemu):
    # The service builds its own boto3 client; the fixture's environment points it here.
    service = ReminderService(CONFIG)
    service.setup()
    return service


@pytest.mark.schedemu(start="2026-03-07T12:00:00Z")
def test_reminder_fires_at_the_users_local_time_across_dst(schedemu, service):
    # New York springs forward on 2026-03-08: 09:00 local is 14:00Z before, 13:00Z after.
    service.remind("ada", "stand-up", datetime(2026, 3, 9, 9, 0), "America/New_York")
    schedemu.clock.advance(days=3)
    (delivery,) = schedemu.assert_delivered(CONFIG.digest_queue_arn)
    assert delivery.attempted_at == datetime(2026, 3, 9, 13, 0, tzinfo=timezone.utc)
    assert delivery.payload == {
        "user": "ada",
        "text": "stand-up",
        "scheduledFor": "2026-03-09T13:00:00Z",
    }


@pytest.mark.schedemu(start="2026-03-07T12:00:00Z")
def test_delivered_reminders_delete_themselves(schedemu, service):
    service.remind("ada", "a", datetime(2026, 3, 7, 18, 0), "Europe/London")
    service.remind("bob", "b", datetime(2026, 3, 8, 18, 0), "Europe/London")
    assert len(service.pending_reminders()) == 2
    schedemu.clock.advance(days=1)
    assert service.pending_reminders() == ["remind-bob-202603081800"]


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z")
def test_nightly_digest_skips_the_missing_hour(schedemu, service):
    service.schedule_nightly_digest("America/New_York")
    schedemu.clock.advance(days=4)
    # 02:30 does not exist in New York on 2026-03-08, so that night has no digest.
    days = [d.scheduled_time.day for d in schedemu.deliveries(CONFIG.digest_queue_arn)]
    assert days == [7, 9, 10]


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z")
def test_digest_uses_the_default_event(schedemu, service):
    service.schedule_nightly_digest("UTC")
    schedemu.clock.advance(days=1)
    (delivery,) = schedemu.deliveries(CONFIG.digest_queue_arn)
    assert delivery.payload["detail-type"] == "Scheduled Event"
    assert delivery.payload["source"] == "aws.scheduler"
    assert delivery.payload["time"] == "2026-03-07T02:30:00Z"


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z")
def test_invoice_run_retries_then_dead_letters(schedemu, service):
    schedemu.target(CONFIG.invoice_function_arn).fail(error_code="TooManyRequestsException")
    service.schedule_invoice_run()
    schedemu.clock.advance(minutes=30)
    attempts = schedemu.attempts(schedule="invoice-run", group="reminders")
    # Attempt 1 and three retries, 60 s, 120 s and 240 s apart.
    assert [int((a.attempted_at - attempts[0].attempted_at).total_seconds()) for a in attempts] == [
        0,
        60,
        180,
        420,
    ]
    (letter,) = schedemu.assert_dead_lettered(CONFIG.dead_letter_queue_arn, count=1)
    assert letter.attributes["RETRY_ATTEMPTS"] == "3"
    assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumRetryAttempts"
    assert letter.attributes["ERROR_CODE"] == "TooManyRequestsException"
    assert letter.payload["FunctionName"] == CONFIG.invoice_function_arn


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z")
def test_invoice_run_recovers_after_a_blip(schedemu, service):
    schedemu.target(CONFIG.invoice_function_arn).fail(times=2)
    service.schedule_invoice_run()
    schedemu.clock.advance(hours=2)
    executions = schedemu.executions("invoice-run", group="reminders")
    assert [e.status for e in executions] == ["success", "success", "success"]
    assert [len(e.attempts) for e in executions] == [3, 1, 1]
    schedemu.assert_not_dead_lettered(CONFIG.dead_letter_queue_arn)


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z")
def test_paused_schedule_stops_delivering(schedemu, service):
    service.schedule_invoice_run()
    schedemu.clock.advance(hours=2)
    service.pause("invoice-run")
    schedemu.clock.advance(hours=5)
    assert len(schedemu.deliveries(CONFIG.invoice_function_arn)) == 3


@pytest.mark.schedemu(start="2026-03-07T00:00:00Z", freeze=True)
def test_application_clock_follows_the_emulator(schedemu, service):
    seen = []
    schedemu.target(CONFIG.digest_queue_arn).handle(
        lambda attempt: seen.append(datetime.now(timezone.utc))
    )
    service.remind("ada", "x", datetime(2026, 3, 7, 8, 0), "UTC")
    schedemu.clock.advance(hours=12)
    assert seen == [datetime(2026, 3, 7, 8, 0, tzinfo=timezone.utc)]
    assert datetime.now(timezone.utc) == datetime(2026, 3, 7, 12, 0, tzinfo=timezone.utc)
    assert datetime.now(timezone.utc) - timedelta(hours=12) == datetime(
        2026, 3, 7, tzinfo=timezone.utc
    )
