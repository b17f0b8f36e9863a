"""Lambda's retries on every kind of clock move: an async move plays them as a sync move
does, and a real-time clock runs them in its workers."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import FUNCTION, T0
from tests.functions_async.doubles import Handlers, failing, function
from tests.helpers import create

FAILURES = "arn:aws:sqs:us-east-1:123456789012:failures"


def test_an_async_move_plays_lambdas_retries_at_their_instants(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function())
    create(client, "once", "at(2026-03-01T10:30:00)", target={"Arn": FUNCTION, "Input": "{}"})

    asyncio.run(emu.clock.advance_async(hours=1))

    assert [run.invoked_at - T0 for run in emu.invocations()] == [
        timedelta(minutes=30),
        timedelta(minutes=31),
        timedelta(minutes=33),
    ]


def test_a_real_time_clock_runs_an_events_expiry_in_its_workers(handlers: Handlers) -> None:
    handlers.behaviours["remind"] = failing
    with Emulator(clock="real", transport="inprocess") as real:
        # An event that may not wait at all: its expiry is due as its first run fails.
        real.functions.add(function(maximum_event_age_seconds=0, on_failure=FAILURES))
        soon = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=2)
        expression = f"at({soon.strftime('%Y-%m-%dT%H:%M:%S')})"
        create(real.client(), "once", expression, target={"Arn": FUNCTION, "Input": "{}"})
        deadline = time.monotonic() + 20
        while not real.dead_letters(FAILURES) and time.monotonic() < deadline:
            time.sleep(0.05)

        [letter] = real.dead_letters(FAILURES)
        assert letter.payload["requestContext"]["condition"] == "EventAgeExceeded"
        assert len(real.invocations()) == 1
