"""Process time held at a virtual clock's instant: freezegun in lockstep with the emulator.

While a ``TimeFreeze`` runs, ``datetime.now()`` and ``time.time()`` in application code read
the emulator's clock, inside target handlers too, and every move of the clock moves every
active freezegun freeze (this one, and any the test started itself with ``freeze_time`` or
pytest-freezer's ``freezer``). Moving a freeze by hand does not move the emulator's clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.clock import Clock, VirtualClock
from pytest_schedemu.errors import SchedemuError


class TimeFreeze:
    """freezegun held at a virtual clock's instant for as long as it runs."""

    def __init__(self, clock: Clock) -> None:
        import freezegun

        if not isinstance(clock, VirtualClock):
            raise SchedemuError("A real-time clock cannot be frozen")
        self._freezer = freezegun.freeze_time(clock.now())
        self._freezer.start()
        self._unfollow: Callable[[], None] | None = clock.follow(self._move)

    @staticmethod
    def _move(instant: datetime) -> None:
        from freezegun import api

        for factory in api.freeze_factories:
            factory.move_to(instant)

    def stop(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
            self._freezer.stop()

    def __enter__(self) -> TimeFreeze:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
