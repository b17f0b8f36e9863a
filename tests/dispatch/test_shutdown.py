"""Stopping a real-time emulator is bounded, and loses no record of what did not happen."""

from __future__ import annotations

import threading
import time
import urllib.request
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import JSON_TYPE, QUEUE
from tests.helpers import create, wait_for

AT_ONCE = "at(2020-01-01T00:00:00)"  # in the past: fires at once with past_at="fire"


def test_a_target_that_never_answers_does_not_hold_the_stop() -> None:
    release = threading.Event()
    with Emulator(clock="real", tick_interval=0.05, shutdown_timeout=0.2) as emu:
        emu.target(QUEUE).handle(lambda attempt: release.wait(30))
        create(emu.client(), expression=AT_ONCE)
        wait_for(lambda: emu.debug.delivering)
        started = time.monotonic()
        emu.stop()
        assert time.monotonic() - started < 2
        (note,) = emu.activity("not_delivered")
        assert note.schedule_arn.endswith("/default/s1")
    release.set()


def test_deliveries_queued_but_not_started_do_not_run_after_the_stop() -> None:
    release = threading.Event()
    calls: list[str] = []

    def slow(attempt: Any) -> None:
        calls.append(attempt.schedule_name)
        release.wait(30)

    with Emulator(
        clock="real", tick_interval=0.05, shutdown_timeout=0.1, delivery_workers=1
    ) as emu:
        emu.target(QUEUE).handle(slow)
        for name in ("a", "b", "c"):
            create(emu.client(), name, expression=AT_ONCE)
        wait_for(lambda: calls)
        # b and c are handed to the busy worker's queue (until then they are only due, and
        # stay pending, not "not delivered"); on a loaded machine that can take a moment.
        wait_for(lambda: emu.debug.real_time_backlog() == 2)
        emu.stop()
        release.set()
        time.sleep(0.2)
        assert len(calls) == 1
        assert len(emu.activity("not_delivered")) == 3


def test_an_attempt_past_the_delivery_timeout_fails_retryably() -> None:
    release = threading.Event()
    with Emulator(clock="real", tick_interval=0.05, delivery_timeout=0.2) as emu:
        emu.target(QUEUE).handle(lambda attempt: release.wait(30))
        create(emu.client(), expression=AT_ONCE)
        wait_for(lambda: emu.attempts())
        (attempt,) = emu.attempts()
        assert (attempt.error_code, attempt.retryable) == ("DeliveryTimeout", True)
        assert "within 0.2 seconds" in (attempt.error_message or "")
        release.set()


def test_an_interrupted_real_time_delivery_is_made_again_a_retry_interval_later() -> None:
    calls: list[int] = []

    def handler(attempt: Any) -> None:
        calls.append(attempt.attempt_number)
        raise SystemExit(3)

    with Emulator(clock="real", tick_interval=0.05) as emu:
        emu.target(QUEUE).handle(handler)
        create(emu.client(), expression=AT_ONCE)
        wait_for(lambda: emu.activity("interrupted"))
        time.sleep(0.3)  # an immediate retry would have run again by now
        assert calls == [1]
        (note,) = emu.activity("interrupted")
        assert "made again 60 seconds later" in note.detail
        assert emu.attempts() == []


def test_the_control_api_ticks_a_real_clock_while_a_delivery_is_under_way() -> None:
    release = threading.Event()
    with Emulator(clock="real", tick_interval=0.05) as emu:
        emu.target(QUEUE).handle(lambda attempt: release.wait(30))
        create(emu.client(), expression=AT_ONCE)
        wait_for(lambda: emu.debug.delivering)
        request = urllib.request.Request(
            f"{emu.endpoint_url}/_schedemu/clock/tick", data=b"{}", method="POST", headers=JSON_TYPE
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        release.set()


def test_stop_does_not_wait_past_its_bound_for_a_blocking_sync_handler() -> None:
    release = threading.Event()
    others = handler_threads()  # the session emulator's, if a test before started it
    emu = Emulator(start="2026-03-01T10:00:00Z", delivery_timeout=0.3, shutdown_timeout=0.2)
    emu.start()
    emu.target(QUEUE).handle(lambda attempt: release.wait(30))
    create(emu.client(), expression="at(2026-03-01T10:00:00)")
    mover = threading.Thread(target=emu.clock.tick)
    mover.start()
    wait_for(lambda: emu.debug.delivering)
    started = time.monotonic()
    emu.stop()
    assert time.monotonic() - started < 1.5
    mover.join(5)
    assert not mover.is_alive()
    (attempt,) = emu.attempts()
    assert attempt.error_code == "DeliveryTimeout"
    release.set()
    # The thread the handler blocked ends once it returns: nothing is left behind.
    wait_for(lambda: handler_threads() - others == set(), "the handler's thread to end")


def handler_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "schedemu-handler-calls"}
