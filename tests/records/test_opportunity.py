"""Every assertion and query filter can fail: what could only make it pass is refused."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import DeliveryAssertionError, Emulator
from pytest_schedemu.dispatch.deadletter import build_dead_letter
from pytest_schedemu.records.types import DEAD_LETTER_ATTRIBUTES
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE, T0
from tests.helpers import create, put_rule, rule_target

AT = "at(2026-03-01T10:00:00)"
LATER = "at(2026-03-01T12:00:00)"
ADA = '{"user": {"name": "ada", "plan": "trial"}}'


def in_subscriptions(client: Any, name: str = "charge", **extra: Any) -> None:
    client.create_schedule_group(Name="subscriptions")
    create(client, name, GroupName="subscriptions", **extra)


# -- groups ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lookup",
    [
        lambda emu: emu.attempts(group="subscription"),
        lambda emu: emu.deliveries(QUEUE, group="subscription"),
        lambda emu: emu.dead_letters(group="subscription"),
        lambda emu: emu.drops(group="subscription"),
        lambda emu: emu.executions("charge", group="subscription"),
        lambda emu: emu.attempts(schedule="charge", group="subscription"),
        lambda emu: emu.assert_delivered(QUEUE, group="subscription"),
        lambda emu: emu.assert_not_delivered(QUEUE, group="subscription"),
        lambda emu: emu.assert_not_dead_lettered(group="subscription"),
        lambda emu: emu.assert_dropped(group="subscription"),
    ],
)
def test_a_group_that_never_existed_names_the_groups_that_did(
    emu: Emulator, client: Any, lookup: Any
) -> None:
    in_subscriptions(client, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.advance(hours=1)
    with pytest.raises(LookupError) as caught:
        lookup(emu)
    message = str(caught.value)
    assert "No schedule group 'subscription' ever existed" in message
    assert "closest first: subscriptions, default" in message


def test_a_group_that_exists_or_held_a_schedule_is_a_fine_filter(
    emu: Emulator, client: Any
) -> None:
    client.create_schedule_group(Name="empty")
    in_subscriptions(client)
    emu.clock.advance(hours=1)
    client.delete_schedule(Name="charge", GroupName="subscriptions")
    client.delete_schedule_group(Name="subscriptions")
    assert emu.attempts(group="empty") == []
    assert len(emu.deliveries(QUEUE, group="subscriptions")) == 2


# -- payload keys and attribute names --------------------------------------------------------


def test_a_payload_key_no_payload_has_is_refused_naming_the_keys(
    emu: Emulator, client: Any
) -> None:
    create(client, target={"Input": ADA})
    emu.clock.advance(hours=1)
    with pytest.raises(ValueError, match=r"key 'usr' is in no payload .*closest first: user"):
        emu.assert_not_delivered(QUEUE, payload_contains={"usr": {"name": "ada"}})
    with pytest.raises(ValueError, match=r"key 'nmae' \(under 'user'\).*closest first: name, plan"):
        emu.assert_delivered(QUEUE, payload_contains={"user": {"nmae": "ada"}})
    # A key that is there, with another value, is a fine filter.
    emu.assert_not_delivered(QUEUE, payload_contains={"user": {"name": "bob"}})
    assert len(emu.assert_delivered(QUEUE, payload_contains={"user": {"plan": "trial"}})) == 2


def test_payload_keys_cannot_match_text_payloads(emu: Emulator, client: Any) -> None:
    create(client, target={"Input": "plain text"})
    emu.clock.advance(hours=1)
    with pytest.raises(ValueError, match=r"no payload of the attempts at .* is a JSON object"):
        emu.assert_not_delivered(QUEUE, payload_contains={"user": "ada"})


def test_a_dead_letter_payload_key_is_checked_too(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"Input": ADA, "DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    with pytest.raises(ValueError, match=r"key 'usr' is in no payload of the dead letters in"):
        emu.assert_not_dead_lettered(DLQ, payload_contains={"usr": 1})


def test_an_attribute_that_no_dead_letter_has_is_refused(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    code = "AWS.SimpleQueueService.NonExistentQueue"
    with pytest.raises(ValueError, match=r"'ERRORCODE' is not a dead-letter attribute.*ERROR_CODE"):
        emu.assert_not_dead_lettered(DLQ, attributes={"ERRORCODE": code})
    with pytest.raises(ValueError, match="not a dead-letter attribute"):
        emu.assert_dead_lettered(DLQ, attributes={"error_code": code})
    assert len(emu.assert_dead_lettered(DLQ, count=1, attributes={"ERROR_CODE": code})) == 1


def test_the_attribute_names_are_those_a_dead_letter_carries() -> None:
    message = build_dead_letter(
        body="{}",
        error_code="E",
        error_message="m",
        execution_id="x",
        exhausted_condition="MaximumRetryAttempts",
        retry_attempts=1,
        scheduled_time=0,
        schedule_arn="s",
        target_arn="t",
    )
    # A rule target's dead letters name their rule too (tests/dispatch/test_rule_dead_letters.py).
    assert sorted({*message.attributes, "RULE_ARN"}) == sorted(DEAD_LETTER_ATTRIBUTES)


# -- an instant passed at which something in scope would have fired -------------------------

TOMORROW_0930 = "at(2026-03-02T09:30:00)"
PAUSED = '{"paused": true}'


def test_nothing_can_be_said_not_delivered_before_the_clock_moves(
    emu: Emulator, client: Any
) -> None:
    create(client, "charge", expression=LATER, target={"Arn": FUNCTION})
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION)
    assert str(caught.value) == (
        f"Expected no delivery to {FUNCTION}, but nothing in its scope could have fired by "
        "2026-03-01T10:00:00Z, so nothing could have been delivered: move the clock past "
        "2026-03-01T12:00:00Z (default/charge's next occurrence), then assert."
    )
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-01T12:00:00Z"):
        emu.assert_delivered(FUNCTION, count=0)


def test_what_falls_due_at_the_instant_of_the_change_needs_a_move(
    emu: Emulator, client: Any
) -> None:
    create(client, "paused", target={"Arn": FUNCTION}, State="DISABLED")
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-01T10:00:00Z"):
        emu.assert_not_delivered(FUNCTION)
    emu.clock.advance(seconds=1)
    emu.assert_not_delivered(FUNCTION)


def test_a_reminder_for_tomorrow_is_not_denied_a_minute_after_it_was_set(
    emu: Emulator, client: Any
) -> None:
    create(client, "reminder-cy", expression=TOMORROW_0930, target={"Arn": FUNCTION})
    emu.clock.advance(minutes=1)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION, schedule="reminder-cy")
    assert str(caught.value) == (
        f"Expected no delivery to {FUNCTION} from schedule 'reminder-cy', but nothing in its "
        "scope could have fired by 2026-03-01T10:01:00Z, so nothing could have been "
        "delivered: move the clock past 2026-03-02T09:30:00Z (default/reminder-cy's next "
        "occurrence), then assert."
    )
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-02T09:30:00Z"):
        emu.assert_delivered(FUNCTION, count=0, schedule="reminder-cy")


def test_a_cancel_is_proven_by_passing_the_instant_it_would_have_fired(
    emu: Emulator, client: Any
) -> None:
    create(client, "reminder-cy", expression=TOMORROW_0930, target={"Arn": FUNCTION})
    emu.clock.advance(minutes=1)
    client.delete_schedule(Name="reminder-cy")
    emu.clock.move_to("2026-03-02T09:29:59Z")
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-02T09:30:00Z"):
        emu.assert_not_delivered(FUNCTION, schedule="reminder-cy")
    emu.clock.advance(seconds=1)
    emu.assert_not_delivered(FUNCTION, schedule="reminder-cy")
    assert emu.assert_delivered(FUNCTION, count=0) == []


def test_a_cron_is_not_denied_before_its_hour(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail()
    create(client, "lunch-report", expression="cron(0 13 * * ? *)", target={"Arn": FUNCTION})
    emu.clock.advance(hours=1)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION)
    assert "past 2026-03-01T13:00:00Z (default/lunch-report's next occurrence)" in str(caught.value)
    emu.clock.move_to("2026-03-01T13:00:01Z")
    emu.assert_not_delivered(FUNCTION)


def test_an_update_at_the_second_of_an_occurrence_waits_for_the_next(
    emu: Emulator, client: Any
) -> None:
    create(client, "charge", target={"Arn": FUNCTION})
    emu.clock.advance(hours=1)
    # The 11:00 occurrence was played by the move, before the update: it is not generated
    # again, so the paused schedule's first chance to send its payload is at noon.
    client.update_schedule(
        Name="charge",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": FUNCTION, "RoleArn": ROLE, "Input": PAUSED},
        State="DISABLED",
    )
    emu.clock.advance(minutes=1)
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-01T12:00:00Z"):
        emu.assert_not_delivered(FUNCTION, payload=PAUSED)
    emu.clock.advance(hours=1)
    emu.assert_not_delivered(FUNCTION, payload=PAUSED)


def test_a_flexible_window_is_passed_only_at_its_end(emu: Emulator, client: Any) -> None:
    window = {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15}
    create(client, "digest", expression=LATER, window=window, target={"Arn": FUNCTION})
    emu.clock.advance(minutes=1)
    client.delete_schedule(Name="digest")
    emu.clock.move_to("2026-03-01T12:14:59Z")
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION)
    assert str(caught.value).endswith(
        "move the clock past 2026-03-01T12:15:00Z (the end of the 15-minute flexible window "
        "of default/digest's occurrence at 2026-03-01T12:00:00Z), then assert."
    )
    emu.clock.advance(seconds=1)
    emu.assert_not_delivered(FUNCTION)


def test_a_start_date_is_the_first_chance(emu: Emulator, client: Any) -> None:
    create(client, "trial", target={"Arn": FUNCTION}, StartDate=T0 + timedelta(days=1))
    emu.clock.advance(hours=1)
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-02T10:00:00Z"):
        emu.assert_not_delivered(FUNCTION)
    client.delete_schedule(Name="trial")
    emu.clock.advance(days=1)
    emu.assert_not_delivered(FUNCTION)


def test_a_schedule_with_nothing_left_to_fire_is_no_opportunity(emu: Emulator, client: Any) -> None:
    create(client, "ended", target={"Arn": FUNCTION}, EndDate=T0 - timedelta(hours=1))
    emu.configure(past_at="skip")
    create(client, "missed", expression="at(2026-03-01T09:00:00)", target={"Arn": FUNCTION})
    emu.clock.advance(days=1)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION)
    assert str(caught.value) == (
        f"Expected no delivery to {FUNCTION}, but nothing in its scope has an occurrence left "
        "after its last change, so nothing could ever be delivered: default/ended: its "
        "EndDate 2026-03-01T09:00:00Z had passed when it was created at 2026-03-01T10:00:00Z, "
        "default/missed: its at() time 2026-03-01T09:00:00Z is not after it was created at "
        "2026-03-01T10:00:00Z."
    )


def test_a_past_at_that_fired_at_once_is_an_opportunity(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail()
    create(client, "missed", expression="at(2026-03-01T09:00:00)", target={"Arn": FUNCTION})
    emu.clock.advance(minutes=1)
    emu.assert_not_delivered(FUNCTION)


def test_a_rule_target_fires_strictly_after_it_was_put(emu: Emulator) -> None:
    put_rule(emu, "daily", "cron(0 10 * * ? *)", rule_target("q", FUNCTION))
    emu.clock.advance(hours=1)
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION, rule="daily")
    assert "past 2026-03-02T10:00:00Z (rule daily → q's next occurrence)" in str(caught.value)
    emu.client("events").disable_rule(Name="daily")
    emu.clock.move_to("2026-03-02T10:00:00Z")
    emu.assert_not_delivered(FUNCTION, rule="daily")


def test_a_rate_rule_first_fires_a_period_after_it_was_put(emu: Emulator) -> None:
    put_rule(emu, "hourly", "rate(1 hour)", rule_target("q", FUNCTION))
    emu.clock.advance(minutes=59)
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-01T11:00:00Z"):
        emu.assert_not_delivered(FUNCTION, rule="hourly")
    emu.target(FUNCTION).fail()
    emu.clock.advance(minutes=1)
    emu.assert_not_delivered(FUNCTION, rule="hourly")


def test_a_pause_is_a_change_the_clock_must_move_past(emu: Emulator, client: Any) -> None:
    create(client, "charge", target={"Arn": FUNCTION})
    emu.clock.advance(minutes=30)
    client.update_schedule(
        Name="charge",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": FUNCTION, "RoleArn": "arn:aws:iam::123456789012:role/scheduler"},
        State="DISABLED",
    )
    with pytest.raises(DeliveryAssertionError, match="past 2026-03-01T11:00:00Z"):
        emu.assert_not_delivered(FUNCTION, payload="never sent")
    emu.clock.advance(hours=2)
    emu.assert_not_delivered(FUNCTION, payload="never sent")


def test_a_tick_that_played_the_instant_is_an_opportunity(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail()
    create(client, "charge", expression=AT, target={"Arn": FUNCTION})
    emu.clock.tick()
    emu.assert_not_delivered(FUNCTION)


def test_only_schedules_in_scope_count(emu: Emulator, client: Any) -> None:
    create(client, "early", target={"Arn": FUNCTION})
    emu.clock.advance(hours=1)
    create(client, "late", expression=LATER)
    # The change at this instant aims at another target: the function had its hour.
    emu.assert_not_delivered(FUNCTION, payload="never sent")
    with pytest.raises(DeliveryAssertionError, match=r"\(default/late's next occurrence\)"):
        emu.assert_not_delivered(QUEUE)


def test_no_dead_letter_can_be_denied_where_no_schedule_had_a_queue(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT)
    emu.clock.tick()
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_dead_lettered()
    message = str(caught.value)
    assert "no schedule or rule target in this test ever had a dead-letter queue" in message
    assert len(emu.drops()) == 1


def test_a_dead_letter_queue_fresh_on_a_schedule_needs_the_clock_to_move(
    emu: Emulator, client: Any
) -> None:
    create(client, expression=LATER, target={"DeadLetterConfig": {"Arn": DLQ}})
    with pytest.raises(DeliveryAssertionError, match="nothing could have been dead-lettered"):
        emu.assert_not_dead_lettered(DLQ)
    with pytest.raises(DeliveryAssertionError, match="nothing could have been dead-lettered"):
        emu.assert_not_dead_lettered()
    emu.clock.advance(hours=3)
    emu.assert_not_dead_lettered(DLQ)
    emu.assert_not_dead_lettered()
