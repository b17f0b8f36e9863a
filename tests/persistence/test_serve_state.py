"""``schedemu serve --state``: a local stack stops and starts the service at will, killed or
not, and its tests see the same schedules, clock, retries and records."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from pytest_schedemu.formats.times import wall_clock_now, ztime
from tests.constants import FUNCTION, QUEUE
from tests.helpers import create
from tests.persistence.serving import Service


def test_a_killed_service_comes_back_with_everything_it_acknowledged(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    args = ("--clock", "virtual", "--start", "2026-03-01T10:00:00Z", "--state", state)
    service = Service(*args, log=tmp_path / "log")
    client = service.client()
    client.create_schedule_group(Name="g")
    create(client, "s1", "rate(1 minute)", GroupName="g")
    create(client, "s2", "rate(1 hour)", target={"Arn": FUNCTION})
    service.control("POST", "targets/fail", {"arn": FUNCTION})
    moved = service.control("POST", "clock/advance", {"hours": 2})
    attempts = service.records("attempts")
    service.kill()

    service = Service(*args, log=tmp_path / "log")
    try:
        assert service.control("GET", "clock")["now"] == moved["now"] == "2026-03-01T12:00:00Z"
        assert service.records("attempts") == attempts
        names = sorted(s["Name"] for s in service.client().list_schedules()["Schedules"])
        assert names == ["s1", "s2"]
        # The retries pending at the kill carry on with their numbers.
        later = service.control("POST", "clock/advance", {"minutes": 2})["attempts"]
        retried = [
            (a["scheduled_time"], a["attempt_number"]) for a in later if a["target_arn"] == FUNCTION
        ]
        assert retried == [("2026-03-01T12:00:00Z", 2)]
        assert len([a for a in later if a["target_arn"] == QUEUE]) == 2
    finally:
        assert service.stop() == 0


def test_the_state_path_may_come_from_the_environment(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    environment = {"SCHEDEMU_STATE": state}
    service = Service("--clock", "virtual", log=tmp_path / "log", env=environment)
    assert service.control("GET", "health")["state"] == state
    deadline = time.monotonic() + 10  # the line is printed once the server is up
    while f"schedemu: state kept in {state}" not in (tmp_path / "log").read_text():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    create(service.client())
    service.kill()
    service = Service("--clock", "virtual", log=tmp_path / "log", env=environment)
    try:
        assert [s["Name"] for s in service.client().list_schedules()["Schedules"]] == ["s1"]
    finally:
        service.stop()


def test_a_reset_over_http_empties_the_state_file(tmp_path: Path) -> None:
    args = ("--clock", "virtual", "--state", str(tmp_path / "state.db"))
    service = Service(*args, log=tmp_path / "log")
    create(service.client())
    service.control("POST", "reset", {"start": "2030-01-01T00:00:00Z"})
    service.kill()
    service = Service(*args, log=tmp_path / "log")
    try:
        assert service.client().list_schedules()["Schedules"] == []
        assert service.control("GET", "clock")["now"] == "2030-01-01T00:00:00Z"
    finally:
        service.stop()


def test_a_foreign_file_stops_the_service_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database")
    try:
        Service("--state", str(path), log=tmp_path / "log")
    except RuntimeError as error:
        assert "Refused the state file" in str(error) and "not an SQLite database" in str(error)
    else:
        raise AssertionError("the service started on a foreign file")
    assert path.read_text() == "not a database"


def test_a_killed_real_time_service_delivers_nothing_twice(tmp_path: Path) -> None:
    args = ("--tick-interval", "0.05", "--state", str(tmp_path / "state.db"))
    service = Service(*args, log=tmp_path / "log")
    soon = ztime(wall_clock_now() + timedelta(seconds=1))[:-1]
    create(service.client(), "soon", f"at({soon})")
    create(service.client(), "every-minute", "rate(1 minute)")
    deadline = time.monotonic() + 10
    while len(service.records("attempts")) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    service.kill()
    service = Service(*args, log=tmp_path / "log")
    try:
        time.sleep(1)
        attempts = service.records("attempts")
        assert sorted(a["schedule_arn"].rsplit("/", 1)[1] for a in attempts) == [
            "every-minute",
            "soon",
        ]
    finally:
        service.stop()
