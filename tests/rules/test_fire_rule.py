"""emu.fire_rule(): one occurrence of a scheduled rule now, out of its schedule, for every
target or the one named; the targets it reaches share one event, as on AWS."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import ClockError, Emulator, HandlerError
from tests.constants import DLQ, FUNCTION, QUEUE, T0
from tests.rules.rulebook import PATTERN, RULE_ARN, target


def two_targets(events: Any, **rule: Any) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)", **rule)
    events.put_targets(Rule="r1", Targets=[target("queue"), target("audit", FUNCTION)])


def test_fire_rule_sends_one_event_to_every_target_now(emu: Emulator, events: Any) -> None:
    two_targets(events)
    emu.clock.advance(minutes=10, seconds=30)
    before = emu.pending(rule="r1")
    attempts = emu.fire_rule("r1")
    assert [(a.target_id, a.target_arn) for a in attempts] == [
        ("queue", QUEUE),
        ("audit", FUNCTION),
    ]
    assert all(a.succeeded and a.fired and a.rule_arn == RULE_ARN for a in attempts)
    # One event, the rule's Scheduled Event at this instant, sent to both targets.
    now = T0 + timedelta(minutes=10, seconds=30)
    assert {a.payload["time"] for a in attempts} == {"2026-03-01T10:10:30Z"}
    assert len({a.event_id for a in attempts}) == 1
    assert {a.payload["id"] for a in attempts} == {attempts[0].event_id}
    assert len({a.execution_id for a in attempts}) == 2
    assert emu.deliveries(rule="r1") == attempts
    # The clock and the rule's own occurrences stay as they were.
    assert emu.clock.now() == now
    assert emu.pending(rule="r1") == before
    emu.clock.advance(hours=1)
    assert [(a.target_id, a.fired) for a in emu.deliveries(rule="r1")] == [
        ("queue", True),
        ("audit", True),
        ("queue", False),
        ("audit", False),
    ]


def test_fire_rule_for_one_target_reaches_it_alone(emu: Emulator, events: Any) -> None:
    two_targets(events)
    (first,) = emu.fire_rule("r1", "audit")
    assert (first.target_id, first.fired) == ("audit", True)
    assert emu.deliveries(QUEUE) == []
    both = emu.fire_rule(RULE_ARN)
    # Every fire is an event of its own, even at the same instant.
    assert first.event_id != both[0].event_id == both[1].event_id
    assert [e.fired for e in emu.executions(rule="r1")] == [True, True, True]


def test_a_fire_after_a_target_went_takes_an_event_id_no_fire_had(
    emu: Emulator, events: Any
) -> None:
    two_targets(events)
    earlier = {emu.fire_rule("r1", "audit")[0].event_id for _ in range(2)}
    events.remove_targets(Rule="r1", Ids=["audit"])
    (after,) = emu.fire_rule("r1")
    assert after.target_id == "queue" and after.event_id not in earlier


def test_a_disabled_rule_fires_when_asked(emu: Emulator, events: Any) -> None:
    two_targets(events, State="DISABLED")
    attempts = emu.fire_rule("r1", "queue")
    assert [(a.target_id, a.succeeded, a.fired) for a in attempts] == [("queue", True, True)]
    assert emu.pending(rule="r1") == []  # still disabled: nothing of its own is planned
    emu.clock.advance(hours=3)
    assert len(emu.deliveries(rule="r1")) == 1


def test_a_failed_fire_retries_on_eventbridges_ladder_and_dead_letters(
    emu: Emulator, events: Any
) -> None:
    events.put_rule(Name="r1", ScheduleExpression="rate(1 day)")
    failing = {"RetryPolicy": {"MaximumRetryAttempts": 1}, "DeadLetterConfig": {"Arn": DLQ}}
    events.put_targets(Rule="r1", Targets=[target("audit", FUNCTION, **failing)])
    emu.target(FUNCTION).fail()
    (first,) = emu.fire_rule("r1")
    assert not first.succeeded and first.fired
    (retry,) = emu.pending(rule="r1", limit=1)
    assert (retry.kind, retry.attempt_number, retry.fired) == ("retry", 2, True)
    emu.clock.run_until_idle(within=timedelta(hours=1))
    (letter,) = emu.dead_letters(rule="r1")
    assert letter.attributes["RULE_ARN"] == RULE_ARN
    assert letter.payload["id"] == first.event_id


def test_fire_rule_names_the_closest_rules_for_an_unknown_one(emu: Emulator, events: Any) -> None:
    two_targets(events)
    events.put_rule(Name="nightly", ScheduleExpression="cron(0 2 * * ? *)")
    with pytest.raises(LookupError, match=r"No rule 'r2' is stored in this emulator; .*: r1, "):
        emu.fire_rule("r2")
    with pytest.raises(LookupError, match="No rule 'r1' is stored in this emulator in region "):
        emu.fire_rule("r1", region="eu-west-1")
    with pytest.raises(ValueError, match="Not a rule ARN"):
        emu.fire_rule("arn:aws:events:us-east-1:123456789012:event-bus/default")
    events.remove_targets(Rule="r1", Ids=["queue", "audit"])
    events.delete_rule(Name="r1")
    with pytest.raises(LookupError, match="No rule 'r1' is stored"):
        emu.fire_rule("r1")


def test_fire_rule_names_the_targets_for_an_unknown_target_id(emu: Emulator, events: Any) -> None:
    two_targets(events)
    with pytest.raises(
        LookupError, match=r"no target 'queu'; its targets, closest first: queue, audit"
    ):
        emu.fire_rule("r1", "queu")
    assert emu.attempts() == []


def test_only_a_scheduled_rule_with_targets_fires(emu: Emulator, events: Any) -> None:
    events.put_rule(Name="pattern", EventPattern=PATTERN)
    events.put_targets(Rule="pattern", Targets=[target()])
    with pytest.raises(ValueError, match="no ScheduleExpression"):
        emu.fire_rule("pattern")
    events.put_rule(Name="lonely", ScheduleExpression="rate(1 hour)")
    with pytest.raises(LookupError, match="'lonely' has no targets"):
        emu.fire_rule("lonely")


def test_a_name_in_several_regions_is_the_default_ones_unless_told(emu: Emulator) -> None:
    for region in ("us-east-1", "eu-west-1"):
        events = emu.client("events", region_name=region)
        events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="r1", Targets=[target()])
    assert emu.fire_rule("r1")[0].rule_arn == RULE_ARN
    (other,) = emu.fire_rule("r1", region="eu-west-1")
    assert other.rule_arn == RULE_ARN.replace("us-east-1", "eu-west-1")


def test_a_handler_bug_stops_the_fire_and_the_other_target_waits_for_the_next_move(
    emu: Emulator, events: Any
) -> None:
    emu.target(QUEUE).handle(lambda attempt: 1 / 0)
    two_targets(events)
    with pytest.raises(HandlerError, match="ZeroDivisionError"):
        emu.fire_rule("r1")
    assert [(a.target_id, a.error_code) for a in emu.attempts()] == [("queue", "HandlerError")]
    emu.target(QUEUE).recover()
    emu.clock.tick()
    assert [(a.target_id, a.fired) for a in emu.deliveries(rule="r1")] == [("audit", True)]


def test_fire_rule_is_refused_by_a_real_time_clock() -> None:
    with Emulator(clock="real", transport="inprocess") as real:
        events = real.client("events")
        events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="r1", Targets=[target()])
        with pytest.raises(ClockError, match="virtual clock"):
            real.fire_rule("r1")
