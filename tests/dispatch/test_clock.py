"""The virtual clock: the emulator's only source of time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import T0
from tests.helpers import create


def test_now_is_the_start(emu: Emulator) -> None:
    assert emu.clock.now() == T0


def test_advance_by_timedelta_and_by_keywords(emu: Emulator) -> None:
    emu.clock.advance(timedelta(hours=1))
    emu.clock.advance(seconds=1, minutes=1, hours=1, days=1, weeks=1)
    assert emu.clock.now() == T0 + timedelta(weeks=1, days=1, hours=2, minutes=1, seconds=1)


def test_advance_backwards_is_refused(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="negative"):
        emu.clock.advance(timedelta(seconds=-1))
    assert emu.clock.now() == T0


def test_move_to_forward(emu: Emulator) -> None:
    emu.clock.move_to("2026-03-02T00:00:00Z")
    assert emu.clock.now() == datetime(2026, 3, 2, tzinfo=timezone.utc)


def test_move_to_backwards_raises_value_error(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="Cannot move the clock back"):
        emu.clock.move_to("2026-03-01T09:59:59Z")


def test_move_to_rejects_naive_and_odd_values(emu: Emulator) -> None:
    with pytest.raises(ValueError):
        emu.clock.move_to(datetime(2026, 3, 2))
    with pytest.raises(TypeError, match="Unsupported destination 5"):
        emu.clock.move_to(5)  # type: ignore[arg-type]


def test_advance_returns_the_attempts_made(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")
    attempts = emu.clock.advance(hours=2)
    assert [a.scheduled_time for a in attempts] == [
        T0,
        T0 + timedelta(hours=1),
        T0 + timedelta(hours=2),
    ]


def test_tick_fires_what_is_due_now_without_moving(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")
    attempts = emu.clock.tick()
    assert [a.scheduled_time for a in attempts] == [T0]
    assert emu.clock.now() == T0
    assert emu.clock.tick() == []


def test_the_emulators_tick_still_ticks_and_says_to_use_the_clocks(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="rate(1 hour)")
    with pytest.warns(
        DeprecationWarning, match=r"emu\.tick\(\) .* use emu\.clock\.tick\(\)"
    ) as caught:
        attempts = emu.tick()
    assert [a.scheduled_time for a in attempts] == [T0]
    assert [Path(warning.filename).name for warning in caught] == [Path(__file__).name]


def test_clock_stands_at_each_item_while_it_is_delivered(emu: Emulator, client: Any) -> None:
    seen = []
    emu.target("arn:aws:sqs:us-east-1:123456789012:queue").handle(
        lambda attempt: seen.append(emu.clock.now())
    )
    create(client, expression="rate(30 minutes)")
    emu.clock.advance(hours=1, minutes=10)
    assert seen == [T0, T0 + timedelta(minutes=30), T0 + timedelta(hours=1)]
    assert emu.clock.now() == T0 + timedelta(hours=1, minutes=10)


def test_api_timestamps_follow_the_virtual_clock(emu: Emulator, client: Any) -> None:
    emu.clock.advance(days=3)
    client.create_schedule_group(Name="g")
    assert client.get_schedule_group(Name="g")["CreationDate"] == T0 + timedelta(days=3)


def test_reset_may_move_the_clock_back(emu: Emulator, client: Any) -> None:
    emu.clock.advance(days=1)
    emu.reset(start="2020-01-01T00:00:00Z")
    assert emu.clock.now() == datetime(2020, 1, 1, tzinfo=timezone.utc)


def test_reset_without_start_keeps_the_clock(emu: Emulator) -> None:
    emu.clock.advance(hours=5)
    emu.reset()
    assert emu.clock.now() == T0 + timedelta(hours=5)


def test_empty_advance_over_a_long_stretch_does_nothing(emu: Emulator, client: Any) -> None:
    create(client, expression="at(2030-01-01T00:00:00)")
    assert emu.clock.advance(days=365) == []
    assert len(emu.clock.advance(days=365 * 3)) == 1


@pytest.mark.parametrize(
    "amount", [{"seconds": float("nan")}, {"days": float("inf")}, {"weeks": 1e300}]
)
def test_advance_by_an_impossible_amount_is_a_clear_error(
    emu: Emulator, amount: dict[str, float]
) -> None:
    with pytest.raises(ValueError, match="Unsupported amount to advance by"):
        emu.clock.advance(**amount)
    assert emu.clock.now() == T0


def test_advance_past_the_last_representable_year_is_refused(emu: Emulator) -> None:
    emu.reset(start="9999-12-31T00:00:00Z")
    with pytest.raises(ValueError, match="past the year 9999"):
        emu.clock.advance(days=2)
    assert emu.clock.now() == datetime(9999, 12, 31, tzinfo=timezone.utc)


def test_no_next_occurrence_past_the_last_representable_instant(emu: Emulator, client: Any) -> None:
    emu.reset(start="9999-12-31T00:00:00Z")
    create(client, expression="rate(1 day)")
    assert len(emu.clock.advance(hours=1)) == 1
    assert emu.next_occurrence("s1") is None
