"""One filter decides which records every query, assertion and control API list keeps: a
schedule's records by their schedule, a rule target's by their rule's name or ARN, whatever
their ``schedule_arn`` holds."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.records.filters import RecordFilter
from tests.constants import DLQ, FUNCTION, QUEUE
from tests.helpers import create, put_rule, rule_target

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"


@pytest.fixture
def played(emu: Emulator) -> Emulator:
    """A schedule and a rule at ``QUEUE``, and a failing schedule and a failing rule target
    with a dead-letter queue."""
    client = emu.client()
    create(client, "s1", "rate(30 minutes)")
    create(
        client, "bad", "rate(1 hour)", target={"Arn": FUNCTION, "DeadLetterConfig": {"Arn": DLQ}}
    )
    put_rule(emu, "nightly", "rate(20 minutes)", rule_target("q", QUEUE))
    put_rule(
        emu,
        "broken",
        "rate(1 hour)",
        rule_target(
            "f", FUNCTION, DeadLetterConfig={"Arn": DLQ}, RetryPolicy={"MaximumRetryAttempts": 0}
        ),
    )
    emu.target(FUNCTION).fail(error_code="AccessDeniedException", retryable=False)
    emu.clock.advance(hours=1)
    return emu


def _without_schedule_arn(record: Any) -> Any:
    """The record as a rule target's is made when its ``schedule_arn`` is left empty."""
    return dataclasses.replace(record, schedule_arn=None)


def test_a_rule_targets_record_is_matched_by_its_rule_whatever_its_schedule_arn(
    played: Emulator,
) -> None:
    attempt = played.attempts(rule="nightly")[0]
    letter = played.dead_letters(rule="broken")[0]
    for shape in (lambda record: record, _without_schedule_arn):
        assert RecordFilter(rule="nightly").keeps_attempt(shape(attempt))
        assert RecordFilter(rule=RULE).keeps_attempt(shape(attempt))
        assert not RecordFilter(rule="broken").keeps_attempt(shape(attempt))
        assert RecordFilter(target_arn=QUEUE).keeps_attempt(shape(attempt))
        assert RecordFilter().keeps_attempt(shape(attempt))
        assert RecordFilter(rule="broken", queue_arn=DLQ).keeps_dead_letter(shape(letter))
        for named in (RecordFilter(schedule="s1"), RecordFilter(group="default")):
            assert not named.keeps_attempt(shape(attempt))
            assert not named.keeps_dead_letter(shape(letter))


def test_a_schedules_record_is_never_a_rules(played: Emulator) -> None:
    attempt = played.attempts(schedule="s1")[0]
    letter = played.dead_letters(schedule="bad")[0]
    assert RecordFilter(schedule="s1", group="default").keeps_attempt(attempt)
    assert RecordFilter(schedule=attempt.schedule_arn).keeps_attempt(attempt)
    assert not RecordFilter(rule="nightly").keeps_attempt(attempt)
    assert not RecordFilter(rule="broken").keeps_dead_letter(letter)
    assert RecordFilter(group="default", queue_arn=DLQ).keeps_dead_letter(letter)
    assert not RecordFilter(queue_arn=QUEUE).keeps_dead_letter(letter)


def test_outcome_keeps_the_attempts_that_ended_so(played: Emulator) -> None:
    everything = played.attempts()
    succeeded = [a for a in everything if RecordFilter(outcome="succeeded").keeps_attempt(a)]
    failed = [a for a in everything if RecordFilter(outcome="failed").keeps_attempt(a)]
    assert succeeded == played.deliveries() and succeeded
    assert failed == [a for a in everything if not a.succeeded] and failed
    assert RecordFilter(outcome="all") == RecordFilter()


def test_a_filter_that_could_match_nothing_is_refused_when_made() -> None:
    with pytest.raises(ValueError, match="rule='nightly' and schedule= together"):
        RecordFilter(schedule="s1", rule="nightly")
    with pytest.raises(ValueError, match="rule='nightly' and group= together"):
        RecordFilter(group="default", rule="nightly")
    with pytest.raises(ValueError, match="Invalid outcome 'delivered': expected all"):
        RecordFilter(outcome="delivered")
    noon = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="since must come before until"):
        RecordFilter(since=noon, until=noon)


def test_a_filter_read_from_a_query_takes_only_its_names_and_no_blanks() -> None:
    query = {"schedule": "s1", "group": "", "since": "2026-03-01T12:00:00Z", "limit": "5"}
    which = RecordFilter.of(query, ("schedule", "group", "since"))
    assert which == RecordFilter(schedule="s1", since=datetime(2026, 3, 1, 12, tzinfo=timezone.utc))
    assert which.given == {"schedule": "s1", "since": which.since}


def test_filters_passed_by_their_old_positions_still_work_for_a_release_and_warn(
    played: Emulator,
) -> None:
    calls = [
        (played.attempts, ("s1", "default"), ("s1",), {"group": "default"}),
        (
            played.deliveries,
            (QUEUE, "s1", "default"),
            (QUEUE,),
            {"schedule": "s1", "group": "default"},
        ),
        (played.dead_letters, (DLQ, "bad"), (DLQ,), {"schedule": "bad"}),
        (played.drops, (None, "default"), (), {"group": "default"}),
        (played.executions, ("s1", "default"), ("s1",), {"group": "default"}),
    ]
    for method, old, kept, by_name in calls:
        with pytest.warns(DeprecationWarning, match="by name"):
            found = method(*old)
        assert found == method(*kept, **by_name)
    assert played.executions("s1", group="default")
    with pytest.warns(DeprecationWarning):
        letters = played.assert_dead_lettered(
            DLQ, None, "bad", {"ERROR_CODE": "AccessDeniedException"}
        )
    assert letters == played.dead_letters(DLQ, schedule="bad")
    with pytest.raises(TypeError, match="by name"):
        played.drops("s1", "default", "extra")
    with pytest.raises(TypeError, match="by name"):
        played.attempts("s1", "default", group="default")
