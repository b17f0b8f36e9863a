"""Test-only reference implementations, written for clarity rather than speed.

* ``matches``: does a naive wall-clock minute match a parsed cron expression? The day rules
  are re-derived here from ``calendar``, independently of the engine's ``days`` module.
* ``brute_force``: the §4.6 algorithm taken literally: walk every wall minute, keep the
  matches, map each with fold=0 and drop those that do not round-trip (skipped by DST).
* ``at``: an aware UTC datetime, the tests' shorthand.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from pytest_schedemu.expressions import CronExpression
from pytest_schedemu.expressions.days import (
    LastDay,
    LastOfWeekday,
    LastWeekday,
    MonthDays,
    NearestWeekday,
    NthWeekday,
    WeekDays,
)

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def at(
    year: int,
    month: int,
    day: int,
    hour: int = 0,
    minute: int = 0,
    second: int = 0,
    microsecond: int = 0,
) -> datetime:
    return datetime(year, month, day, hour, minute, second, microsecond, tzinfo=UTC)


def aws_weekday(day: date) -> int:
    """The reference's mapping: 1 = Sunday ... 7 = Saturday."""
    return (day.weekday() + 1) % 7 + 1


def _is_business_day(day: date) -> bool:
    return day.weekday() < 5


def day_matches(expression: CronExpression, day: date) -> bool:
    rule = expression.day_rule
    length = calendar.monthrange(day.year, day.month)[1]
    if isinstance(rule, MonthDays):
        return day.day in rule.values
    if isinstance(rule, LastDay):
        return day.day == length
    if isinstance(rule, LastWeekday):
        last = max(d for d in range(1, length + 1) if _is_business_day(day.replace(day=d)))
        return day.day == last
    if isinstance(rule, NearestWeekday):
        if rule.day > length:
            return False
        target = day.replace(day=rule.day)
        if _is_business_day(target):
            return day == target
        # Look at the weekdays one and two days either side, nearest first, inside the month.
        for shift in (-1, 1, -2, 2):
            candidate = target + timedelta(days=shift)
            if candidate.month == target.month and _is_business_day(candidate):
                return day == candidate
        raise AssertionError("a month always has a weekday within two days")
    if isinstance(rule, WeekDays):
        return aws_weekday(day) in rule.values
    if isinstance(rule, LastOfWeekday):
        return aws_weekday(day) == rule.weekday and day.day + 7 > length
    if isinstance(rule, NthWeekday):
        return aws_weekday(day) == rule.weekday and (day.day - 1) // 7 + 1 == rule.nth
    raise AssertionError(f"unknown day rule {rule!r}")


def matches(expression: CronExpression, wall: datetime) -> bool:
    return (
        wall.year in expression.years
        and wall.month in expression.months
        and wall.hour in expression.hours
        and wall.minute in expression.minutes
        and day_matches(expression, wall.date())
    )


def epoch(instant: datetime) -> int:
    return int((instant - EPOCH).total_seconds())


def local_wall(instant: int, zone: ZoneInfo) -> datetime:
    return (EPOCH + timedelta(seconds=instant)).astimezone(zone).replace(tzinfo=None)


def brute_force(expression: CronExpression, zone_name: str, start: int, end: int) -> list[int]:
    """Every nominal time in [start, end), by walking every wall minute around it."""
    zone = ZoneInfo(zone_name)
    wall = local_wall(start, zone).replace(second=0) - timedelta(days=1)
    last = local_wall(end, zone) + timedelta(days=1)
    found = []
    while wall <= last:
        if matches(expression, wall):
            aware = wall.replace(tzinfo=zone)  # fold=0: the earlier instant
            exists = aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall
            instant = epoch(aware)
            if exists and start <= instant < end:
                found.append(instant)
        wall += timedelta(minutes=1)
    return found


def offset_changes(zone_name: str, years: range) -> list[int]:
    """The instants at which a zone's UTC offset changes, found by probing every day."""
    zone = ZoneInfo(zone_name)

    def offset(instant: int) -> timedelta | None:
        return (EPOCH + timedelta(seconds=instant)).astimezone(zone).utcoffset()

    first = epoch(datetime(years.start, 1, 1, tzinfo=UTC))
    last = epoch(datetime(years.stop, 1, 1, tzinfo=UTC))
    changes = []
    for day in range(first, last, 86400):
        low, high = day, day + 86400
        if offset(low) != offset(high):
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if offset(middle) == offset(low) else (low, middle)
            changes.append(high)
    return changes
