from __future__ import annotations

import logging
import re
import socket
import threading
import time
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu import Emulator, ServerStartError


def test_endpoint_region_and_account_defaults() -> None:
    with Emulator(start="2026-03-01T08:00:00Z") as emu:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", emu.endpoint_url)
        assert emu.region == "us-east-1"
        assert emu.account_id == "123456789012"


def test_start_accepts_aware_datetime_and_iso_string() -> None:
    instant = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
    assert Emulator(start=instant).clock.now() == instant
    assert Emulator(start="2026-03-01T09:00:00+01:00").clock.now() == instant


def test_start_rejects_naive_datetime() -> None:
    with pytest.raises(ValueError, match="no time zone"):
        Emulator(start=datetime(2026, 3, 1, 8, 0))


def test_default_start_is_now_in_whole_seconds() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    now = Emulator().clock.now()
    assert now.microsecond == 0
    assert before <= now <= datetime.now(timezone.utc)


def test_client_is_bound_to_the_emulator_region_and_endpoint() -> None:
    with Emulator(region="eu-west-1", account_id="111122223333") as emu:
        client = emu.client()
        assert client.meta.region_name == "eu-west-1"
        assert client.meta.endpoint_url == emu.endpoint_url
        arn = client.create_schedule_group(Name="g")["ScheduleGroupArn"]
        assert arn == "arn:aws:scheduler:eu-west-1:111122223333:schedule-group/g"


def test_client_for_another_service_points_at_the_emulator() -> None:
    with Emulator() as emu:
        sqs = emu.client("sqs")
        assert sqs.meta.service_model.service_name == "sqs"
        assert sqs.meta.endpoint_url == emu.endpoint_url


def test_client_keyword_arguments_win() -> None:
    with Emulator() as emu:
        assert emu.client(region_name="us-west-2").meta.region_name == "us-west-2"


def test_stop_returns_quickly_and_joins_the_server_thread() -> None:
    before = set(threading.enumerate())
    emu = Emulator().start()
    port = emu.endpoint_url.rsplit(":", 1)[1]
    # A client that connects and sends nothing: its handler thread waits for a request.
    idle = socket.create_connection(("127.0.0.1", int(port)))
    deadline = time.monotonic() + 5
    while not any(t.name == f"schedemu-connection-{port}" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the server never accepted the connection"
        time.sleep(0.001)
    ours = set(threading.enumerate()) - before
    assert {t.name for t in ours} >= {f"schedemu-server-{port}", f"schedemu-connection-{port}"}
    started = time.perf_counter()
    emu.stop()
    assert time.perf_counter() - started < 1.0  # about 20 ms; generous for a busy machine
    assert not [t for t in ours if t.is_alive()]
    idle.close()


def test_stop_twice_is_harmless() -> None:
    emu = Emulator().start()
    emu.stop()
    emu.stop()
    assert not emu.running


def test_busy_port_raises_an_error_naming_the_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ServerStartError, match=f"Port {port} is in use"):
            Emulator(port=port).start()


def test_fixed_port_is_used_and_freed_on_stop() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with Emulator(port=port) as emu:
        assert emu.endpoint_url.endswith(f":{port}")
    with Emulator(port=port) as emu:
        assert emu.client().list_schedule_groups()["ScheduleGroups"]


def test_endpoint_before_start_raises_a_clear_error() -> None:
    with pytest.raises(Exception, match="not running"):
        Emulator().endpoint_url  # noqa: B018


def test_requests_are_not_logged_above_debug_by_default(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with Emulator(transport="http") as emu:
        emu.client().list_schedule_groups()
    assert not [r for r in caplog.records if r.name.startswith(("werkzeug", "pytest_schedemu"))]


def test_request_logging_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with Emulator(log_requests=True, transport="http") as emu:
        emu.client().list_schedule_groups()
    assert any("GET /schedule-groups" in r.getMessage() for r in caplog.records)


def test_binding_beyond_loopback_logs_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with Emulator(host="0.0.0.0"):
        pass
    assert any("reachable beyond this machine" in r.getMessage() for r in caplog.records)


def test_unknown_transport_is_rejected() -> None:
    with pytest.raises(ValueError, match="Unsupported transport 'carrier-pigeon'"):
        Emulator(transport="carrier-pigeon")


def test_use_transport_still_chooses_the_transport_and_says_to_use_configure() -> None:
    with Emulator(transport="http") as emu:
        with pytest.warns(DeprecationWarning, match=r"use emu\.configure\(transport=t\)"):
            emu.use_transport("inprocess")
        assert emu.transport == "inprocess"
        assert emu.settings.transport == "inprocess"


def test_inprocess_transport_serves_clients_without_the_socket(plain_client: Any) -> None:
    with Emulator(transport="inprocess") as emu:
        client = emu.client()
        client.create_schedule_group(Name="g")
        # Another client built the ordinary way reaches the same state over HTTP.
        other = plain_client(emu)
        assert other.get_schedule_group(Name="g")["Name"] == "g"
        emu.stop()
        # The server is gone, yet the in-process client still answers.
        assert client.get_schedule_group(Name="g")["State"] == "ACTIVE"
