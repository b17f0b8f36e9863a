"""The read side names a rule target's records by its rule: ``rule=`` on every query and
assertion, strict like ``schedule=``, never mixed with it; the timeline draws a lane per
rule target, and the control API lists and filters their records."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import DeliveryAssertionError
from tests.constants import DLQ, QUEUE
from tests.helpers import create, put_rule, rule_target

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"
OTHER_QUEUE = "arn:aws:sqs:us-east-1:123456789012:other"


@pytest.fixture
def mixed(emu: Emulator, client: Any) -> Emulator:
    """A schedule and two rules aimed at ``QUEUE``, an hour of their deliveries."""
    create(client, "s1", "rate(30 minutes)")
    put_rule(emu, "nightly", "rate(20 minutes)", rule_target("q", QUEUE))
    put_rule(emu, "hourly", "rate(1 hour)", rule_target("q", QUEUE), rule_target("o", OTHER_QUEUE))
    emu.clock.advance(hours=1)
    return emu


def test_rule_keeps_the_records_of_that_rules_targets(mixed: Emulator) -> None:
    nightly = mixed.attempts(rule="nightly")
    assert [a.scheduled_time.minute for a in nightly] == [20, 40, 0]
    assert {(a.rule_arn, a.rule_name, a.target_id) for a in nightly} == {(RULE, "nightly", "q")}
    assert len(mixed.attempts(rule=RULE)) == 3
    assert [a.target_id for a in mixed.deliveries(rule="hourly")] == ["q", "o"]
    assert len(mixed.deliveries(QUEUE, rule="hourly")) == 1
    assert [len(mixed.executions(rule=name)) for name in ("nightly", "hourly")] == [3, 2]


def test_a_schedule_filter_never_matches_a_rules_records(mixed: Emulator) -> None:
    schedule = mixed.attempts(schedule="s1")
    assert [(a.schedule_name, a.rule_arn) for a in schedule] == [("s1", None)] * 3
    assert mixed.attempts(group="default") == schedule
    assert len(mixed.attempts()) == 3 + 3 + 2


def test_a_rule_that_never_existed_is_refused_naming_those_that_did(mixed: Emulator) -> None:
    with pytest.raises(LookupError, match=r"No scheduled rule 'nigthly'.*nightly"):
        mixed.attempts(rule="nigthly")
    with pytest.raises(LookupError, match="No scheduled rule"):
        mixed.dead_letters(rule=RULE.replace("nightly", "weekly"))
    with pytest.raises(LookupError):
        mixed.assert_delivered(QUEUE, rule="weekly")
    with pytest.raises(ValueError, match="Not a rule ARN"):
        mixed.drops(rule="arn:aws:sqs:us-east-1:123456789012:q")


def test_rule_and_schedule_together_are_refused(mixed: Emulator) -> None:
    with pytest.raises(ValueError, match="can match nothing"):
        mixed.attempts(schedule="s1", rule="nightly")
    with pytest.raises(ValueError, match="can match nothing"):
        mixed.executions("s1", rule="nightly")
    with pytest.raises(ValueError, match="can match nothing"):
        mixed.assert_dropped(group="default", rule="nightly")


def test_assertions_take_a_rule(mixed: Emulator) -> None:
    assert len(mixed.assert_delivered(QUEUE, 3, rule="nightly")) == 3
    mixed.assert_not_delivered(OTHER_QUEUE, rule="nightly")
    with pytest.raises(DeliveryAssertionError) as caught:
        mixed.assert_delivered(QUEUE, 5, rule="nightly")
    message = str(caught.value)
    assert "Expected 5 deliveries to arn:aws:sqs:us-east-1:123456789012:queue from rule" in message
    assert "rule nightly → q 'rate(20 minutes)' ENABLED" in message


def test_a_negative_assertion_before_the_clock_moves_past_a_rule_change_is_refused(
    emu: Emulator,
) -> None:
    emu.target(QUEUE).fail()
    put_rule(emu, "nightly", "rate(20 minutes)", rule_target("q", QUEUE))
    with pytest.raises(DeliveryAssertionError, match="rule nightly → q's next occurrence"):
        emu.assert_not_delivered(QUEUE, rule="nightly")
    emu.clock.advance(minutes=20)
    emu.assert_not_delivered(QUEUE, rule="nightly")


def test_dead_letters_and_drops_filter_by_rule(emu: Emulator) -> None:
    emu.target(OTHER_QUEUE).fail(retryable=False)
    put_rule(
        emu,
        "nightly",
        "rate(1 hour)",
        rule_target("o", OTHER_QUEUE, DeadLetterConfig={"Arn": DLQ}),
    )
    put_rule(emu, "hourly", "rate(1 hour)", rule_target("o", OTHER_QUEUE))
    emu.clock.advance(hours=1)
    assert [d.rule_name for d in emu.dead_letters(rule="nightly")] == ["nightly"]
    assert emu.dead_letters(rule="hourly") == []
    emu.assert_not_dead_lettered(rule="hourly")
    assert [d.rule_name for d in emu.drops(rule="hourly")] == ["hourly"]
    emu.assert_dropped(1, rule="hourly")


def test_pending_work_names_its_rule_and_target(emu: Emulator, client: Any) -> None:
    create(client, "s1", "rate(30 minutes)")
    put_rule(emu, "nightly", "rate(20 minutes)", rule_target("q", QUEUE))
    [work] = emu.pending(rule="nightly")
    assert (work.kind, work.rule_name, work.target_id, work.schedule_name) == (
        "occurrence",
        "nightly",
        "q",
        None,
    )
    assert len(emu.pending()) == 2


def test_steering_a_target_steers_the_rule_targets_aimed_at_it(mixed: Emulator) -> None:
    mixed.target(OTHER_QUEUE).fail(retryable=False)
    mixed.clock.advance(hours=1)
    assert [a.succeeded for a in mixed.target(OTHER_QUEUE).attempts] == [True, False]
    mixed.assert_dropped(1, rule="hourly")


def test_the_timeline_draws_a_lane_per_rule_target(mixed: Emulator) -> None:
    svg = mixed.timeline_svg()
    for lane in ("nightly → q", "hourly → q", "hourly → o", "s1"):
        assert f">{lane}<" in svg
    assert "EventBridge rule · rate(1 hour)" in svg
    only = mixed.timeline_svg(rule="hourly")
    assert ">hourly → o<" in only and ">nightly → q<" not in only and ">s1<" not in only


def test_the_control_api_lists_and_filters_a_rules_records(mixed: Emulator) -> None:
    def get(path: str) -> Any:
        with urllib.request.urlopen(f"{mixed.endpoint_url}/_schedemu/{path}") as answer:
            return json.loads(answer.read())

    attempts = get("attempts?rule=hourly")["attempts"]
    assert [(a["rule_name"], a["target_id"]) for a in attempts] == [
        ("hourly", "q"),
        ("hourly", "o"),
    ]
    assert len(get("executions?rule=nightly")["executions"]) == 3
    assert get("summary")["rule_target_count"] == 3
    svg = urllib.request.urlopen(f"{mixed.endpoint_url}/_schedemu/timeline?rule=nightly").read()
    assert b"nightly \xe2\x86\x92 q" in svg
