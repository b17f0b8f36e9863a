"""Which days of one month a cron expression's day fields select.

Exactly one of day-of-month and day-of-week is ``?``, so a cron expression has a single
day rule: the other field. Every rule answers the same question for a month given only its
length and the weekday of its 1st, so the compiled schedule can cache the answer per
(year, month).

Weekdays use cron's numbering throughout: 1 = Sunday ... 7 = Saturday.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

SUNDAY = 1
SATURDAY = 7


def _weekday(first_weekday: int, day: int) -> int:
    return (first_weekday + day - 2) % 7 + 1


class DayRule(ABC):
    """The day-of-month or day-of-week field that is not ``?``."""

    @abstractmethod
    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        """The matching days (1-based, increasing) of a month of ``length`` days."""


@dataclass(frozen=True)
class MonthDays(DayRule):
    """Day-of-month numbers, lists, ranges and steps; ``*`` is all 31."""

    values: tuple[int, ...]

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        return tuple(day for day in self.values if day <= length)


@dataclass(frozen=True)
class LastDay(DayRule):
    """Day-of-month ``L``."""

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        return (length,)


@dataclass(frozen=True)
class NearestWeekday(DayRule):
    """Day-of-month ``nW``: the Monday-Friday nearest to day n, never leaving the month."""

    day: int

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        day = self.day
        if day > length:
            return ()
        weekday = _weekday(first_weekday, day)
        if weekday == SATURDAY:
            # Friday would be in the previous month, so the 1st moves on to Monday the 3rd.
            return (3,) if day == 1 else (day - 1,)
        if weekday == SUNDAY:
            # Monday would be in the next month, so the last day moves back to Friday.
            return (day - 2,) if day == length else (day + 1,)
        return (day,)


@dataclass(frozen=True)
class LastWeekday(DayRule):
    """Day-of-month ``LW``: the month's last Monday-Friday."""

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        weekday = _weekday(first_weekday, length)
        if weekday == SATURDAY:
            return (length - 1,)
        if weekday == SUNDAY:
            return (length - 2,)
        return (length,)


@dataclass(frozen=True)
class WeekDays(DayRule):
    """Day-of-week numbers, lists and ranges; ``*`` is all seven, bare ``L`` is Saturday."""

    values: frozenset[int]

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        values = self.values
        return tuple(day for day in range(1, length + 1) if _weekday(first_weekday, day) in values)


@dataclass(frozen=True)
class LastOfWeekday(DayRule):
    """Day-of-week ``nL``: the month's last weekday n, e.g. ``6L`` = the last Friday."""

    weekday: int

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        return (length - (_weekday(first_weekday, length) - self.weekday) % 7,)


@dataclass(frozen=True)
class NthWeekday(DayRule):
    """Day-of-week ``n#k``: the k-th weekday n; a month without one has no match."""

    weekday: int
    nth: int

    def days(self, length: int, first_weekday: int) -> tuple[int, ...]:
        day = 1 + (self.weekday - first_weekday) % 7 + 7 * (self.nth - 1)
        return (day,) if day <= length else ()
