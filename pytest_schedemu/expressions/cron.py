"""Parsing ``cron(minutes hours day-of-month month day-of-week [year])``.

The result is plain data: each time field as its sorted values, and the day fields as one
``DayRule``. Finding occurrences is the business of ``schedule``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from pytest_schedemu.errors import InvalidScheduleExpression
from pytest_schedemu.expressions.civil import FIRST_YEAR, LAST_YEAR
from pytest_schedemu.expressions.days import (
    DayRule,
    LastDay,
    LastOfWeekday,
    LastWeekday,
    MonthDays,
    NearestWeekday,
    NthWeekday,
    WeekDays,
)

_MONTH_NAMES = {
    name: number
    for number, name in enumerate(
        ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"),
        start=1,
    )
}
_WEEKDAY_NAMES = {
    name: number
    for number, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"), start=1)
}


@dataclass(frozen=True)
class CronExpression:
    """A recurring schedule on the wall clock of the schedule's time zone."""

    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    day_rule: DayRule
    months: tuple[int, ...]
    years: tuple[int, ...]

    kind: ClassVar[Literal["cron"]] = "cron"
    recurring: ClassVar[bool] = True


class _Malformed(Exception):
    """Raised anywhere inside a field; ``parse_cron`` turns it into the AWS error."""


@dataclass(frozen=True)
class _Field:
    low: int
    high: int
    names: Mapping[str, int]
    # Ranges such as 22-2 or NOV-FEB run past the maximum and start again at the minimum.
    wraps: bool
    steps: bool


_MINUTES = _Field(0, 59, {}, wraps=True, steps=True)
_HOURS = _Field(0, 23, {}, wraps=True, steps=True)
_DAYS_OF_MONTH = _Field(1, 31, {}, wraps=False, steps=True)
_MONTHS = _Field(1, 12, _MONTH_NAMES, wraps=True, steps=True)
_DAYS_OF_WEEK = _Field(1, 7, _WEEKDAY_NAMES, wraps=True, steps=False)
_YEARS = _Field(FIRST_YEAR, LAST_YEAR, {}, wraps=False, steps=True)


def parse_cron(text: str) -> CronExpression:
    """Parse a whole ``cron(...)`` expression; ``text`` is ASCII and starts with ``cron(``."""
    if not text.endswith(")"):
        raise InvalidScheduleExpression(text)
    # Names, L and W are case-insensitive; the caller guarantees ASCII, so upper() is safe.
    body = text[5:-1].upper()
    if body != body.strip(" "):
        raise InvalidScheduleExpression(text)
    fields = [field for field in body.split(" ") if field]
    if len(fields) == 5:
        fields.append("*")
    if len(fields) != 6:
        raise InvalidScheduleExpression(text)
    minutes, hours, day_of_month, month, day_of_week, year = fields
    try:
        by_month = _day_of_month(day_of_month)
        by_week = _day_of_week(day_of_week)
        # Exactly one of the two day fields is ``?``; the other one decides.
        if by_week is None and by_month is not None:
            day_rule = by_month
        elif by_month is None and by_week is not None:
            day_rule = by_week
        else:
            raise _Malformed
        return CronExpression(
            text=text,
            minutes=_values(minutes, _MINUTES),
            hours=_values(hours, _HOURS),
            day_rule=day_rule,
            months=_values(month, _MONTHS),
            years=_values(year, _YEARS),
        )
    except _Malformed:
        raise InvalidScheduleExpression(text) from None


def _day_of_month(field: str) -> DayRule | None:
    """The rule, or None for ``?``."""
    if field == "?":
        return None
    if field == "L":
        return LastDay()
    if field == "LW":
        return LastWeekday()
    if field.endswith("W"):
        return NearestWeekday(_number(field[:-1], _DAYS_OF_MONTH))
    return MonthDays(_values(field, _DAYS_OF_MONTH))


def _day_of_week(field: str) -> DayRule | None:
    """The rule, or None for ``?``."""
    if field == "?":
        return None
    if field == "L":
        return WeekDays(frozenset({7}))
    weekday, hash_sign, nth = field.partition("#")
    if hash_sign:
        if not nth.isdigit() or not 1 <= int(nth) <= 5:
            raise _Malformed
        return NthWeekday(_number(weekday, _DAYS_OF_WEEK), int(nth))
    if len(field) > 1 and field.endswith("L"):
        return LastOfWeekday(_number(field[:-1], _DAYS_OF_WEEK))
    return WeekDays(frozenset(_values(field, _DAYS_OF_WEEK)))


def _values(field: str, spec: _Field) -> tuple[int, ...]:
    """The sorted values of a comma list of ``*``, ``n``, ``n-m`` items with optional steps."""
    values: set[int] = set()
    for item in field.split(","):
        values.update(_item(item, spec))
    return tuple(sorted(values))


def _item(item: str, spec: _Field) -> range | list[int]:
    base, slash, step_text = item.partition("/")
    step = 1
    if slash:
        if not spec.steps or not step_text.isdigit():
            raise _Malformed
        step = int(step_text)
        if step < 1:
            raise _Malformed
    if base == "*":
        return range(spec.low, spec.high + 1, step)
    first_text, dash, last_text = base.partition("-")
    first = _number(first_text, spec)
    # ``n/s`` runs to the field's maximum; a bare ``n`` is the single value.
    last = _number(last_text, spec) if dash else spec.high if slash else first
    if first <= last:
        return range(first, last + 1, step)
    if not spec.wraps:
        raise _Malformed
    # The step carries on across the wrap, as in Quartz: minutes 55-54/13 are 55, 8, 21,
    # 34, 47 (not a fresh start at 0).
    span = spec.high - spec.low + 1
    count = last - first + span + 1
    return [spec.low + (first - spec.low + offset) % span for offset in range(0, count, step)]


def _number(text: str, spec: _Field) -> int:
    if text.isdigit():
        value = int(text)
    elif text in spec.names:
        value = spec.names[text]
    else:
        raise _Malformed
    if not spec.low <= value <= spec.high:
        raise _Malformed
    return value
