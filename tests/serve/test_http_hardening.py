"""The HTTP layer against clients that misbehave: ambiguous or oversized bodies, stalls,
oversized headers, and more connections than the server will serve at once."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import (
    RequestEntityTooLargeException,
    RequestTimeoutException,
    ValidationException,
)
from pytest_schedemu.protocol.body import MAX_BODY_BYTES, read_body
from tests.constants import START, T0
from tests.helpers import wait_for

# Long enough for any answer on a loaded machine; a test that waits this long has failed.
PATIENCE = 10.0


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def error(self) -> tuple[int, str, str]:
        parsed = json.loads(self.body)
        return self.status, parsed["__type"], parsed["Message"]


def port_of(emu: Emulator) -> int:
    return int(emu.endpoint_url.rsplit(":", 1)[1])


def connect(emu: Emulator) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port_of(emu)), timeout=PATIENCE)


def read_to_end(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def parse(raw: bytes) -> Answer:
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return Answer(int(status_line.split()[1]), headers, body)


def exchange(emu: Emulator, data: bytes) -> Answer:
    """Send ``data`` and read the answer, without ever closing our side first."""
    with connect(emu) as sock:
        sock.sendall(data)
        return parse(read_to_end(sock))


def request(method: str, path: str, *headers: str, body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: localhost", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def connection_threads(emu: Emulator) -> list[threading.Thread]:
    name = f"schedemu-connection-{port_of(emu)}"
    return [thread for thread in threading.enumerate() if thread.name == name]


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=START) as emulator:
        yield emulator


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=START)
    return served


def group_names(emu: Emulator) -> list[str]:
    answer = exchange(emu, request("GET", "/schedule-groups"))
    return [group["Name"] for group in json.loads(answer.body)["ScheduleGroups"]]


# -- Content-Length and Transfer-Encoding ----------------------------------------------------

PATHS = ["/_schedemu/reset", "/schedule-groups/g"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("value", ["abc", "-5", "+5", "1e3", "5, 5", "0x10"])
def test_content_length_that_is_not_a_number_is_a_400_before_any_body(
    emu: Emulator, path: str, value: str
) -> None:
    # No body follows: an answer at all shows the server did not wait for one.
    answer = exchange(emu, request("POST", path, f"Content-Length: {value}"))
    assert answer.error == (
        400,
        "ValidationException",
        f"Invalid Content-Length header: {value!r}. Expected the body's size in bytes as a "
        "decimal number, e.g. '42'.",
    )
    assert answer.headers["x-amzn-ErrorType"] == "ValidationException"
    assert group_names(emu) == ["default"]


@pytest.mark.parametrize("path", PATHS)
def test_two_different_content_lengths_are_a_400(emu: Emulator, path: str) -> None:
    answer = exchange(
        emu, request("POST", path, "Content-Length: 2", "Content-Length: 5", body=b"{}")
    )
    assert answer.error == (
        400,
        "ValidationException",
        "Conflicting Content-Length headers: '2', '5'. Send one.",
    )


def test_a_repeated_identical_content_length_is_one_length(emu: Emulator) -> None:
    headers = ("Content-Length: 2", "Content-Length: 2")
    answer = exchange(emu, request("POST", "/schedule-groups/g", *headers, body=b"{}"))
    assert answer.status == 200


def test_content_length_beside_chunked_is_a_400(emu: Emulator) -> None:
    chunked = b"2\r\n{}\r\n0\r\n\r\n"
    headers = ("Content-Length: 2", "Transfer-Encoding: chunked")
    answer = exchange(emu, request("POST", "/schedule-groups/g", *headers, body=chunked))
    assert answer.error == (
        400,
        "ValidationException",
        "A request cannot have both a Content-Length and a Transfer-Encoding: chunked "
        "header. Send one of them.",
    )
    assert group_names(emu) == ["default"]


def test_a_transfer_encoding_other_than_chunked_is_a_400(emu: Emulator) -> None:
    answer = exchange(emu, request("POST", "/_schedemu/clock/tick", "Transfer-Encoding: gzip"))
    assert answer.error[:2] == (400, "ValidationException")
    assert "Unsupported Transfer-Encoding header: 'gzip'" in answer.error[2]


def chunked(data: bytes, size: int = 65536) -> bytes:
    parts = [b"%x\r\n%s\r\n" % (len(piece), piece) for piece in iter_pieces(data, size)]
    return b"".join(parts) + b"0\r\n\r\n"


def iter_pieces(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_the_control_api_reads_a_chunked_body(emu: Emulator) -> None:
    body = chunked(b'{"hours": 2}', size=5)
    answer = exchange(
        emu,
        request(
            "POST",
            "/_schedemu/clock/advance",
            "Transfer-Encoding: chunked",
            "Content-Type: application/json",
            body=body,
        ),
    )
    assert answer.status == 200
    assert json.loads(answer.body)["now"] == "2026-03-01T12:00:00Z"


@pytest.mark.parametrize("path", ["/_schedemu/clock/advance", "/schedule-groups/g"])
def test_a_chunked_body_over_the_limit_is_a_413(emu: Emulator, path: str) -> None:
    body = chunked(b'{"x": "' + b"x" * MAX_BODY_BYTES + b'"}')
    answer = exchange(emu, request("POST", path, "Transfer-Encoding: chunked", body=body))
    assert answer.error[:2] == (413, "RequestEntityTooLargeException")
    assert emu.clock.now() == T0


@pytest.mark.parametrize("path", ["/_schedemu/clock/advance", "/schedule-groups/g"])
def test_a_declared_body_over_the_limit_is_a_413_before_it_is_sent(
    emu: Emulator, path: str
) -> None:
    length = 2 * MAX_BODY_BYTES
    answer = exchange(emu, request("POST", path, f"Content-Length: {length}"))
    assert answer.error == (
        413,
        "RequestEntityTooLargeException",
        f"Request body of {length} bytes is larger than the limit of {MAX_BODY_BYTES} bytes.",
    )


def test_the_control_api_refuses_a_body_over_the_limit(emu: Emulator) -> None:
    body = b'{"hours": 1, "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    headers = (f"Content-Length: {len(body)}",)
    answer = exchange(emu, request("POST", "/_schedemu/clock/advance", *headers, body=body))
    assert answer.error[:2] == (413, "RequestEntityTooLargeException")
    assert emu.clock.now() == T0


# -- read_body without a server (the in-process transport, other WSGI servers) ---------------


class CountingStream(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.taken = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.taken += len(data)
        return data


def test_read_body_refuses_a_bad_length_whatever_the_server() -> None:
    with pytest.raises(ValidationException, match="Invalid Content-Length header: '-1'"):
        read_body({"CONTENT_LENGTH": "-1", "wsgi.input": io.BytesIO(b"{}")}, 10)


def test_read_body_reads_nothing_of_a_declared_body_over_the_limit() -> None:
    stream = CountingStream(b"x" * 100)
    with pytest.raises(RequestEntityTooLargeException):
        read_body({"CONTENT_LENGTH": "100", "wsgi.input": stream}, 10)
    assert stream.taken == 0


def test_read_body_reads_a_terminated_stream_one_byte_past_the_limit_at_most() -> None:
    stream = CountingStream(b"x" * 100)
    environ = {"wsgi.input": stream, "wsgi.input_terminated": True}
    with pytest.raises(RequestEntityTooLargeException):
        read_body(environ, 10)
    assert stream.taken == 11
    assert read_body({"wsgi.input": io.BytesIO(b"0123456789"), "wsgi.input_terminated": True}, 10)


def test_read_body_turns_a_stalled_client_into_a_408() -> None:
    class Stalled(io.RawIOBase):
        def readinto(self, buffer: Any) -> int:
            raise socket.timeout("timed out")

    with pytest.raises(RequestTimeoutException):
        read_body({"CONTENT_LENGTH": "5", "wsgi.input": Stalled()}, 10)


# -- request line and header limits -------------------------------------------------------------


def test_a_request_line_over_64_kib_is_a_json_414(emu: Emulator) -> None:
    answer = exchange(emu, request("GET", "/" + "a" * 70_000))
    assert answer.error[:2] == (414, "ValidationException")


def test_a_header_line_over_64_kib_is_a_json_431(emu: Emulator) -> None:
    answer = exchange(emu, request("GET", "/schedules", "X-Big: " + "a" * 70_000))
    assert answer.error == (
        431,
        "ValidationException",
        "The request line and headers come to more than 65,536 bytes. Send fewer or shorter "
        "headers.",
    )


def test_more_than_100_headers_is_a_json_431(emu: Emulator) -> None:
    headers = [f"X-H{index}: 1" for index in range(101)]
    answer = exchange(emu, request("GET", "/schedules", *headers))
    assert answer.error == (
        431,
        "ValidationException",
        "Too many headers: got more than 100 headers",
    )
    assert emu.server_errors == []


def test_expect_100_continue_is_answered_once(emu: Emulator) -> None:
    with connect(emu) as sock:
        sock.sendall(
            request(
                "POST",
                "/_schedemu/clock/tick",
                "Content-Length: 2",
                "Expect: 100-continue",
                "Content-Type: application/json",
            )
        )
        interim = b""
        while not interim.endswith(b"\r\n\r\n"):
            interim += sock.recv(1)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b"{}")
        assert parse(read_to_end(sock)).status == 200


# -- stalled clients and the connection limit ----------------------------------------------------


@pytest.mark.parametrize(
    "half_request",
    [
        request("POST", "/_schedemu/clock/tick", "Content-Length: 10", body=b'{"a'),
        b"POST /_schedemu/clock/tick HTTP/1.1\r\nHost: localhost\r\n",
        b"",
    ],
    ids=["half a body", "half the headers", "nothing"],
)
def test_a_stalled_client_is_dropped_after_the_idle_timeout(half_request: bytes) -> None:
    with Emulator(start=START, connection_timeout=0.2) as emu, connect(emu) as sock:
        sock.sendall(half_request)
        wait_for(lambda: connection_threads(emu), "the connection is accepted")
        # The server closes its end; what it says first, if anything, is its own business.
        read_to_end(sock)
        wait_for(lambda: not connection_threads(emu), "its thread has ended")
        assert emu.server_errors == []


def test_connections_beyond_the_limit_wait_unaccepted_until_a_slot_frees() -> None:
    with Emulator(start=START, max_connections=8) as emu:
        held = [connect(emu) for _ in range(8)]
        wait_for(lambda: len(connection_threads(emu)) == 8, "all eight are accepted")
        waiting = connect(emu)
        waiting.sendall(request("GET", "/_schedemu/health"))
        # Far more idle clients than the listen backlog holds; connect without blocking.
        crowd = []
        for _ in range(291):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port_of(emu)))
            crowd.append(sock)
        waiting.settimeout(0.1)
        with pytest.raises(socket.timeout):
            waiting.recv(1)
        assert len(connection_threads(emu)) == 8
        for sock in held + crowd:
            sock.close()
        waiting.settimeout(PATIENCE)
        assert parse(read_to_end(waiting)).status == 200
        waiting.close()
        assert len(connection_threads(emu)) <= 8


def test_stop_is_prompt_with_every_slot_taken_and_clients_waiting() -> None:
    emu = Emulator(start=START, max_connections=2).start()
    held = [connect(emu) for _ in range(2)]
    wait_for(lambda: len(connection_threads(emu)) == 2, "both are accepted")
    waiting = [connect(emu) for _ in range(3)]
    threads = connection_threads(emu)
    began = time.perf_counter()
    emu.stop()
    assert time.perf_counter() - began < 1.0
    assert not [thread for thread in threads if thread.is_alive()]
    for sock in held + waiting:
        sock.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_connections": 0}, "Unsupported max_connections 0: expected an integer >= 1"),
        ({"max_connections": 2.5}, "Unsupported max_connections 2.5"),
        ({"connection_timeout": 0}, "Unsupported connection_timeout 0: expected seconds > 0"),
    ],
)
def test_connection_limits_must_make_sense(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Emulator(**options).start()
