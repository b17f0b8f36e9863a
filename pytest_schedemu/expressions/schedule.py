"""A cron expression compiled for fast searching on the wall clock.

Wall-clock times are integers: a *wall minute* counts minutes since 1970-01-01T00:00 on
the zone's own clock, ignoring DST. The times of day become one sorted list of minutes
(hours x minutes), and each (year, month) gets a cached sorted list of its matching days,
so the next match after any wall minute is a few bisects. Mapping wall time to instants
is the business of ``zones`` and ``timeline``.
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
    MONTH_STARTS,
    aws_weekday,
    month_index,
)
from pytest_schedemu.expressions.cron import CronExpression


class CronSchedule:
    """The matching wall minutes of one cron expression, from 1970 to the end of 2199."""

    __slots__ = ("_day_rule", "_days", "_months", "_next_month", "minutes_of_day")

    def __init__(self, expression: CronExpression) -> None:
        # Sorted because both factors are sorted and a minute never reaches 60.
        self.minutes_of_day: tuple[int, ...] = tuple(
            hour * 60 + minute for hour in expression.hours for minute in expression.minutes
        )
        self._day_rule = expression.day_rule
        self._months = [
            month_index(year, month) for year in expression.years for month in expression.months
        ]
        self._days: dict[int, tuple[int, ...]] = {}
        self._next_month: dict[int, int] = {}

    def month_days(self, index: int) -> tuple[int, ...]:
        """The matching days (epoch days, increasing) of one month index."""
        days = self._days.get(index)
        if days is None:
            days = ()
            position = bisect_left(self._months, index)
            if position < len(self._months) and self._months[position] == index:
                start = MONTH_STARTS[index]
                length = MONTH_STARTS[index + 1] - start
                matching = self._day_rule.days(length, aws_weekday(start))
                days = tuple(start + day - 1 for day in matching)
            self._days[index] = days
        return days

    def _month_with_days(self, index: int) -> int:
        """The first month index >= ``index`` that has a matching day, or MONTH_COUNT."""
        found = self._next_month.get(index)
        if found is None:
            months = self._months
            position = bisect_left(months, index)
            while position < len(months) and not self.month_days(months[position]):
                position += 1
            found = months[position] if position < len(months) else MONTH_COUNT
            self._next_month[index] = found
        return found

    def next_minute(self, minute: int) -> int | None:
        """The smallest matching wall minute >= ``minute``, or None after 2199."""
        day, minute_of_day = divmod(minute, MINUTES_PER_DAY)
        if day < FIRST_DAY:
            day, minute_of_day = FIRST_DAY, 0
        elif day >= END_DAY:
            return None
        index = bisect_right(MONTH_STARTS, day) - 1
        days = self.month_days(index)
        times = self.minutes_of_day
        position = bisect_left(days, day)
        if position < len(days):
            if days[position] != day:
                return days[position] * MINUTES_PER_DAY + times[0]
            later = bisect_left(times, minute_of_day)
            if later < len(times):
                return day * MINUTES_PER_DAY + times[later]
            if position + 1 < len(days):
                return days[position + 1] * MINUTES_PER_DAY + times[0]
        index = self._month_with_days(index + 1)
        if index == MONTH_COUNT:
            return None
        return self.month_days(index)[0] * MINUTES_PER_DAY + times[0]

    def days_between(self, first: int, last: int) -> Iterator[int]:
        """The matching epoch days in [first, last], increasing."""
        first = max(first, FIRST_DAY)
        last = min(last, END_DAY - 1)
        if first > last:
            return
        index = self._month_with_days(bisect_right(MONTH_STARTS, first) - 1)
        last_index = bisect_right(MONTH_STARTS, last) - 1
        while index <= last_index:
            days = self.month_days(index)
            yield from days[bisect_left(days, first) : bisect_right(days, last)]
            index = self._month_with_days(index + 1)


@lru_cache(maxsize=1024)
def compile_cron(expression: CronExpression) -> CronSchedule:
    """The one compiled schedule of an expression; its day caches fill as it is used."""
    return CronSchedule(expression)
