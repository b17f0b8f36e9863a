"""A bug in a test's handler comes back to the test; it is never a silent retry."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_schedemu import DeliveryError, Emulator, HandlerError
from tests.constants import DLQ, JSON_TYPE, QUEUE, T0
from tests.helpers import create, wait_for

AT_ONCE = "at(2020-01-01T00:00:00)"  # in the past: fires at once with past_at="fire"


def buggy(attempt: Any) -> None:
    attempt.schedule_name.append("!")


def test_a_name_error_stops_the_move_and_names_target_schedule_attempt_and_time(
    emu: Emulator, client: Any
) -> None:
    def handler(attempt: Any) -> None:
        undefined_name  # type: ignore[name-defined]  # noqa: B018, F821

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    with pytest.raises(HandlerError) as caught:
        emu.clock.advance(hours=3)
    message = str(caught.value)
    assert message.startswith(
        f"The handler of {QUEUE} raised NameError: name 'undefined_name' is not defined "
        "(attempt 1 of schedule default/s1, scheduled at 2026-03-01T10:00:00Z)."
    )
    assert "raising DeliveryError" in message
    assert isinstance(caught.value.__cause__, NameError)
    # Where the chain is not shown (a teardown, a log), the handler's own line is.
    assert "in handler\n    undefined_name" in caught.value.handler_traceback
    # The move stopped at the attempt's instant; the hours after it were not played.
    assert emu.clock.now() == T0
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.error_message, attempt.retryable) == (
        "HandlerError",
        "NameError: name 'undefined_name' is not defined",
        False,
    )


def test_the_attempt_is_not_retried_and_a_later_move_carries_on(emu: Emulator, client: Any) -> None:
    calls: list[datetime] = []

    def handler(attempt: Any) -> None:
        calls.append(attempt.scheduled_time)
        if len(calls) == 1:
            raise RuntimeError("a bug")

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    with pytest.raises(HandlerError):
        emu.clock.advance(hours=2)
    emu.clock.advance(hours=2)
    assert calls == [T0 + timedelta(hours=h) for h in range(3)]
    assert [e.status for e in emu.executions("s1")] == ["invocation_error", "success", "success"]
    assert emu.clock.now() == T0 + timedelta(hours=2)


def test_a_bug_on_a_retry_names_that_attempt(emu: Emulator, client: Any) -> None:
    def handler(attempt: Any) -> None:
        if attempt.attempt_number == 1:
            raise DeliveryError("ThrottlingException", "slow down")
        buggy(attempt)

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)")
    with pytest.raises(HandlerError, match=r"raised AttributeError: .* \(attempt 2 of schedule"):
        emu.clock.advance(hours=1)
    assert emu.clock.now() == T0 + timedelta(minutes=1)
    assert [(a.error_code, a.retryable) for a in emu.attempts()] == [
        ("ThrottlingException", True),
        ("HandlerError", False),
    ]


def test_an_assertion_in_a_handler_fails_the_move(emu: Emulator, client: Any) -> None:
    def handler(attempt: Any) -> None:
        assert attempt.payload == {"order": 7}

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)", target={"Input": '{"order": 8}'})
    with pytest.raises(HandlerError, match="raised AssertionError") as caught:
        emu.clock.tick()
    assert isinstance(caught.value.__cause__, AssertionError)


def test_the_attempt_ends_as_a_permanent_failure_does(emu: Emulator, client: Any) -> None:
    emu.target(QUEUE).handle(buggy)
    create(client, expression="at(2026-03-01T10:00:00)", target={"DeadLetterConfig": {"Arn": DLQ}})
    with pytest.raises(HandlerError):
        emu.clock.tick()
    (letter,) = emu.dead_letters()
    assert letter.attributes["ERROR_CODE"] == "HandlerError"
    assert "EXHAUSTED_RETRY_CONDITION" not in letter.attributes


def test_a_move_over_http_answers_the_bug_and_the_emulator_keeps_it(
    emu: Emulator, client: Any
) -> None:
    emu.target(QUEUE).handle(buggy)
    create(client, expression="at(2026-03-01T10:30:00)")
    request = urllib.request.Request(
        f"{emu.endpoint_url}/_schedemu/clock/advance",
        data=b'{"hours": 1}',
        method="POST",
        headers=JSON_TYPE,
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    with caught.value:
        body = json.loads(caught.value.read())
    assert (caught.value.code, body["__type"]) == (500, "InternalServerException")
    assert body["Message"].startswith(f"The handler of {QUEUE} raised AttributeError")
    assert body["now"] == "2026-03-01T10:30:00Z"
    (kept,) = emu.handler_errors
    assert str(kept) == body["Message"]
    assert emu.server_errors == []
    emu.reset()
    assert emu.handler_errors == []


def test_a_real_time_handler_bug_is_kept_and_not_retried() -> None:
    with Emulator(clock="real", tick_interval=0.05) as emu:
        emu.target(QUEUE).handle(buggy)
        create(emu.client(), expression=AT_ONCE)
        wait_for(emu.attempts)
        (kept,) = emu.handler_errors
        assert str(kept).startswith(f"The handler of {QUEUE} raised AttributeError")
        assert "in buggy\n    attempt.schedule_name.append" in kept.report()
        (attempt,) = emu.attempts()
        assert (attempt.error_code, attempt.retryable) == ("HandlerError", False)
        assert emu.executions("s1")[0].status == "invocation_error"


def test_a_real_time_handler_that_fails_after_its_timeout_is_kept_too() -> None:
    release = threading.Event()

    def late(attempt: Any) -> None:
        release.wait(30)
        buggy(attempt)

    with Emulator(clock="real", tick_interval=0.05, delivery_timeout=0.2) as emu:
        emu.target(QUEUE).handle(late)
        create(emu.client(), expression=AT_ONCE)
        wait_for(emu.attempts)
        assert emu.attempts()[0].error_code == "DeliveryTimeout"
        release.set()
        wait_for(lambda: emu.handler_errors)


# -- the deadline: a sync handler that blocks past delivery_timeout ---------------------------


def test_a_blocking_sync_handler_fails_its_attempt_at_the_delivery_timeout(
    emu: Emulator, client: Any
) -> None:
    release = threading.Event()

    def blocking(attempt: Any) -> None:
        if attempt.attempt_number == 1:
            release.wait(30)

    emu.configure(delivery_timeout=0.2)
    emu.target(QUEUE).handle(blocking)
    create(client, expression="at(2026-03-01T10:00:00)")
    started = time.monotonic()
    try:
        emu.clock.advance(minutes=5)
        assert time.monotonic() - started < 3
    finally:
        release.set()
    first, retry = emu.attempts()
    assert (first.error_code, first.retryable) == ("DeliveryTimeout", True)
    assert first.error_message == "The handler did not answer within 0.2 seconds"
    # The retry ran although the first call had not returned yet.
    assert retry.succeeded
    assert emu.handler_errors == []


def test_a_blocking_sync_handler_cannot_hold_an_async_move(emu: Emulator, client: Any) -> None:
    release = threading.Event()
    emu.configure(delivery_timeout=0.2)
    emu.target(QUEUE).handle(lambda attempt: release.wait(30))
    create(client, expression="at(2026-03-01T10:00:00)")
    started = time.monotonic()
    try:
        asyncio.run(emu.clock.tick_async())
        assert time.monotonic() - started < 3
    finally:
        release.set()
    (attempt,) = emu.attempts()
    assert attempt.error_code == "DeliveryTimeout"


def test_a_sync_handler_is_inside_its_delivery_and_raises_into_the_move(
    emu: Emulator, client: Any
) -> None:
    def mover(attempt: Any) -> None:
        emu.clock.advance(hours=1)

    emu.target(QUEUE).handle(mover)
    create(client, expression="at(2026-03-01T10:00:00)")
    inside = r"raised \S*ClockError: Cannot move the clock from inside a delivery"
    with pytest.raises(HandlerError, match=inside):
        emu.clock.tick()
