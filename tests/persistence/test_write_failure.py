"""A state file that refuses a write at run time (a full disk, a size limit): the request
that needed it answers 503, the change is undone (nothing is live that is not on disk), the
service keeps answering reads, and its health says the state is failing."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from pytest_schedemu.formats.times import wall_clock_now, ztime
from tests.constants import FUNCTION
from tests.helpers import create, wait_for
from tests.persistence.serving import Service

pytestmark = pytest.mark.skipif(
    not hasattr(resource, "prlimit"), reason="needs prlimit to limit another process's files"
)


@contextmanager
def files_cannot_grow(service: Service, log: Path) -> Iterator[None]:
    """The service may write no file beyond its first byte (EFBIG), as on a full disk."""
    # Not before its banner is out: it is printed once the server answers, and a banner
    # that cannot be printed stops the service.
    wait_for(lambda: "state kept in" in log.read_text(), "the banner")
    limit = resource.RLIMIT_FSIZE
    before = resource.prlimit(service.process.pid, limit)
    resource.prlimit(service.process.pid, limit, (1, before[1]))
    try:
        yield
    finally:
        resource.prlimit(service.process.pid, limit, before)


def names(client: Any) -> list[str]:
    return sorted(s["Name"] for s in client.list_schedules()["Schedules"])


def test_a_refused_write_answers_503_and_undoes_the_change(tmp_path: Path) -> None:
    args = ("--clock", "virtual", "--start", "2026-03-01T10:00:00Z")
    service = Service(*args, "--state", str(tmp_path / "state.db"), log=tmp_path / "log")
    try:
        client = service.client()
        create(client, "kept", "rate(1 minute)")
        assert service.control("GET", "health").get("state_failing") is None
        with files_cannot_grow(service, tmp_path / "log"):
            with pytest.raises(ClientError) as refused:
                create(client, "lost", "rate(1 minute)")
            error = refused.value.response
            assert error["ResponseMetadata"]["HTTPStatusCode"] == 503
            assert error["Error"]["Code"] == "ServiceUnavailableException"
            assert "the change was undone" in error["Error"]["Message"]
            # Reads still answer, and what they show is what the file holds.
            assert names(client) == ["kept"]
            with pytest.raises(ClientError, match="ResourceNotFoundException"):
                client.get_schedule(Name="lost")
            failing = service.control("GET", "health")["state_failing"]
            assert "Could not write the state file" in failing
            moved = service.control("POST", "clock/advance", {"minutes": 5})
            assert (moved["status"], moved["__type"]) == (503, "ServiceUnavailableException")
            assert service.control("GET", "clock")["now"] == "2026-03-01T10:00:00Z"
            assert service.records("attempts") == []
            reset = service.control("POST", "reset", {})
            assert (reset["status"], reset["__type"]) == (503, "ServiceUnavailableException")
            assert names(client) == ["kept"]
        create(client, "later", "rate(1 minute)", target={"Arn": FUNCTION})
        assert service.control("GET", "health")["state_failing"] is None
        # Each schedule at 10:00 and each minute after, up to 10:05.
        assert len(service.control("POST", "clock/advance", {"minutes": 5})["attempts"]) == 12
        attempts = service.records("attempts")
    finally:
        service.kill()
    service = Service(*args, "--state", str(tmp_path / "state.db"), log=tmp_path / "log")
    try:
        assert names(service.client()) == ["kept", "later"]
        assert service.control("GET", "clock")["now"] == "2026-03-01T10:05:00Z"
        assert service.records("attempts") == attempts
    finally:
        service.stop()


def test_real_time_deliveries_resume_once_the_file_takes_writes_again(tmp_path: Path) -> None:
    args = ("--tick-interval", "0.05", "--state", str(tmp_path / "state.db"))
    service = Service(*args, log=tmp_path / "log")
    try:
        client = service.client()
        with files_cannot_grow(service, tmp_path / "log"):
            soon = ztime(wall_clock_now() + timedelta(seconds=1))[:-1]
            with pytest.raises(ClientError, match="ServiceUnavailableException"):
                create(client, "refused", f"at({soon})")
        create(client, "soon", f"at({ztime(wall_clock_now() + timedelta(seconds=4))[:-1]})")
        with files_cannot_grow(service, tmp_path / "log"):
            # Its time comes while no write can be made: it is not lost, nor made twice.
            wait_for(
                lambda: service.control("GET", "health")["state_failing"] is not None,
                "the delivery's write to be refused",
                seconds=30,
            )
            assert service.records("attempts") == []
        wait_for(lambda: len(service.records("attempts")) == 1, "the delivery")
        wait_for(lambda: service.control("GET", "health")["state_failing"] is None, "a write")
        assert names(client) == ["soon"]
    finally:
        service.stop()
