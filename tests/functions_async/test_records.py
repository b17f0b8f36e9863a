"""The runs of a stack's own function as records: each names the attempt whose event
Lambda accepted, and a failed assertion lists them beneath that attempt."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import DeliveryAssertionError
from tests.constants import FUNCTION
from tests.functions_async.doubles import Handlers, failing, function
from tests.helpers import create


@pytest.fixture
def failed_twice(emu: Emulator, client: Any, handlers: Handlers) -> Emulator:
    """A function that fails twice for its one event, then no more retries."""
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_retry_attempts=1))
    create(client, "once", "at(2026-03-01T10:30:00)", target={"Arn": FUNCTION, "Input": "{}"})
    emu.clock.advance(hours=1)
    return emu


def test_each_run_names_the_attempt_that_delivered_its_event(failed_twice: Emulator) -> None:
    [attempt] = failed_twice.attempts()
    runs = failed_twice.invocations()
    assert [run.execution_id for run in runs] == [attempt.execution_id] * 2


def test_a_failed_assertion_lists_the_runs_beneath_their_attempt(failed_twice: Emulator) -> None:
    with pytest.raises(DeliveryAssertionError) as raised:
        failed_twice.assert_not_delivered(FUNCTION)

    report = str(raised.value)
    lines = report.splitlines()
    attempt = next(i for i, line in enumerate(lines) if "default/once #1 delivered" in line)
    assert lines[attempt + 1 : attempt + 3] == [
        "      ↳ 2026-03-01T10:30:00Z remind run #1 FAILED ValueError: cannot remind about {}",
        "      ↳ 2026-03-01T10:31:00Z remind run #2 FAILED ValueError: cannot remind about {}",
    ]


def test_describe_attempts_shows_what_each_run_returned(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: {"ok": True}
    emu.functions.add(function())
    create(client, "once", "at(2026-03-01T10:30:00)", target={"Arn": FUNCTION, "Input": "{}"})
    emu.clock.advance(hours=1)

    assert "↳ 2026-03-01T10:30:00Z remind run #1 returned {'ok': True}" in emu.describe_attempts()


def test_the_timeline_names_the_runs_in_their_attempts_title(failed_twice: Emulator) -> None:
    svg = failed_twice.timeline_svg()

    assert "↳ remind run 1 ValueError: cannot remind about {} · 2026-03-01 10:30:00Z" in svg
    assert "↳ remind run 2 ValueError: cannot remind about {} · 2026-03-01 10:31:00Z" in svg
