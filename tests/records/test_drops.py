"""Lost occurrences: what drops() lists, what assert_dropped accepts, what stays unasserted."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import DeliveryAssertionError, Emulator
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create

AT = "at(2026-03-01T10:00:00)"


def test_each_way_of_losing_an_occurrence_is_a_drop(emu: Emulator, client: Any) -> None:
    emu.target(FUNCTION).fail(error_code="ThrottlingException")
    emu.target(QUEUE).fail(error_code="AccessDenied", retryable=False)
    emu.target(DLQ).missing()
    retried = {"Arn": FUNCTION, "RetryPolicy": {"MaximumRetryAttempts": 1}}
    create(client, "exhausted", expression=AT, target=retried)
    create(client, "permanent", expression=AT)
    create(client, "unsent", expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    old = {"Arn": FUNCTION, "RetryPolicy": {"MaximumEventAgeInSeconds": 60}}
    create(client, "too-old", expression=AT, target=old)
    emu.clock.advance(hours=1)
    found = {
        (d.schedule_arn.rsplit("/", 1)[1], d.kind, d.detail.split(":")[0]) for d in emu.drops()
    }
    assert found == {
        ("exhausted", "dropped", "ThrottlingException"),
        ("permanent", "dropped", "AccessDenied"),
        ("unsent", "dlq_failed", "AWS.SimpleQueueService.NonExistentQueue"),
        ("too-old", "dropped", "ThrottlingException"),
    }
    assert [d.schedule_arn.endswith("/unsent") for d in emu.drops(schedule="unsent")] == [True]


def test_a_dead_letter_that_arrived_is_no_drop(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}})
    emu.clock.tick()
    assert emu.drops() == []
    with pytest.raises(DeliveryAssertionError, match="Expected at least one drop, found 0"):
        emu.assert_dropped()


def test_assert_dropped_counts_filters_and_returns_the_drops(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, "a", expression=AT)
    create(client, "b", expression=AT)
    emu.clock.tick()
    assert len(emu.assert_dropped()) == 2
    (drop,) = emu.assert_dropped(count=1, schedule="a")
    assert drop.kind == "dropped" and drop.schedule_arn.endswith("/a")
    with pytest.raises(DeliveryAssertionError) as caught:
        emu.assert_dropped(count=3)
    lines = str(caught.value).splitlines()
    assert lines[0] == "Expected 3 drops, found 2."
    assert "drops (2):" in lines
    assert sum("dropped: AWS.SimpleQueueService.NonExistentQueue" in line for line in lines) == 2
    with pytest.raises(LookupError, match="'c' ever existed"):
        emu.assert_dropped(schedule="c")


def test_only_drops_an_assertion_matched_are_asserted(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, "a", expression=AT)
    create(client, "b", expression=AT)
    emu.clock.tick()
    assert len(emu.unasserted_drops()) == 2
    emu.assert_dropped(schedule="a")
    assert [d.schedule_arn.rsplit("/", 1)[1] for d in emu.unasserted_drops()] == ["b"]
    # A failed assertion asserts nothing.
    with pytest.raises(DeliveryAssertionError):
        emu.assert_dropped(count=5)
    assert len(emu.unasserted_drops()) == 1
    emu.reset()
    assert emu.unasserted_drops() == []


def test_a_drop_after_the_assertion_is_unasserted(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).missing()
    create(client, "hourly")
    emu.clock.tick()
    emu.assert_dropped(count=1)
    emu.clock.advance(hours=1)
    assert len(emu.unasserted_drops()) == 1


def test_a_handlers_bug_is_not_reported_again_as_a_drop(emu: Emulator, client: Any) -> None:
    def broken(request: Any) -> None:
        raise NameError("undefined")

    emu.target(QUEUE).handle(broken)
    create(client, expression=AT)
    with pytest.raises(Exception, match="raised NameError"):
        emu.clock.tick()
    assert len(emu.drops()) == 1
    assert emu.unasserted_drops() == []


def test_no_drop_can_be_asserted_before_the_clock_moves(emu: Emulator, client: Any) -> None:
    create(client, "later", expression="at(2026-03-01T12:00:00)")
    past_noon = "move the clock past 2026-03-01T12:00:00Z"
    with pytest.raises(DeliveryAssertionError, match=f"could have been dropped: {past_noon}"):
        emu.assert_dropped(count=0)
    with pytest.raises(DeliveryAssertionError, match=f"could have been delivered: {past_noon}"):
        emu.assert_delivered(QUEUE, count=0)
    emu.clock.advance(hours=3)
    assert emu.assert_dropped(count=0) == []
