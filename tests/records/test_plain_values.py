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
from tests.constants import DLQ, FUNCTION, START
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
