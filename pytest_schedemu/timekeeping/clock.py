"""Clocks: the emulator's only source of time.

The virtual clock moves only when a test moves it, and every move runs the dispatcher up to
the new instant, so deliveries happen in the test's own thread in a fixed order. Nothing in
the emulator reads the wall clock except ``RealClock``.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, Callable, Union

from pytest_schedemu.errors import ClockError, HandlerError
from pytest_schedemu.formats.times import UTC, Instant, to_utc
from pytest_schedemu.timekeeping.stepping import Lookahead, MovesByEvents, Within

# The dispatcher, as the clock sees it: run every work item due at or before the instant
# and return the attempts made.
Driver = Callable[[datetime], list[Any]]
# The same, one work item at a time, letting the running event loop's other tasks run
# between items.
AsyncDriver = Callable[[datetime], Awaitable[list[Any]]]

INSIDE_A_DELIVERY = (
    "Cannot move the clock from inside a delivery: a target handler (or anything it calls) "
    "runs while the clock stands at its attempt's instant, and moving the clock then would "
    "move it backwards when the delivery returns. Move it from the test instead."
)

DURING_AN_ASYNC_MOVE = (
    "Cannot move the clock (or reset or configure the emulator) while an async move "
    "(advance_async, move_to_async, tick_async) is under way in this thread: the event "
    "loop's other tasks run between its work items, and a move of theirs would interleave "
    "with it. Await the async move first."
)


def _amount(
    delta: timedelta | None,
    seconds: float,
    minutes: float,
    hours: float,
    days: float,
    weeks: float,
) -> timedelta:
    """What ``advance(delta, seconds=..., ...)`` moves by, checked."""
    if delta is None:
        delta = timedelta()
    elif not isinstance(delta, timedelta):
        raise TypeError(f"Unsupported delta {delta!r}: expected a datetime.timedelta")
    try:
        delta += timedelta(seconds=seconds, minutes=minutes, hours=hours, days=days, weeks=weeks)
    except (OverflowError, ValueError):
        raise ValueError(
            f"Unsupported amount to advance by (seconds={seconds!r}, minutes={minutes!r}, "
            f"hours={hours!r}, days={days!r}, weeks={weeks!r}): expected finite amounts "
            "within a datetime.timedelta's range"
        ) from None
    if delta < timedelta():
        raise ValueError(f"Cannot advance by a negative amount ({delta}); time only moves on")
    return delta


class DeliveryGuard:
    """Knows when a delivery is under way, so the clock refuses to move from inside one.

    The dispatcher enters ``delivering()`` around each delivery; a clock move or a reset
    from that thread (a target handler, or anything it calls) raises ``ClockError``, and
    ``busy`` tells other threads (the control API, serving a handler's HTTP request) that
    waiting for the clock would wait for the delivery that waits for them.
    """

    def __init__(self) -> None:
        # A context variable rather than a thread-local: a thread starts with a context of
        # its own, and so does each asyncio task, so a coroutine handler is inside its
        # delivery while the other tasks of its event loop are not.
        self._depth: contextvars.ContextVar[int] = contextvars.ContextVar(
            "schedemu_delivery_depth", default=0
        )
        self._lock = threading.Lock()
        self._active = 0

    @contextmanager
    def delivering(self) -> Iterator[None]:
        token = self._depth.set(self._depth.get() + 1)
        with self._lock:
            self._active += 1
        try:
            yield
        finally:
            self._depth.reset(token)
            with self._lock:
                self._active -= 1

    @property
    def inside(self) -> bool:
        """Whether this thread (or asyncio task) is inside a delivery."""
        return self._depth.get() > 0

    @property
    def busy(self) -> bool:
        """Whether any thread is inside a delivery."""
        return self._active > 0

    def refuse_inside(self) -> None:
        if self.inside:
            raise ClockError(INSIDE_A_DELIVERY)
        if self._async_mover == threading.get_ident():
            raise ClockError(DURING_AN_ASYNC_MOVE)

    # -- async moves ------------------------------------------------------------------------

    # The thread whose event loop runs an async move (``VirtualClock.advance_async``...):
    # its other tasks run between the move's work items, and may not move the clock then.
    _async_mover: int | None = None

    @contextmanager
    def moving_async(self) -> Iterator[None]:
        """Marks this thread as running an async move until the block ends."""
        self._async_mover = threading.get_ident()
        try:
            yield
        finally:
            self._async_mover = None


class VirtualClock(MovesByEvents):
    """A clock that stands still until it is told to move.

    ``advance``, ``move_to`` and ``tick`` run the dispatcher up to the new instant, and
    ``advance_to_next``, ``run_until`` and ``run_until_idle`` (``stepping``) to the instants
    its queue names; while a work item runs, ``now()`` is that item's instant.
    """

    #: Whether this is the wall clock (``RealClock``), which no test can move.
    real_time = False

    def __init__(self, start: Instant) -> None:
        self._now = to_utc(start, what="start")
        self._driver: Driver | None = None
        self._async_driver: AsyncDriver | None = None
        self._lookahead: Lookahead | None = None
        self._followers: list[Callable[[datetime], None]] = []
        # One clock operation at a time: two threads advancing at once would interleave
        # deliveries and make the order depend on the scheduler of the operating system.
        self._moving = threading.RLock()
        self._guard = DeliveryGuard()

    def now(self) -> datetime:
        """The current virtual time, an aware UTC datetime."""
        return self._now

    def advance(
        self,
        delta: timedelta | None = None,
        *,
        seconds: float = 0,
        minutes: float = 0,
        hours: float = 0,
        days: float = 0,
        weeks: float = 0,
    ) -> list[Any]:
        """Move forward by ``delta`` (or the keyword amounts) and deliver what falls due."""
        delta = _amount(delta, seconds, minutes, hours, days, weeks)
        self._guard.refuse_inside()
        with self._moving:
            return self._run_through(self._advanced_by(delta))

    def move_to(self, when: Instant) -> list[Any]:
        """Move forward to ``when`` and deliver what falls due; moving backwards is an error."""
        target = to_utc(when, what="destination")
        self._guard.refuse_inside()
        with self._moving:
            return self._run_through(self._forward_to(target))

    def tick(self) -> list[Any]:
        """Deliver what is due at the current instant without moving time."""
        self._guard.refuse_inside()
        with self._moving:
            return self._run_through(self._now)

    def _advanced_by(self, delta: timedelta) -> datetime:
        if delta > datetime.max.replace(tzinfo=UTC) - self._now:
            raise ValueError(
                f"Cannot advance {self._now.isoformat()} by {delta}: that is past the year 9999"
            )
        return self._now + delta

    def _forward_to(self, target: datetime) -> datetime:
        if target < self._now:
            raise ValueError(
                f"Cannot move the clock back from {self._now.isoformat()} to "
                f"{target.isoformat()}; only reset(start=...) may do that"
            )
        return target

    def _run_through(self, target: datetime) -> list[Any]:
        try:
            attempts = self._driver(target) if self._driver is not None else []
        except HandlerError as error:
            # Raised afresh here, the test's traceback is its own line and the handler's.
            raise error.with_traceback(None) from error.__cause__
        self._set(target)
        return attempts

    def _set(self, instant: datetime) -> None:
        self._now = instant
        for follow in self._followers:
            follow(instant)

    def __repr__(self) -> str:
        return f"VirtualClock({self._now.isoformat()!r})"

    # -- async moves: the running event loop's tasks run between work items ----------------

    async def advance_async(
        self,
        delta: timedelta | None = None,
        *,
        seconds: float = 0,
        minutes: float = 0,
        hours: float = 0,
        days: float = 0,
        weeks: float = 0,
    ) -> list[Any]:
        """``advance``, from async code: the running event loop's other tasks run after each
        work item, and coroutine handlers are awaited in that loop."""
        delta = _amount(delta, seconds, minutes, hours, days, weeks)
        return await self._run_through_async(lambda: self._advanced_by(delta))

    async def move_to_async(self, when: Instant) -> list[Any]:
        """``move_to``, from async code (see ``advance_async``)."""
        target = to_utc(when, what="destination")
        return await self._run_through_async(lambda: self._forward_to(target))

    async def tick_async(self) -> list[Any]:
        """``tick``, from async code (see ``advance_async``)."""
        return await self._run_through_async(lambda: self._now)

    async def _run_through_async(self, destination: Callable[[], datetime]) -> list[Any]:
        self._guard.refuse_inside()
        # Held across the move's awaits, by the loop's thread: another thread's move waits
        # for this one, as it waits for a sync move; this thread's other tasks are refused
        # by the guard, since the lock would let them in.
        with self._moving, self._guard.moving_async():
            target = destination()
            try:
                driver = self._async_driver
                attempts = await driver(target) if driver is not None else []
            except HandlerError as error:
                raise error.with_traceback(None) from error.__cause__
            self._set(target)
            return attempts


class RealClock:
    """Wall-clock time, for running the emulator as a service (``schedemu serve``).

    It cannot be moved: the dispatcher thread delivers what falls due as time passes.
    """

    #: Whether this is the wall clock, which no test can move.
    real_time = True

    def __init__(self) -> None:
        self._moving = threading.RLock()
        self._wake: Callable[[], None] | None = None
        self._guard = DeliveryGuard()

    def now(self) -> datetime:
        return datetime.now(UTC)

    def _refuse(self) -> list[Any]:
        raise ClockError(
            "The clock is real time (Emulator(clock='real')); it cannot be moved. "
            "Use clock='virtual' to travel in time."
        )

    def advance(self, delta: timedelta | None = None, **amounts: float) -> list[Any]:
        return self._refuse()

    def move_to(self, when: Instant) -> list[Any]:
        return self._refuse()

    def advance_to_next(self, n: int = 1) -> list[Any]:
        return self._refuse()

    def run_until(self, predicate: Callable[[], object], *, within: Within) -> list[Any]:
        return self._refuse()

    def run_until_idle(self, *, within: Within) -> list[Any]:
        return self._refuse()

    def tick(self) -> list[Any]:
        """Wake the dispatcher thread; deliveries happen there, so none are returned."""
        if self._wake is not None:
            self._wake()
        return []

    def __repr__(self) -> str:
        return "RealClock()"

    # -- async moves -----------------------------------------------------------------------

    async def advance_async(self, delta: timedelta | None = None, **amounts: float) -> list[Any]:
        return self._refuse()

    async def move_to_async(self, when: Instant) -> list[Any]:
        return self._refuse()

    async def tick_async(self) -> list[Any]:
        """Wake the dispatcher thread, as ``tick`` does."""
        return self.tick()

    async def advance_to_next_async(self, n: int = 1) -> list[Any]:
        return self._refuse()

    async def run_until_async(
        self, predicate: Callable[[], object], *, within: Within
    ) -> list[Any]:
        return self._refuse()

    async def run_until_idle_async(self, *, within: Within) -> list[Any]:
        return self._refuse()


# What the API and the emulator need of either clock.
Clock = Union[VirtualClock, RealClock]


class ClockWiring:
    """What the emulator's own parts do to its clock and a test must not: place it, hand it
    the dispatcher, hold its operation lock, mark deliveries, follow its moves.

    Kept off the clock, whose members are what a test does with time (``now``, the moves,
    ``real_time``): the emulator wires its clock and hands each part the piece it needs, as
    the dispatcher gets ``set`` and ``guard``. A wiring holds nothing of its own, so a
    ``TimeFreeze`` given only the clock wires itself to follow it. Only this module reads
    the clocks' private members.
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def attach(
        self,
        driver: Driver,
        lookahead: Lookahead,
        async_driver: AsyncDriver,
        wake: Callable[[], None],
    ) -> None:
        """Hand the clock the dispatcher: a virtual clock runs it on each move (``driver``,
        or ``async_driver`` for an async move) and steps by its ``lookahead``; a real one
        only wakes the thread that runs it (``wake``) on ``tick``."""
        clock = self.clock
        if isinstance(clock, VirtualClock):
            clock._driver, clock._async_driver = driver, async_driver
            clock._lookahead = lookahead
        else:
            clock._wake = wake

    def set(self, instant: datetime) -> None:
        """Place the clock at ``instant``: where a move has got to (a work item's instant,
        the move's target). Real time is never placed; its moves leave it as it is."""
        if isinstance(self.clock, VirtualClock):
            self.clock._set(instant)

    def place(self, when: Instant) -> None:
        """Put the clock anywhere, backwards too: a reset with a start, a state restored."""
        if not isinstance(self.clock, VirtualClock):
            raise ClockError(
                "A real-time clock cannot be placed at a start; reset it without one, or use "
                "clock='virtual'"
            )
        self.clock._set(to_utc(when, what="start"))

    @property
    def operation_lock(self) -> threading.RLock:
        """Held by every clock operation; a reset takes it too, to wait for one to finish."""
        return self.clock._moving

    @property
    def guard(self) -> DeliveryGuard:
        """Marks deliveries, so that the clock refuses to move from inside one."""
        return self.clock._guard

    def follow(self, callback: Callable[[datetime], None]) -> Callable[[], None]:
        """Call ``callback(now)`` whenever the virtual clock moves; returns the undo."""
        clock = self.clock
        if not isinstance(clock, VirtualClock):
            raise ClockError("A real-time clock cannot be followed: nothing moves it")
        clock._followers.append(callback)
        return lambda: clock._followers.remove(callback)

    @property
    def followed(self) -> bool:
        """Whether anything (a freeze in lockstep) follows the clock's moves: then the
        dispatcher plays item by item, as the follower may look between items."""
        return isinstance(self.clock, VirtualClock) and bool(self.clock._followers)
