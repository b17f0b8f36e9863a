"""Process time held at a virtual clock's instant, in lockstep with the emulator.

While a ``TimeFreeze`` runs, ``datetime.now()`` and ``time.time()`` in application code read
the emulator's clock, inside target handlers too, and every move of the clock moves the
freeze. Two engines do the freezing:

- ``freezegun`` (the default): every active freezegun freeze moves with the clock, this one
  and any the test started itself (``freeze_time``, pytest-freezer's ``freezer``); moving
  a freeze by hand does not move the emulator. pytest's own modules are left unpatched,
  so ``--durations`` and junitxml keep measuring real time whether or not pytest-freezer
  is installed.
- ``time_machine``: time-machine's traveller, moved with the clock. time-machine mocks
  time at the C level and leaves ``perf_counter`` and ``monotonic`` alone, which is what
  pytest measures durations with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.timekeeping.clock import Clock, ClockWiring, VirtualClock

ENGINES = ("freezegun", "time_machine")

# Modules whose clocks freezegun must not touch: pytest's own timing, and its plugins'.
_PYTEST_MODULES = ["_pytest.", "pytest.", "pluggy.", "xdist.", "pytest_html."]


class TimeFreeze:
    """Process time held at a virtual clock's instant for as long as it runs."""

    def __init__(self, clock: Clock, engine: str = "freezegun") -> None:
        if engine not in ENGINES:
            raise ValueError(f"Unsupported freeze engine {engine!r}: use one of {ENGINES}")
        if not isinstance(clock, VirtualClock):
            raise SchedemuError("A real-time clock cannot be frozen")
        self.engine = engine
        self._stop: Callable[[], None]
        self._move: Callable[[datetime], None]
        if engine == "time_machine":
            self._start_time_machine(clock.now())
        else:
            self._start_freezegun(clock.now())
        self._unfollow: Callable[[], None] | None = ClockWiring(clock).follow(self._move)

    def _start_freezegun(self, now: datetime) -> None:
        import freezegun
        from freezegun import api

        freezer = freezegun.freeze_time(now, ignore=_PYTEST_MODULES)
        freezer.start()

        def move(instant: datetime) -> None:
            for factory in api.freeze_factories:
                factory.move_to(instant)

        self._move, self._stop = move, freezer.stop

    def _start_time_machine(self, now: datetime) -> None:
        try:
            import time_machine
        except ImportError:
            raise SchedemuError(
                "freeze='time_machine' needs time-machine: pip install time-machine "
                "(or use freeze=True for freezegun)"
            ) from None
        traveller = time_machine.travel(now, tick=False)
        coordinates: Any = traveller.start()
        self._move, self._stop = coordinates.move_to, traveller.stop

    def stop(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
            self._stop()

    def __enter__(self) -> TimeFreeze:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
