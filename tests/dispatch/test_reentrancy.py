"""What a target handler may and may not do while its delivery runs."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any, Callable

import pytest

from pytest_schedemu import ClockError, Emulator, HandlerError
from tests.constants import JSON_TYPE, QUEUE, T0
from tests.helpers import create


def handled_by(emu: Emulator, client: Any, action: Callable[[Any], Any]) -> list[Any]:
    raised: list[Any] = []

    def handler(attempt: Any) -> None:
        try:
            action(attempt)
        except ClockError as error:
            raised.append(error)
            raise

    emu.target(QUEUE).handle(handler)
    create(client, expression="rate(1 hour)")
    return raised


@pytest.mark.parametrize(
    "move",
    [
        lambda emu: emu.clock.advance(hours=1),
        lambda emu: emu.clock.move_to("2026-03-02T00:00:00Z"),
        lambda emu: emu.clock.tick(),
        lambda emu: emu.reset(),
    ],
    ids=["advance", "move_to", "tick", "reset"],
)
def test_moving_the_clock_from_a_handler_fails_the_move_and_changes_nothing(
    emu: Emulator, client: Any, move: Callable[[Emulator], Any]
) -> None:
    raised = handled_by(emu, client, lambda attempt: move(emu))
    with pytest.raises(HandlerError) as caught:
        emu.clock.advance(hours=2)
    (refusal,) = raised
    assert caught.value.__cause__ is refusal and "from inside a delivery" in str(refusal)
    # The clock never went back, the refused attempt is recorded, and the next move goes on.
    assert emu.clock.now() == T0
    emu.target(QUEUE).recover()
    emu.clock.advance(hours=2)
    assert [(a.scheduled_time, a.error_code) for a in emu.attempts()] == [
        (T0, "HandlerError"),
        (T0 + timedelta(hours=1), None),
        (T0 + timedelta(hours=2), None),
    ]


def test_api_calls_from_a_handler_keep_working(emu: Emulator, client: Any) -> None:
    seen: list[int] = []
    emu.target(QUEUE).handle(lambda attempt: seen.append(len(client.list_schedules()["Schedules"])))
    create(client, expression="rate(1 hour)")
    emu.clock.advance(hours=1)
    assert seen == [1, 1]


def test_a_handler_moving_the_clock_over_http_gets_a_conflict(emu: Emulator, client: Any) -> None:
    answers: list[tuple[int, str]] = []

    def handler(attempt: Any) -> None:
        request = urllib.request.Request(
            f"{emu.endpoint_url}/_schedemu/clock/advance",
            data=b'{"hours": 1}',
            method="POST",
            headers=JSON_TYPE,
        )
        try:
            urllib.request.urlopen(request, timeout=10).close()
        except urllib.error.HTTPError as error:
            with error:
                answers.append((error.code, json.loads(error.read())["__type"]))

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.tick()
    assert answers == [(409, "ConflictException")]


def test_an_interrupted_delivery_propagates_and_its_attempt_is_made_again(
    emu: Emulator, client: Any
) -> None:
    calls: list[int] = []

    def handler(attempt: Any) -> None:
        calls.append(attempt.attempt_number)
        if len(calls) == 1:
            raise KeyboardInterrupt

    emu.target(QUEUE).handle(handler)
    create(client, expression="at(2026-03-01T10:00:00)")
    with pytest.raises(KeyboardInterrupt):
        emu.clock.tick()
    (note,) = emu.activity("interrupted")
    assert note.scheduled_time == T0
    assert emu.attempts() == []
    emu.clock.tick()
    (attempt,) = emu.deliveries(QUEUE)
    assert attempt.scheduled_time == T0 and attempt.attempt_number == 1
    assert calls == [1, 1]
