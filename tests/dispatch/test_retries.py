"""Retries, exhaustion, dead letters, cancellation and ActionAfterCompletion."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from pytest_schedemu import DeliveryError, Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE, T0
from tests.helpers import create


def offsets(emu: Emulator) -> list[int]:
    return [int((a.attempted_at - T0).total_seconds()) for a in emu.attempts()]


def test_default_policy_retries_on_the_ladder_until_the_age_limit(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).fail()
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(days=2)
    assert offsets(emu) == [0, 60, 180, 420, 900, 1860, 3780, 7620, 15300, 30660, 61380]
    assert [a.attempt_number for a in emu.attempts()] == list(range(1, 12))
    (letter,) = emu.dead_letters()
    assert letter.attributes["RETRY_ATTEMPTS"] == "10"
    assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumEventAgeInSeconds"
    assert letter.sent_at == T0 + timedelta(seconds=61380)


@pytest.mark.parametrize(
    ("policy", "expected_offsets", "retries", "condition"),
    [
        ({"MaximumRetryAttempts": 0}, [0], "0", "MaximumRetryAttempts"),
        ({"MaximumRetryAttempts": 3}, [0, 60, 180, 420], "3", "MaximumRetryAttempts"),
        ({"MaximumEventAgeInSeconds": 60}, [0, 60], "1", "MaximumEventAgeInSeconds"),
        ({"MaximumEventAgeInSeconds": 300}, [0, 60, 180], "2", "MaximumEventAgeInSeconds"),
    ],
)
def test_exhaustion_conditions(
    emu: Emulator,
    client: Any,
    policy: Any,
    expected_offsets: list[int],
    retries: str,
    condition: str,
) -> None:
    emu.target(QUEUE).fail()
    create(
        client,
        expression="at(2026-03-01T10:00:00)",
        target={"RetryPolicy": policy, "DeadLetterConfig": {"Arn": DLQ}},
    )
    emu.clock.advance(days=1)
    assert offsets(emu) == expected_offsets
    (letter,) = emu.dead_letters(DLQ)
    assert letter.attributes["RETRY_ATTEMPTS"] == retries
    assert letter.attributes["EXHAUSTED_RETRY_CONDITION"] == condition


def test_fail_twice_then_succeed(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail(times=2)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.advance(hours=1)
    assert offsets(emu) == [0, 60, 180]
    assert [a.succeeded for a in emu.attempts()] == [False, False, True]
    (execution,) = emu.executions("s1")
    assert execution.status == "success"
    assert emu.dead_letters() == []


def test_permanent_failure_goes_straight_to_the_dlq(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    (attempt,) = emu.attempts()
    assert attempt.error_code == "AWS.SimpleQueueService.NonExistentQueue"
    assert attempt.retryable is False
    (letter,) = emu.dead_letters()
    assert letter.sent_at == T0
    assert letter.attributes["RETRY_ATTEMPTS"] == "0"
    assert letter.attributes["ERROR_CODE"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert "EXHAUSTED_RETRY_CONDITION" not in letter.attributes
    assert emu.executions("s1")[0].status == "invocation_error"


def test_non_retryable_injected_failure(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail(error_code="ValidationException", message="bad", retryable=False)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.advance(hours=1)
    assert len(emu.attempts()) == 1
    assert [a.kind for a in emu.activity("dropped")] == ["dropped"]


def test_dead_letter_body_is_the_last_materialized_request(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(
        client,
        expression="at(2026-03-01T10:00:00)",
        target={
            "Input": "attempt <aws.scheduler.attempt-number>",
            "RetryPolicy": {"MaximumRetryAttempts": 1},
            "DeadLetterConfig": {"Arn": DLQ},
        },
    )
    emu.clock.advance(hours=1)
    (letter,) = emu.dead_letters()
    assert letter.body == (
        '{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/queue",'
        '"MessageBody":"attempt 2"}'
    )
    assert letter.payload == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/queue",
        "MessageBody": "attempt 2",
    }
    last = emu.attempts()[-1]
    assert letter.attributes == {
        "ERROR_CODE": "InternalServerError",
        "ERROR_MESSAGE": "Injected failure",
        "EXECUTION_ID": last.execution_id,
        "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
        "IS_PAYLOAD_TRUNCATED": "false",
        "RETRY_ATTEMPTS": "1",
        "SCHEDULED_TIME": "2026-03-01T10:00:00Z",
        "SCHEDULE_ARN": "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1",
        "TARGET_ARN": QUEUE,
    }
    assert letter.schedule_arn.endswith("schedule/default/s1")
    assert letter.scheduled_time == T0


def test_failing_occurrence_does_not_delay_later_ones(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(
        client,
        expression="rate(1 hour)",
        target={"RetryPolicy": {"MaximumRetryAttempts": 1}, "DeadLetterConfig": {"Arn": DLQ}},
    )
    emu.clock.advance(hours=3)
    assert [
        (int((a.attempted_at - T0).total_seconds()), a.attempt_number) for a in emu.attempts()
    ] == [
        (0, 1),
        (60, 2),
        (3600, 1),
        (3660, 2),
        (7200, 1),
        (7260, 2),
        (10800, 1),
    ]
    assert [d.attributes["SCHEDULED_TIME"] for d in emu.dead_letters()] == [
        "2026-03-01T10:00:00Z",
        "2026-03-01T11:00:00Z",
        "2026-03-01T12:00:00Z",
    ]
    assert emu.executions("s1")[-1].status == "retrying"


def test_update_cancels_pending_retries_without_a_dead_letter(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    client.update_schedule(
        Name="s1",
        ScheduleExpression="at(2026-03-01T10:00:00)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE, "DeadLetterConfig": {"Arn": DLQ}},
        Description="only the description changed",
    )
    emu.clock.advance(days=1)
    assert len(emu.attempts()) == 1
    assert emu.dead_letters() == []
    assert emu.executions("s1")[0].status == "cancelled"
    assert [a.kind for a in emu.activity("cancelled")] == ["cancelled"]


def test_delete_cancels_pending_retries(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail()
    create(client, expression="rate(1 day)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(minutes=2)
    client.delete_schedule(Name="s1")
    emu.clock.advance(days=1)
    assert len(emu.attempts()) == 2
    assert emu.dead_letters() == []


def test_denied_role_fails_permanently(emu: Emulator, client: Any) -> None:
    emu.deny_role(ROLE)
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(hours=1)
    (attempt,) = emu.attempts()
    assert attempt.error_code == "AccessDeniedException"
    assert attempt.error_message == (
        "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."
    )
    assert emu.executions("s1")[0].status == "invocation_error"
    assert len(emu.dead_letters()) == 1


def test_handler_runs_as_the_target(emu: Emulator, client: Any) -> None:
    received = []
    emu.target(FUNCTION).handle(received.append)
    create(
        client, expression="at(2026-03-01T10:00:00)", target={"Arn": FUNCTION, "Input": '{"a": 1}'}
    )
    emu.clock.tick()
    (attempt,) = received
    assert attempt.payload == {"a": 1}
    assert emu.attempts()[0].succeeded


def test_handler_raising_delivery_error_chooses_the_outcome(emu: Emulator, client: Any) -> None:
    def refuse(attempt: Any) -> None:
        raise DeliveryError("TooManyRequestsException", "slow down", retryable=True)

    emu.target(FUNCTION).handle(refuse)
    create(
        client,
        expression="at(2026-03-01T10:00:00)",
        target={"Arn": FUNCTION, "RetryPolicy": {"MaximumRetryAttempts": 1}},
    )
    emu.clock.advance(hours=1)
    assert [(a.error_code, a.error_message) for a in emu.attempts()] == [
        ("TooManyRequestsException", "slow down")
    ] * 2


def test_recover_makes_the_target_succeed_again(emu: Emulator, client: Any) -> None:
    control = emu.target(QUEUE).fail()
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.tick()
    control.recover()
    emu.clock.advance(minutes=1)
    assert [a.succeeded for a in emu.attempts()] == [False, True]
    assert control.call_count == 2
    assert control.last.succeeded


def test_missing_dlq_is_recorded_as_dlq_failed(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    emu.target(DLQ).missing()
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    assert emu.dead_letters() == []
    (failed,) = emu.activity("dlq_failed")
    assert "NonExistentQueue" in failed.detail


def test_dead_letter_sends_ignore_handlers_and_failure_rules(emu: Emulator, client: Any) -> None:
    # The dead-letter queue is also the target of another schedule: its handler and its
    # injected failure are for that schedule's attempts, not for dead-letter sends.
    seen: list[str] = []
    emu.target(QUEUE).missing()
    emu.target(DLQ).handle(lambda attempt: seen.append(attempt.schedule_arn)).fail(times=1)
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    create(client, "t", expression="at(2026-03-01T10:00:00)", target={"Arn": DLQ})
    emu.clock.tick()
    assert [d.queue_arn for d in emu.dead_letters()] == [DLQ]
    assert emu.activity("dlq_failed") == []
    assert [(a.schedule_name, a.succeeded) for a in emu.attempts()] == [
        ("s1", False),
        ("t", False),
    ]
    emu.clock.advance(minutes=1)
    assert seen == ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/t"]


def test_at_with_delete_is_deleted_after_delivery(emu: Emulator, client: Any) -> None:
    create(client, expression="at(2026-03-01T10:00:00)", ActionAfterCompletion="DELETE")
    emu.clock.tick()
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")
    assert [a.kind for a in emu.activity("auto_deleted")] == ["auto_deleted"]


def test_at_with_delete_waits_for_the_retries_to_resolve(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).fail(times=2)
    create(client, expression="at(2026-03-01T10:00:00)", ActionAfterCompletion="DELETE")
    emu.clock.advance(minutes=2)
    assert client.get_schedule(Name="s1")["Name"] == "s1"
    emu.clock.advance(minutes=1)
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")


def test_at_with_delete_is_deleted_after_exhaustion(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression="at(2026-03-01T10:00:00)", ActionAfterCompletion="DELETE")
    emu.clock.tick()
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")


def test_recurring_with_end_date_and_delete(emu: Emulator, client: Any) -> None:
    create(
        client,
        expression="rate(1 hour)",
        EndDate=T0 + timedelta(hours=2, minutes=30),
        ActionAfterCompletion="DELETE",
    )
    emu.clock.advance(hours=1)
    assert client.get_schedule(Name="s1")
    emu.clock.advance(hours=1)
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")
    assert len(emu.attempts()) == 3


def test_recurring_without_end_date_is_never_deleted(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 day)", ActionAfterCompletion="DELETE")
    emu.clock.advance(days=10)
    assert client.get_schedule(Name="s1")["Name"] == "s1"


def test_recurring_whose_window_has_no_occurrence_is_deleted_at_the_next_operation(
    emu: Emulator, client: Any
) -> None:
    create(
        client,
        expression="cron(0 0 1 1 ? 2026)",
        EndDate=T0 + timedelta(days=1),
        ActionAfterCompletion="DELETE",
    )
    assert client.get_schedule(Name="s1")
    emu.clock.tick()
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule(Name="s1")


def test_disabled_at_with_delete_is_kept(emu: Emulator, client: Any) -> None:
    create(
        client,
        expression="at(2026-03-01T11:00:00)",
        ActionAfterCompletion="DELETE",
        State="DISABLED",
    )
    emu.clock.advance(days=1)
    assert client.get_schedule(Name="s1")["State"] == "DISABLED"


def capped(limit: int) -> Emulator:
    return Emulator(
        start="2026-03-01T10:00:00Z", max_attempts_per_advance=limit, transport="inprocess"
    )


def test_runaway_advance_stops_with_the_busiest_schedules() -> None:
    from pytest_schedemu import DispatchLimitExceeded

    with capped(100) as emu:
        client = emu.client()
        create(client, "busy", expression="rate(1 minute)")
        create(client, "calm", expression="rate(1 hour)")
        with pytest.raises(DispatchLimitExceeded, match="schedule/default/busy") as excinfo:
            emu.clock.advance(days=1)
        # The 101st attempt is one more than the limit: busy at 10:00-11:38, calm twice.
        assert "(99 attempts)" in str(excinfo.value)
        assert len(emu.attempts()) == 101
        assert emu.clock.now() == datetime(2026, 3, 1, 11, 38, tzinfo=timezone.utc)


def test_exactly_the_limit_of_attempts_is_allowed() -> None:
    with capped(1) as emu:
        client = emu.client()
        create(client, "a", expression="at(2026-03-01T10:01:00)")
        # Its generation is due at 10:02, its one attempt after the advance ends.
        create(
            client,
            "b",
            expression="at(2026-03-01T10:02:00)",
            window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 60},
        )
        assert len(emu.clock.advance(minutes=3)) == 1


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"times": 0}, ValueError),
        ({"times": True}, ValueError),
        ({"error_code": 5}, TypeError),
        ({"error_code": ""}, TypeError),
        ({"message": None}, TypeError),
        ({"retryable": "no"}, TypeError),
    ],
)
def test_injected_failure_with_odd_arguments_is_refused(
    emu: Emulator, client: Any, options: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error, match="Unsupported"):
        emu.target(QUEUE).fail(**options)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.tick()
    assert [a.succeeded for a in emu.attempts()] == [True]
