"""Moving the virtual clock by what happens rather than by a guessed amount.

``advance_to_next`` steps to the next pending work, ``run_until`` steps until a condition
holds, ``run_until_idle`` moves until no one-time work remains (sinon's ``clock.next`` and
``runAll``, Jest's ``advanceTimersToNextTimer``). Each step is an ordinary move of the clock
to the instant the dispatcher's queue names (``Lookahead``), so it plays exactly what a move
to that instant plays, and costs what it costs.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Generator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable, Protocol, Union

from pytest_schedemu.errors import ClockError, ClockTimeout
from pytest_schedemu.formats.times import UTC

if TYPE_CHECKING:
    from pytest_schedemu.timekeeping.clock import DeliveryGuard

#: The most steps one ``advance_to_next`` takes: each is a move of its own (about 0.1 ms
#: for one step of one schedule), so this bounds the verb to seconds, where a move by a
#: span is bounded by ``max_attempts_per_advance``; a test stepping further moves by a span.
MAX_STEPS = 100_000
#: How long ``run_until`` and ``run_until_idle`` may move the clock: a timedelta, or seconds.
Within = Union[timedelta, float]
#: A verb's plan: yields the instant of each move, is sent what the move made, and returns
#: what the whole verb made.
Steps = Generator[datetime, "list[Any]", "list[Any]"]


class Lookahead(Protocol):
    """What the clock's moves by events ask of the dispatcher's queue."""

    def next_due(self) -> datetime | None:
        """When the earliest work is due; None when nothing is pending."""
        ...

    def next_one_time_due(self) -> datetime | None:
        """When the earliest work other than recurring schedules' next occurrences is due."""
        ...

    def describe_one_time(self, limit: int) -> list[str]:
        """The first ``limit`` pieces of one-time work, each told in a line."""
        ...

    def gathering(self) -> Gathering:
        """What gathers a series of moves as one move's answer."""
        ...


class Gathering(Protocol):
    """A series of moves as one move's answer, gathered as they are made, bounded as one
    move's answer is."""

    #: How many attempts the moves made so far, kept or not.
    made: int

    def add(self, move: list[Any]) -> None:
        """Take in what one more move made."""
        ...

    def result(self) -> list[Any]:
        """What the moves made, as one move's answer."""
        ...


class MovesByEvents:
    """The virtual clock's moves by events; ``VirtualClock`` provides the rest."""

    _now: datetime
    _lookahead: Lookahead | None
    _moving: threading.RLock
    _guard: DeliveryGuard

    if TYPE_CHECKING:

        def _run_through(self, target: datetime) -> list[Any]: ...

        async def _run_through_async(self, destination: Callable[[], datetime]) -> list[Any]: ...

    def advance_to_next(self, n: int = 1) -> list[Any]:
        """Move to the instant of the next pending work (an occurrence, a first attempt at
        the end of a flexible window, a retry, a deletion after completion, a group
        removal) and do everything due then, ``n`` times; return the attempts made.

        ``ClockError`` when a step finds nothing pending: the steps before it stand.
        """
        # Not a plan of steps like the other verbs: a step here is the whole verb's cost,
        # which must not exceed an ``advance`` to the same instant.
        _check_steps(n)
        self._guard.refuse_inside()
        with self._moving:
            lookahead = self._looking_ahead()
            moves = lookahead.gathering()
            for step in range(n):
                moves.add(self._run_through(self._next_target(lookahead, step, n)))
            return moves.result()

    def run_until(self, predicate: Callable[[], object], *, within: Within) -> list[Any]:
        """Move event by event (as ``advance_to_next`` steps) until ``predicate()`` is true,
        checked before the first step and after each; return the attempts made.

        The clock goes no further than ``within`` (a timedelta, or seconds) from where it
        stands: if the predicate is still false there, the clock stays there and
        ``ClockTimeout`` names the predicate, ``within`` and the clock.
        """
        return self._drive(self._until(predicate, within))

    def run_until_idle(self, *, within: Within) -> list[Any]:
        """Move until no one-time work remains (at() occurrences, first attempts, retries
        and the dead letters they may send, deletions after completion, group removals),
        recurring schedules' occurrences playing on the way but not waited for; return
        the attempts made.

        The clock stops where the last one-time work was done, and goes no further than
        ``within`` (a timedelta, or seconds): still busy there, it stays there and
        ``ClockTimeout`` names what is still pending, ``within`` and the clock.
        """
        return self._drive(self._until_idle(within))

    async def advance_to_next_async(self, n: int = 1) -> list[Any]:
        """``advance_to_next``, from async code (see ``advance_async``)."""
        _check_steps(n)
        lookahead = self._looking_ahead()
        moves = lookahead.gathering()
        for step in range(n):
            target = self._next_target(lookahead, step, n)
            moves.add(await self._run_through_async(_at(target)))
        return moves.result()

    async def run_until_async(
        self, predicate: Callable[[], object], *, within: Within
    ) -> list[Any]:
        """``run_until``, from async code (see ``advance_async``); the predicate is checked
        after each step, once the loop's other tasks have had their turn."""
        return await self._drive_async(self._until(predicate, within))

    async def run_until_idle_async(self, *, within: Within) -> list[Any]:
        """``run_until_idle``, from async code (see ``advance_async``)."""
        return await self._drive_async(self._until_idle(within))

    # Each verb is a plan of steps: it yields the instant of each move and is sent back
    # what that move made; a sync or an async driver carries it out, so the two verbs of
    # each kind can never disagree on where they stop.

    def _drive(self, plan: Steps) -> list[Any]:
        self._guard.refuse_inside()
        with self._moving:
            try:
                target = next(plan)
                while True:
                    target = plan.send(self._run_through(target))
            except StopIteration as done:
                made: list[Any] = done.value  # the plan's own answer (a MoveAttempts)
                return made

    async def _drive_async(self, plan: Steps) -> list[Any]:
        try:
            target = next(plan)
            while True:
                target = plan.send(await self._run_through_async(_at(target)))
        except StopIteration as done:
            made: list[Any] = done.value
            return made

    def _next_target(self, lookahead: Lookahead, step: int, n: int) -> datetime:
        """Where step ``step`` (of ``n``) of ``advance_to_next`` moves the clock."""
        due = lookahead.next_due()
        if due is None:
            made = "no step was made" if step == 0 else f"{step} of {n} steps were made"
            raise ClockError(
                f"Nothing is pending at {self._now.isoformat()}: no occurrence, "
                f"attempt, deletion or group removal is queued; {made}"
            )
        return max(due, self._now)

    def _until(self, predicate: Callable[[], object], within: Within) -> Steps:
        span = _span(within)
        lookahead = self._looking_ahead()
        start, deadline = self._now, self._deadline(span)
        moves = lookahead.gathering()
        while not predicate():
            due = lookahead.next_due()
            if due is None or due > deadline:
                moves.add((yield deadline))
                if predicate():
                    break
                raise ClockTimeout(
                    f"{_name_of(predicate)} was still false after {_told(span)} of virtual "
                    f"time (within={within!r}): the clock moved from {start.isoformat()} to "
                    f"{deadline.isoformat()}, making {_attempts(moves.made)}; "
                    + (
                        "nothing is pending"
                        if due is None
                        else f"the next work is due at {due.isoformat()}"
                    )
                )
            moves.add((yield max(due, self._now)))
        return moves.result()

    def _until_idle(self, within: Within) -> Steps:
        span = _span(within)
        lookahead = self._looking_ahead()
        start, deadline = self._now, self._deadline(span)
        moves = lookahead.gathering()
        while True:
            due = lookahead.next_one_time_due()
            if due is None:
                return moves.result()
            if due > deadline:
                moves.add((yield deadline))
                if lookahead.next_one_time_due() is None:
                    return moves.result()
                waiting = "; ".join(lookahead.describe_one_time(5))
                raise ClockTimeout(
                    f"Still busy after {_told(span)} of virtual time (within={within!r}): "
                    f"the clock moved from {start.isoformat()} to {deadline.isoformat()}, "
                    f"making {_attempts(moves.made)}, and one-time work is "
                    f"still pending: {waiting}"
                )
            # Recurring occurrences before it play on the way, as a move plays them.
            moves.add((yield max(due, self._now)))

    def _looking_ahead(self) -> Lookahead:
        if self._lookahead is None:
            raise ClockError(
                "This clock is not attached to an emulator's dispatcher: there is no work "
                "to move to"
            )
        return self._lookahead

    def _deadline(self, span: timedelta) -> datetime:
        if span > datetime.max.replace(tzinfo=UTC) - self._now:
            raise ValueError(
                f"Cannot wait {span} from {self._now.isoformat()}: that is past the year 9999"
            )
        return self._now + span


def _check_steps(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_STEPS:
        raise ValueError(
            f"Unsupported number of steps {n!r}: expected a whole number from 1 to {MAX_STEPS}"
        )


def _at(instant: datetime) -> Callable[[], datetime]:
    return lambda: instant


def _span(within: Within) -> timedelta:
    """``within`` as a timedelta: a timedelta, or a number of seconds, not negative."""
    if isinstance(within, timedelta):
        span = within
    elif isinstance(within, (int, float)) and not isinstance(within, bool):
        try:
            span = timedelta(seconds=within)
        except (OverflowError, ValueError):
            raise ValueError(f"Unsupported within={within!r}: out of a timedelta's range") from None
    else:
        raise TypeError(f"Unsupported within={within!r}: expected a datetime.timedelta or seconds")
    if span < timedelta():
        raise ValueError(f"Unsupported within={within!r}: a negative span; time only moves on")
    return span


def _told(span: timedelta) -> str:
    return str(span) if span.days == 0 else f"{span} ({span.total_seconds():g} seconds)"


def _attempts(count: int) -> str:
    return f"{count} attempt{'' if count == 1 else 's'}"


def _name_of(predicate: Callable[[], object]) -> str:
    """How an error names a predicate: its name, or a lambda's line of source."""
    name = getattr(predicate, "__name__", None)
    if name and name != "<lambda>":
        return f"{name}()"
    try:
        lines, _ = inspect.getsourcelines(predicate)
    except (OSError, TypeError):
        return repr(predicate)
    line = " ".join(part.strip() for part in lines)
    return f"the predicate `{line if len(line) <= 200 else line[:199] + '…'}`"
