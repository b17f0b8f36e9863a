"""A cron expression compiled for fast searching on the wall clock.

Wall-clock times are integers: a *wall minute* counts minutes since 1970-01-01T00:00 on
the zone's own clock, ignoring DST. The search answers "the first match at or after this
wall minute" with table lookups rather than loops:

* one table gives, for every minute of the day, the first matching time of day from it;
* each (year, month), when first reached, gets its matching days and a table giving, for
  every day of the month, the first matching day from it;
* a memo gives, for a month, the first month from it that has any matching day, so years
  without a match are skipped in one step.

Mapping wall time to instants is the business of ``zones`` and ``timeline``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import lru_cache

from pytest_schedemu.expressions.civil import (
    END_DAY,
    FIRST_DAY,
    MINUTES_PER_DAY,
    MONTH_COUNT,
    MONTH_OF_DAY,
    MONTH_STARTS,
    aws_weekday,
    month_index,
)
from pytest_schedemu.expressions.cron import CronExpression

_NONE = -1


class _Month:
    """The matching days of one month: ``days`` in order, and ``following[k]``, the first
    matching day on or after the month's k-th day (0-based), or _NONE."""

    __slots__ = ("days", "following")

    def __init__(self, days: tuple[int, ...], following: tuple[int, ...]) -> None:
        self.days = days
        self.following = following


class CronSchedule:
    """The matching wall minutes of one cron expression, from 1970 to the end of 2199."""

    __slots__ = (
        "_day_rule",
        "_first_time",
        "_later",
        "_months",
        "_next_time",
        "_wanted",
        "seconds_of_day",
    )

    def __init__(self, expression: CronExpression) -> None:
        # Sorted because both factors are sorted and a minute never reaches 60.
        times = tuple(
            hour * 60 + minute for hour in expression.hours for minute in expression.minutes
        )
        self.seconds_of_day = tuple(time * 60 for time in times)
        self._first_time = times[0]
        positions = [bisect_left(times, minute) for minute in range(MINUTES_PER_DAY)]
        self._next_time = tuple(
            times[position] if position < len(times) else _NONE for position in positions
        )
        self._day_rule = expression.day_rule
        # The candidate months, sorted: every listed month of every listed year.
        self._wanted = [
            month_index(year, month) for year in expression.years for month in expression.months
        ]
        self._months: list[_Month | None] = [None] * MONTH_COUNT
        self._later: list[int] = [_NONE] * (MONTH_COUNT + 1)
        self._later[MONTH_COUNT] = MONTH_COUNT

    def _month(self, index: int) -> _Month:
        month = self._months[index]
        if month is None:
            start = MONTH_STARTS[index]
            length = MONTH_STARTS[index + 1] - start
            days: tuple[int, ...] = ()
            position = bisect_left(self._wanted, index)
            if position < len(self._wanted) and self._wanted[position] == index:
                matching = self._day_rule.days(length, aws_weekday(start))
                days = tuple(start + day - 1 for day in matching)
            matching_offsets = {day - start for day in days}
            following = [_NONE] * (length + 1)
            upcoming = _NONE
            for offset in range(length - 1, -1, -1):
                if offset in matching_offsets:
                    upcoming = start + offset
                following[offset] = upcoming
            month = self._months[index] = _Month(days, tuple(following))
        return month

    def _month_with_days(self, index: int) -> int:
        """The first month index >= ``index`` that has a matching day, or MONTH_COUNT."""
        found = self._later[index]
        if found == _NONE:
            wanted = self._wanted
            position = bisect_left(wanted, index)
            while position < len(wanted) and not self._month(wanted[position]).days:
                position += 1
            found = wanted[position] if position < len(wanted) else MONTH_COUNT
            self._later[index] = found
        return found

    def next_minute(self, minute: int) -> int | None:
        """The smallest matching wall minute >= ``minute``, or None after 2199."""
        day, minute_of_day = divmod(minute, MINUTES_PER_DAY)
        if day < FIRST_DAY:
            day, minute_of_day = FIRST_DAY, 0
        elif day >= END_DAY:
            return None
        index = MONTH_OF_DAY[day - FIRST_DAY]
        month = self._months[index] or self._month(index)
        offset = day - MONTH_STARTS[index]
        following = month.following[offset]
        if following == day:
            time = self._next_time[minute_of_day]
            if time != _NONE:
                return day * MINUTES_PER_DAY + time
            following = month.following[offset + 1]
        if following != _NONE:
            return following * MINUTES_PER_DAY + self._first_time
        index = self._month_with_days(index + 1)
        if index == MONTH_COUNT:
            return None
        return self._month(index).days[0] * MINUTES_PER_DAY + self._first_time

    def days_between(self, first: int, last: int) -> Iterator[int]:
        """The matching epoch days in [first, last], increasing."""
        first = max(first, FIRST_DAY)
        last = min(last, END_DAY - 1)
        if first > last:
            return
        index = self._month_with_days(MONTH_OF_DAY[first - FIRST_DAY])
        last_index = MONTH_OF_DAY[last - FIRST_DAY]
        while index <= last_index:
            days = self._month(index).days
            yield from days[bisect_left(days, first) : bisect_right(days, last)]
            index = self._month_with_days(index + 1)


@lru_cache(maxsize=1024)
def compile_cron(expression: CronExpression) -> CronSchedule:
    """The one compiled schedule of an expression; its month caches fill as it is used."""
    return CronSchedule(expression)
