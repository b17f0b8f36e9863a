"""A reset is a barrier: nothing a delivery begun before it does is recorded after it, in
memory or in the state file, and a reset waits (at most the delivery timeout) for the
deliveries under way."""

from __future__ import annotations

import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

from pytest_schedemu import Emulator
from pytest_schedemu.errors import DeliveryError
from tests.constants import DLQ, QUEUE, ROLE
from tests.helpers import wait_for

PAST = "at(2020-01-01T00:00:00)"


def held_target(emu: Emulator, release: threading.Event) -> threading.Event:
    """Make ``QUEUE``'s deliveries wait for ``release`` and then fail for good (so a dead
    letter follows); return the event set once one is under way."""
    entered = threading.Event()

    def handler(attempt: Any) -> None:
        entered.set()
        release.wait(30)
        raise DeliveryError("Boom", "refused", retryable=False)

    emu.target(QUEUE).handle(handler)
    return entered


def create_due_schedule(emu: Emulator) -> None:
    emu.client().create_schedule(
        Name="before",
        ScheduleExpression=PAST,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE, "DeadLetterConfig": {"Arn": DLQ}},
    )


def reset_over_http(emu: Emulator) -> None:
    request = urllib.request.Request(
        emu.endpoint_url + "/_schedemu/reset",
        data=b"{}",
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200


def reset_while_in_flight(emu: Emulator, reset: Callable[[Emulator], None]) -> float:
    """Reset while a delivery is held, releasing it once the state is empty; return how
    long the reset took."""
    release = threading.Event()
    entered = held_target(emu, release)
    create_due_schedule(emu)
    assert entered.wait(10), "the delivery never started"
    took: list[float] = []

    def resetting() -> None:
        began = time.monotonic()
        reset(emu)
        took.append(time.monotonic() - began)

    thread = threading.Thread(target=resetting)
    thread.start()
    try:
        wait_for(lambda: emu.client().list_schedules()["Schedules"] == [], "the reset")
    finally:
        release.set()
        thread.join(60)
    (seconds,) = took
    return seconds


def assert_nothing_recorded(emu: Emulator) -> None:
    assert emu.attempts() == []
    assert emu.dead_letters() == []
    assert emu.activity() == []
    assert emu.handler_errors == []


def test_a_reset_waits_for_a_delivery_under_way_and_records_nothing_of_it(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.db"
    emu = Emulator(clock="real", tick_interval=0.2, delivery_timeout=30, state=str(state))
    emu.start()
    try:
        reset_while_in_flight(emu, Emulator.reset)
        # The reset returned after the delivery ended: its outcome is already settled.
        assert_nothing_recorded(emu)
    finally:
        emu.stop()
    assert_nothing_recorded(emu)
    reopened = Emulator(clock="real", state=str(state))
    try:
        assert reopened.attempts() == []
        assert reopened.dead_letters() == []
        assert reopened.activity() == []
    finally:
        reopened.stop()


def test_a_reset_over_the_control_api_is_a_barrier_too() -> None:
    with Emulator(clock="real", tick_interval=0.2, transport="http") as emu:
        reset_while_in_flight(emu, reset_over_http)
        assert_nothing_recorded(emu)
    assert_nothing_recorded(emu)


def test_a_reset_waits_at_most_the_delivery_timeout_and_forgets_what_ends_later() -> None:
    release = threading.Event()
    with Emulator(clock="real", tick_interval=0.2, delivery_timeout=0.5) as emu:
        entered = held_target(emu, release)
        create_due_schedule(emu)
        assert entered.wait(10), "the delivery never started"
        began = time.monotonic()
        emu.reset()
        # Generous: the bound is the delivery timeout, far below this.
        assert time.monotonic() - began < 20
        finished = threading.Event()
        emu.target(QUEUE).handle(lambda attempt: None)
        release.set()
        # The held handler's late outcome reaches nothing: a new schedule's delivery is the
        # only record there is.
        emu.target("arn:aws:sqs:us-east-1:123456789012:after").handle(
            lambda attempt: finished.set()
        )
        emu.client().create_schedule(
            Name="after",
            ScheduleExpression=PAST,
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": "arn:aws:sqs:us-east-1:123456789012:after", "RoleArn": ROLE},
        )
        assert finished.wait(10)
    # Stopping joins the workers, so everything delivered is settled by now.
    assert [a.schedule_name for a in emu.attempts()] == ["after"]
    assert emu.dead_letters() == []
    assert [a for a in emu.activity() if "before" in a.schedule_arn] == []
