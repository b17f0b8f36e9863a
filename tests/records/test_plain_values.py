"""Every record is a plain value however it was made: recorded and not read yet, read field
by field, or read back from a state file. It pickles, compares, hashes and prints like a
frozen dataclass made by its constructor, and one read back equals the one recorded."""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.records import Activity, Attempt, DeadLetter, Execution
from tests.constants import DLQ, FUNCTION, QUEUE, START
from tests.helpers import create


def play(emu: Emulator) -> None:
    """Successes with a JSON payload, failures with retries, a dead letter and activity."""
    client = emu.client()
    create(client, "ok", target={"Input": '{"attempt": <aws.scheduler.attempt-number>}'})
    create(
        client,
        "bad",
        "rate(1 day)",
        target={
            "Arn": FUNCTION,
            "DeadLetterConfig": {"Arn": DLQ},
            "RetryPolicy": {"MaximumRetryAttempts": 1},
        },
    )
    emu.target(FUNCTION).fail(error_code="ThrottlingException", message="slow down")
    emu.clock.advance(hours=2)


def ordinary(record: Any) -> Any:
    """The same record made by its constructor, every field given."""
    return type(record)(**{f.name: getattr(record, f.name) for f in fields(record)})


def assert_plain(record: Any) -> None:
    expected = ordinary(record)
    for twin in (pickle.loads(pickle.dumps(record)), copy.deepcopy(record)):
        assert type(twin) is type(record)
        assert twin == record == expected
        assert hash(twin) == hash(record) == hash(expected)
        assert repr(twin) == repr(record) == repr(expected)


def everything(emu: Emulator) -> list[Any]:
    return [
        *emu.attempts(),
        *emu.executions("ok"),
        *emu.executions("bad"),
        *emu.dead_letters(),
        *emu.activity(),
    ]


def test_records_not_read_yet_pickle_whole(emu: Emulator) -> None:
    play(emu)
    attempts, executions = emu.attempts(), emu.executions("bad")
    # Nothing has read them: pickling works every lazy field out, and drops what made it.
    copies = pickle.loads(pickle.dumps((attempts, executions)))
    assert copies == (attempts, executions)
    failed = [attempt for attempt in copies[0] if not attempt.succeeded][-1]
    assert (failed.error_code, failed.retryable, failed.attempt_number) == (
        "ThrottlingException",
        True,
        2,
    )
    assert copies[1][0].exhausted_condition == "MaximumRetryAttempts"


def test_every_kind_of_record_is_a_plain_value(emu: Emulator) -> None:
    play(emu)
    records = everything(emu)
    kinds = {type(record) for record in records}
    assert kinds == {Attempt, Execution, DeadLetter, Activity}
    for record in records:
        assert_plain(record)


def test_a_record_read_field_by_field_is_the_same_value(emu: Emulator) -> None:
    play(emu)
    read, unread = emu.attempts()[0], emu.attempts()[0]
    assert read.payload == {"attempt": 1}  # works out this one field, and keeps it
    assert read == unread and hash(read) == hash(unread)
    assert_plain(read)
    assert_plain(unread)


def test_records_hash_though_payloads_are_dicts(emu: Emulator) -> None:
    play(emu)
    attempts = emu.attempts()
    assert isinstance(attempts[0].payload, dict)
    assert len(set(attempts + emu.attempts())) == len(attempts)
    assert len({*emu.dead_letters(), *emu.dead_letters()}) == 1


def test_records_read_back_from_a_state_file_equal_those_recorded(tmp_path: Path) -> None:
    path = str(tmp_path / "state.db")
    with Emulator(start=START, transport="inprocess", state=path) as before:
        play(before)
        recorded = everything(before)
    with Emulator(start=START, transport="inprocess", state=path) as back:
        restored = everything(back)
    assert restored == recorded
    for record in restored:
        assert_plain(record)


def test_records_made_in_bulk_hold_every_field_and_are_plain_values() -> None:
    # A day with nothing to observe is played in bulk, where a record holds only the fields
    # its class has no default for: a reader still sees every field with its value.
    with Emulator(start=START) as emu:
        create(emu.client(), "hourly")
        events = emu.client("events")
        events.put_rule(Name="nightly", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="nightly", Targets=[{"Id": "q", "Arn": QUEUE}])
        emu.clock.advance(days=1)
        assert emu.debug.bulk_runs > 0
        attempts = emu.attempts()
    by_source = {attempt.source: attempt for attempt in attempts}
    assert set(by_source) == {"schedule", "rule"}
    for attempt in by_source.values():
        assert attempt.succeeded is True
        assert (attempt.error_code, attempt.error_message, attempt.retryable) == (None,) * 3
        assert attempt.fired is False
        assert_plain(attempt)
    schedule, rule = by_source["schedule"], by_source["rule"]
    assert (schedule.schedule_name, schedule.group_name) == ("hourly", "default")
    assert (schedule.rule_arn, schedule.rule_name, schedule.target_id) == (None,) * 3
    assert schedule.incarnation > 0
    assert schedule.schedule_arn is not None and rule.schedule_arn is None
    assert (rule.rule_name, rule.target_id) == ("nightly", "q")
    assert {f.name for f in fields(Attempt)} <= set(pickle.loads(pickle.dumps(rule)).__dict__)
