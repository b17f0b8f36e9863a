"""A server started again at once on the port a stopped one was given binds, whether that
port was asked for or picked by the system (port 0), though the stopped one's connections
wait out TIME_WAIT on it."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import ServerStartError
from tests.constants import START


def port_of(emu: Emulator) -> int:
    port = urlsplit(emu.endpoint_url).port
    assert port is not None
    return port


def served_then_stopped(port: int) -> int:
    """Serve on ``port``, answer one request, and stop while its connection is open, so
    that the server closes it first and the port keeps a connection in TIME_WAIT."""
    emu = Emulator(start=START, port=port).start()
    bound = port_of(emu)
    client = socket.create_connection(("127.0.0.1", bound))
    try:
        client.sendall(
            f"GET /_schedemu/health HTTP/1.1\r\nHost: 127.0.0.1:{bound}\r\n\r\n".encode()
        )
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        emu.stop()
        # The server shut the connection down; reading its end lets the close complete.
        while client.recv(4096):
            pass
    finally:
        client.close()
    return bound


def answers_on(port: int) -> None:
    with Emulator(start=START, port=port) as emu:
        assert port_of(emu) == port
        assert emu.client().list_schedule_groups()["ScheduleGroups"]


def test_a_port_asked_for_is_bound_again_at_once() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answers_on(served_then_stopped(port))


def test_a_port_the_system_picked_is_bound_again_at_once() -> None:
    answers_on(served_then_stopped(0))


def test_a_port_in_use_is_still_refused() -> None:
    with (
        Emulator(start=START, port=0) as emu,
        pytest.raises(ServerStartError, match="is in use"),
    ):
        Emulator(start=START, port=port_of(emu)).start()
