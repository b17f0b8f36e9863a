"""Each durable kind across a restart, and what a state path changes and does not."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from pytest_schedemu import Emulator, StateError
from tests.constants import QUEUE, START
from tests.helpers import create
from tests.persistence.lives import Lives


def test_an_idempotency_token_answers_the_same_after_a_restart(lives: Lives) -> None:
    client = lives.open().client()
    first = client.create_schedule_group(Name="g", ClientToken="t1")["ScheduleGroupArn"]
    client = lives.restart().client()
    assert client.create_schedule_group(Name="g", ClientToken="t1")["ScheduleGroupArn"] == first
    with pytest.raises(client.exceptions.ConflictException, match="already used"):
        client.create_schedule_group(Name="g", ClientToken="t1", Tags=[{"Key": "k", "Value": "v"}])


def test_only_the_newest_tokens_are_kept_on_disk_too(lives: Lives) -> None:
    client = lives.open(max_idempotency_tokens=2).client()
    for name in ("a", "b", "c"):
        client.create_schedule_group(Name=name, ClientToken=f"t-{name}")
    client = lives.crash().client()
    client.create_schedule_group(Name="c", ClientToken="t-c")  # replayed
    with pytest.raises(client.exceptions.ConflictException, match="a already exists"):
        client.create_schedule_group(Name="a", ClientToken="t-a")  # forgotten: runs again
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        assert database.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == 2


def test_a_new_incarnation_never_reuses_a_number_after_a_restart(lives: Lives) -> None:
    emu = lives.open()
    create(emu.client())
    emu.clock.tick()
    emu.client().delete_schedule(Name="s1")
    emu = lives.restart()
    create(emu.client())
    emu.clock.tick()
    assert [a.incarnation for a in emu.attempts(schedule="s1")] == [1, 2]


def test_a_deleted_schedule_is_still_known_to_lookups_after_a_restart(lives: Lives) -> None:
    emu = lives.open()
    create(emu.client(), "gone")
    emu.clock.tick()
    emu.client().delete_schedule(Name="gone")
    emu = lives.restart()
    assert len(emu.attempts(schedule="gone")) == 1
    with pytest.raises(LookupError, match="gone"):
        emu.attempts(schedule="never")


def test_the_bounded_registry_is_bounded_alike_on_disk(
    lives: Lives, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_schedemu.records.known.KNOWN_LIMIT", 3)
    emu = lives.open()
    for name in ("s1", "s2", "s3", "s4", "s5"):
        create(emu.client(), name)
    assert emu.attempts(schedule="never") == []  # past the bound no name is called unknown
    emu = lives.restart()
    assert emu.attempts(schedule="never") == []
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        query = "SELECT COUNT(*) FROM known WHERE kind = 'schedule'"
        assert database.execute(query).fetchone()[0] == 3


def test_a_virtual_clock_resumes_where_it_stood_whatever_the_start(lives: Lives) -> None:
    emu = lives.open()
    create(emu.client(), expression="rate(1 minute)")
    emu.clock.advance(minutes=90, seconds=30)
    emu = lives.restart(start="2030-01-01T00:00:00Z")
    assert emu.clock.now().isoformat() == "2026-03-01T11:30:30+00:00"
    assert emu.next_occurrence("s1").isoformat() == "2026-03-01T11:31:00+00:00"
    emu.clock.advance(minutes=2)
    nominal = [a.scheduled_time.minute for a in emu.attempts()]
    assert nominal[-4:] == [29, 30, 31, 32]
    assert len({a.scheduled_time for a in emu.attempts()}) == len(emu.attempts()) == 93


def test_without_a_state_path_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Emulator(start=START, transport="inprocess") as emu:
        create(emu.client())
        emu.clock.advance(hours=1)
        assert not emu.debug.writes_state
    assert list(tmp_path.iterdir()) == []


def test_a_reset_empties_the_durable_state(lives: Lives) -> None:
    emu = lives.open()
    create(emu.client())
    emu.clock.advance(hours=2)
    emu.reset(start="2027-01-01T00:00:00Z")
    emu = lives.restart()
    assert emu.schedules() == [] and emu.attempts() == [] and emu.activity() == []
    assert emu.clock.now().isoformat() == "2027-01-01T00:00:00+00:00"
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        assert database.execute("SELECT COUNT(*) FROM attempts").fetchone() == (0,)


def test_health_names_the_state_file_and_its_schema_version(lives: Lives) -> None:
    emu = lives.open()
    with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/health") as response:
        health = json.loads(response.read())
    assert (health["state"], health["schema_version"]) == (str(lives.path), 4)
    with (
        Emulator() as plain,
        urllib.request.urlopen(f"{plain.endpoint_url}/_schedemu/health") as response,
    ):
        health = json.loads(response.read())
    assert (health["state"], health["schema_version"]) == (None, None)


def test_another_process_cannot_open_a_state_in_use(lives: Lives) -> None:
    lives.open()
    opener = f"from pytest_schedemu import Emulator; Emulator(state={str(lives.path)!r})"
    result = subprocess.run([sys.executable, "-c", opener], capture_output=True, text=True)
    assert result.returncode != 0
    assert "is in use by another schedemu process" in result.stderr


def test_an_emulator_dropped_without_stop_is_taken_over_in_its_process(lives: Lives) -> None:
    dropped = lives.open()
    create(dropped.client())
    taking_over = Emulator(state=str(lives.path), transport="inprocess").start()
    try:
        assert [s.name for s in taking_over.schedules()] == ["s1"]
        with pytest.raises(StateError, match="took it over"):
            dropped.clock.advance(hours=1)
        dropped.stop()  # a quiet stop: it has nothing it may write
        taking_over.clock.advance(hours=1)
    finally:
        taking_over.stop()
    assert len(lives.open().attempts()) == 2


def test_a_change_made_after_stop_is_still_written(lives: Lives) -> None:
    emu = lives.open()
    create(emu.client())
    emu.stop()
    emu.clock.advance(hours=1)  # a virtual clock moves without a server
    emu.stop()
    emu = lives.open()
    assert len(emu.attempts()) == 2
    assert emu.clock.now().isoformat() == "2026-03-01T11:00:00+00:00"


def test_max_records_bounds_the_file_as_it_bounds_memory(lives: Lives) -> None:
    emu = lives.open(max_records=40)
    create(emu.client(), expression="rate(1 minute)")
    emu.target(QUEUE).fail(times=1)
    emu.clock.advance(hours=3)
    before = (emu.dropped_records.by_kind, emu.attempts(), emu.executions("s1"))
    emu = lives.restart()
    assert (emu.dropped_records.by_kind, emu.attempts(), emu.executions("s1")) == before
    with contextlib.closing(sqlite3.connect(lives.path)) as database:
        rows = {
            table: database.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("attempts", "occurrences")
        }
    assert rows["attempts"] <= 60 and rows["occurrences"] <= 60
    assert len(emu.attempts()) <= 40
    assert len(emu.attempts()) + emu.dropped_records.attempts == 182  # 181 minutes, 1 retry
