"""Slow clients are cut off: ``connection_timeout`` is a deadline for a whole request, not a
timeout per read, and a request's line and headers are bounded together.

Each trickling client below sends a byte well within the timeout of any single read, so
only a deadline ends it.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator

import pytest
from botocore.config import Config

from pytest_schedemu import Emulator
from pytest_schedemu.wire.connection_input import MAX_HEADER_BYTES
from tests.constants import START
from tests.helpers import wait_for
from tests.serve.test_http_hardening import (
    PATIENCE,
    connect,
    connection_threads,
    exchange,
    parse,
    port_of,
    read_to_end,
    request,
)

# A trickling client sends a byte this often: far more often than the connection timeout.
TRICKLE = 0.2
# A normal client is served within this, however loaded the machine: the deadline is 2 s.
SERVED_WITHIN = 30.0


def trickle_until_answered(sock: socket.socket, first: bytes) -> bytes:
    """Send ``first``, then a byte every ``TRICKLE`` seconds until the server answers or
    closes; what it said. Fails the test if that takes ``PATIENCE``."""
    sock.sendall(first)
    for _ in range(int(PATIENCE / TRICKLE)):
        readable, _, _ = select.select([sock], [], [], TRICKLE)
        if readable:
            return read_to_end(sock)
        sock.sendall(b"a")
    pytest.fail(f"the server kept a trickling connection open for {PATIENCE} s")


@pytest.fixture
def deadline_of_one_second() -> Iterator[Emulator]:
    with Emulator(start=START, connection_timeout=1) as emu:
        yield emu


def test_trickled_headers_are_cut_off_at_the_deadline(deadline_of_one_second: Emulator) -> None:
    with connect(deadline_of_one_second) as sock:
        said = trickle_until_answered(sock, b"GET /_schedemu/health HTTP/1.1\r\nX-Slow: ")
    assert said == b""
    wait_for(lambda: not connection_threads(deadline_of_one_second), "its thread has ended")


def test_a_trickled_body_is_answered_408_at_the_deadline(deadline_of_one_second: Emulator) -> None:
    with connect(deadline_of_one_second) as sock:
        said = trickle_until_answered(
            sock, request("POST", "/_schedemu/clock/advance", "Content-Length: 1000") + b"{"
        )
    assert parse(said).error == (
        408,
        "RequestTimeoutException",
        "The request body did not arrive in full within the connection timeout. Send the "
        "whole body without pausing.",
    )
    assert deadline_of_one_second.clock.now().isoformat().startswith("2026-03-01T10:00:00")


def test_a_normal_client_is_served_while_260_clients_trickle() -> None:
    with Emulator(start=START, transport="http", connection_timeout=2) as emu:
        tricklers = [
            socket.create_connection(("127.0.0.1", port_of(emu)), timeout=PATIENCE)
            for _ in range(260)
        ]
        stop, cut = threading.Event(), threading.Event()

        def trickle() -> None:
            for sock in tricklers:
                sock.sendall(b"GET /_schedemu/health HTTP/1.1\r\nX-Slow: ")
            while not stop.wait(TRICKLE):
                for sock in tricklers:
                    try:
                        sock.send(b"a")
                    except OSError:
                        cut.set()  # cut off, as it should be

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        try:
            # On a loaded machine the first may be cut off before the last is accepted.
            wait_for(
                lambda: len(connection_threads(emu)) == 256 or cut.is_set(),
                "every slot is taken",
                seconds=60,
            )
            client = emu.client(
                config=Config(
                    connect_timeout=SERVED_WITHIN,
                    read_timeout=SERVED_WITHIN,
                    retries={"total_max_attempts": 1},
                )
            )
            assert client.list_schedules()["Schedules"] == []
            assert thread.is_alive()  # still trickling while the client was served
        finally:
            stop.set()
            thread.join()
            for sock in tricklers:
                sock.close()


def test_headers_are_bounded_in_all_not_only_line_by_line(emu: Emulator) -> None:
    # Each line well under http.server's 65,536 bytes, and fewer than its 100 headers.
    line = "X-Big: " + "a" * 4000
    count = MAX_HEADER_BYTES // len(line) + 1
    answer = exchange(emu, request("GET", "/_schedemu/health", *[line] * count))
    assert answer.error == (
        431,
        "ValidationException",
        "The request line and headers come to more than 65,536 bytes. Send fewer or shorter "
        "headers.",
    )
    assert emu.server_errors == []


def test_headers_just_within_the_bound_are_served(emu: Emulator) -> None:
    line = "X-Big: " + "a" * 4000
    count = MAX_HEADER_BYTES // len(line) - 1
    assert exchange(emu, request("GET", "/_schedemu/health", *[line] * count)).status == 200
