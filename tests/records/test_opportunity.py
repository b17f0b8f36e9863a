"""Every assertion and query filter can fail: what could only make it pass is refused."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import DeliveryAssertionError, Emulator
from pytest_schedemu.dispatch.deadletter import build_dead_letter
from pytest_schedemu.records.types import DEAD_LETTER_ATTRIBUTES
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create

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
    emu.tick()
    with pytest.raises(ValueError, match=r"key 'usr' is in no payload of the dead letters in"):
        emu.assert_not_dead_lettered(DLQ, payload_contains={"usr": 1})


def test_an_attribute_that_no_dead_letter_has_is_refused(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.tick()
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


# -- the clock must move ---------------------------------------------------------------------


def test_nothing_can_be_said_not_delivered_before_the_clock_moves(
    emu: Emulator, client: Any
) -> None:
    create(client, "charge", expression=LATER, target={"Arn": FUNCTION})
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_not_delivered(FUNCTION)
    assert str(caught.value) == (
        f"Expected no delivery to {FUNCTION}, but the clock never moved after default/charge "
        "was created at 2026-03-01T10:00:00Z: nothing could have been delivered since. Move "
        "the clock (advance, move_to or tick) past what must not happen, then assert."
    )
    with pytest.raises(DeliveryAssertionError, match="never moved"):
        emu.assert_delivered(FUNCTION, count=0)
    emu.clock.advance(minutes=1)
    emu.assert_not_delivered(FUNCTION)


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
    with pytest.raises(DeliveryAssertionError, match="after default/charge was updated at"):
        emu.assert_not_delivered(FUNCTION, payload="never sent")
    emu.clock.advance(hours=2)
    emu.assert_not_delivered(FUNCTION, payload="never sent")


def test_a_tick_that_played_the_instant_is_an_opportunity(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail()
    create(client, "charge", expression=AT, target={"Arn": FUNCTION})
    emu.tick()
    emu.assert_not_delivered(FUNCTION)


def test_only_schedules_in_scope_count(emu: Emulator, client: Any) -> None:
    create(client, "early", target={"Arn": FUNCTION})
    emu.clock.advance(hours=1)
    create(client, "late", expression=LATER)
    # The change at this instant aims at another target: the function had its hour.
    emu.assert_not_delivered(FUNCTION, payload="never sent")
    with pytest.raises(DeliveryAssertionError, match="after default/late was created"):
        emu.assert_not_delivered(QUEUE)


def test_no_dead_letter_can_be_denied_where_no_schedule_had_a_queue(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT)
    emu.tick()
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
