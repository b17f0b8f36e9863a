"""Timelines: the nominal times of one expression in one zone, within one schedule window.

Everything runs on integer epoch seconds; the datetime methods only convert at the edges.
The dispatcher asks ``next_after_epoch`` once per occurrence, so that path is a few table
lookups for a UTC cron, plus a cached per-day offset on either side for a zoned one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache

from pytest_schedemu.expressions.at import AtExpression
from pytest_schedemu.expressions.civil import (
    END_DAY,
    FIRST_DAY,
    SECONDS_PER_DAY,
    ceil_epoch,
    floor_epoch,
    to_datetime,
)
from pytest_schedemu.expressions.expression import Expression, parse_expression
from pytest_schedemu.expressions.rate import RateExpression
from pytest_schedemu.expressions.schedule import CronSchedule, compile_cron
from pytest_schedemu.expressions.zones import (
    UTC_NAMES,
    ZoneCalendar,
    resolve_timezone,
    transition_instant,
    zone_calendar,
)

# Every cron wall time lies in 1970-2199; a zone shifts it by less than a day, so instants
# outside these bounds can be clamped without changing any answer.
_EARLIEST = FIRST_DAY * SECONDS_PER_DAY - 2 * SECONDS_PER_DAY
_LATEST = END_DAY * SECONDS_PER_DAY + 2 * SECONDS_PER_DAY
# A window side that was not given; rate() has no last year.
_UNBOUNDED = 1 << 100


class Timeline(ABC):
    """The nominal times of a schedule, as aware UTC datetimes or integer epoch seconds."""

    __slots__ = ("expression", "timezone")

    recurring: bool

    def __init__(self, expression: Expression, timezone: str) -> None:
        self.expression = expression
        self.timezone = timezone

    @abstractmethod
    def next_after_epoch(self, x: int) -> int | None:
        """The smallest nominal time strictly after epoch second ``x``, or None."""

    @abstractmethod
    def between_epochs(self, start: int, end: int) -> Iterator[int]:
        """Every nominal time in [start, end), increasing."""

    def next_after(self, instant: datetime) -> datetime | None:
        """The smallest nominal time strictly after an aware instant, or None."""
        # Nominal times are whole seconds, so "after 10:00:00.5" is "after 10:00:00".
        found = self.next_after_epoch(floor_epoch(instant, "instant"))
        return None if found is None else to_datetime(found)

    def between(self, start: datetime, end: datetime) -> Iterator[datetime]:
        """Every nominal time in [start, end), increasing, as aware UTC datetimes."""
        epochs = self.between_epochs(ceil_epoch(start, "start"), ceil_epoch(end, "end"))
        return map(to_datetime, epochs)


class _AtTimeline(Timeline):
    __slots__ = ("_at",)

    recurring = False

    def __init__(self, expression: Expression, timezone: str, at: int) -> None:
        super().__init__(expression, timezone)
        self._at = at

    def next_after_epoch(self, x: int) -> int | None:
        return self._at if self._at > x else None

    def between_epochs(self, start: int, end: int) -> Iterator[int]:
        if start <= self._at < end:
            yield self._at


class _Window(Timeline):
    """A recurring timeline: only nominal times in [lower, upper] exist."""

    __slots__ = ("_floor", "_lower", "_upper")

    recurring = True

    def __init__(self, expression: Expression, timezone: str, lower: int, upper: int) -> None:
        super().__init__(expression, timezone)
        self._lower = lower
        self._upper = upper
        self._floor = lower - 1


class _RateTimeline(_Window):
    __slots__ = ("_anchor", "_period")

    def __init__(
        self,
        expression: RateExpression,
        timezone: str,
        lower: int,
        upper: int,
        anchor: int,
    ) -> None:
        super().__init__(expression, timezone, lower, upper)
        self._anchor = anchor
        self._period = expression.period_seconds

    def next_after_epoch(self, x: int) -> int | None:
        if x < self._floor:
            x = self._floor
        k = (x - self._anchor) // self._period + 1
        found = self._anchor + max(k, 0) * self._period
        return found if found <= self._upper else None

    def between_epochs(self, start: int, end: int) -> Iterator[int]:
        start = max(start, self._lower)
        end = min(end, self._upper + 1)
        # The first k >= 0 with anchor + k * period >= start, by ceiling division.
        k = max(-((self._anchor - start) // self._period), 0)
        yield from range(self._anchor + k * self._period, end, self._period)


class _UtcCronTimeline(_Window):
    """Cron in UTC: wall time is the instant, so no conversion at all (§4.6 step 5)."""

    __slots__ = ("_schedule",)

    def __init__(
        self, expression: Expression, timezone: str, lower: int, upper: int, schedule: CronSchedule
    ) -> None:
        super().__init__(expression, timezone, max(lower, _EARLIEST), min(upper, _LATEST))
        self._schedule = schedule

    def next_after_epoch(self, x: int) -> int | None:
        if x < self._floor:
            x = self._floor
        minute = self._schedule.next_minute(x // 60 + 1)
        if minute is None or minute * 60 > self._upper:
            return None
        return minute * 60

    def between_epochs(self, start: int, end: int) -> Iterator[int]:
        start = max(start, self._lower)
        end = min(end, self._upper + 1)
        if start >= end:
            return
        seconds = self._schedule.seconds_of_day
        for day in self._schedule.days_between(
            start // SECONDS_PER_DAY, (end - 1) // SECONDS_PER_DAY
        ):
            base = day * SECONDS_PER_DAY
            first = bisect_left(seconds, start - base)
            stop = bisect_left(seconds, end - base)
            yield from map(base.__add__, seconds[first:stop])


class _ZonedCronTimeline(_Window):
    """Cron on a zone's wall clock, with the §4.6 rules for gaps and overlaps."""

    __slots__ = ("_calendar", "_schedule")

    def __init__(
        self,
        expression: Expression,
        timezone: str,
        lower: int,
        upper: int,
        schedule: CronSchedule,
        calendar: ZoneCalendar,
    ) -> None:
        super().__init__(expression, timezone, max(lower, _EARLIEST), min(upper, _LATEST))
        self._schedule = schedule
        self._calendar = calendar

    def next_after_epoch(self, x: int) -> int | None:
        if x < self._floor:
            x = self._floor
        elif x >= self._upper:
            return None
        calendar = self._calendar
        # Wall times up to the wall clock of x map to instants <= x, even when x lies in
        # the second pass of an overlap, so the search starts just after it.
        minute = calendar.to_local(x) // 60 + 1
        while True:
            found = self._schedule.next_minute(minute)
            if found is None:
                return None
            instant = calendar.to_instant(found * 60)
            # A skipped wall time yields None; an overlap wall time whose first instant
            # is not after x has already happened.
            if instant is not None and instant > x:
                return instant if instant <= self._upper else None
            minute = found + 1

    def between_epochs(self, start: int, end: int) -> Iterator[int]:
        start = max(start, self._lower)
        end = min(end, self._upper + 1)
        if start >= end:
            return
        calendar = self._calendar
        seconds = self._schedule.seconds_of_day
        first_day = calendar.to_local(start) // SECONDS_PER_DAY
        # An overlap straddling midnight can put first instants before `end` on the
        # local day after the one `end` falls on.
        last_day = calendar.to_local(end - 1) // SECONDS_PER_DAY + 1
        for day in self._schedule.days_between(first_day, last_day):
            info = calendar.day(day)
            wall = day * SECONDS_PER_DAY
            if isinstance(info, int):
                base = wall - info
                first = bisect_left(seconds, start - base)
                stop = bisect_left(seconds, end - base)
                yield from map(base.__add__, seconds[first:stop])
                continue
            for second in seconds:
                instant = transition_instant(info, wall + second)
                if instant is not None and start <= instant < end:
                    yield instant


def timeline(
    expression: Expression | str,
    *,
    timezone: str = "UTC",
    start_date: datetime | None = None,
    end_date: datetime | None = None,
    created_at: datetime,
) -> Timeline:
    """The nominal times of one schedule (§4.6-§4.8).

    ``start_date``/``end_date`` bound recurring schedules, both inclusive, and are ignored
    by at(). A rate() is anchored at ``start_date`` floored to the second, else at
    ``created_at`` floored. Raises ``InvalidScheduleExpression`` or ``InvalidTimezone``,
    and ``TypeError`` for a naive datetime.
    """
    if isinstance(expression, str):
        expression = parse_expression(expression)
    resolve_timezone(timezone)
    created = floor_epoch(created_at, "created_at")
    lower = -_UNBOUNDED if start_date is None else ceil_epoch(start_date, "start_date")
    upper = _UNBOUNDED if end_date is None else floor_epoch(end_date, "end_date")
    anchor = None
    if isinstance(expression, RateExpression):
        anchor = created if start_date is None else floor_epoch(start_date, "start_date")
    return _shared_timeline(expression, timezone, lower, upper, anchor)


# Timelines are immutable: schedules with the same expression, zone and window (most of
# them) share one, as they share its compiled cron and its zone's calendar.
@lru_cache(maxsize=4096)
def _shared_timeline(
    expression: Expression, timezone: str, lower: int, upper: int, anchor: int | None
) -> Timeline:
    zone = resolve_timezone(timezone)
    if isinstance(expression, AtExpression):
        # fold=0: a skipped wall time keeps the offset before the change, which moves it
        # forward by the gap; a repeated one takes its first instant.
        at = floor_epoch(expression.wall.replace(tzinfo=zone), "at")
        return _AtTimeline(expression, timezone, at)
    if isinstance(expression, RateExpression):
        assert anchor is not None
        return _RateTimeline(expression, timezone, lower, upper, anchor)
    schedule = compile_cron(expression)
    if timezone in UTC_NAMES:
        return _UtcCronTimeline(expression, timezone, lower, upper, schedule)
    return _ZonedCronTimeline(expression, timezone, lower, upper, schedule, zone_calendar(timezone))
