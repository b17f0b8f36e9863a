"""§4.2: the at() grammar."""

from __future__ import annotations

from datetime import datetime

import pytest

from pytest_schedemu.expressions import AtExpression, InvalidScheduleExpression, parse_expression


def wall_of(text: str) -> datetime:
    expression = parse_expression(text)
    assert isinstance(expression, AtExpression)
    return expression.wall


def test_at_with_seconds_is_read_as_a_naive_wall_time() -> None:
    assert wall_of("at(2026-03-01T10:20:30)") == datetime(2026, 3, 1, 10, 20, 30)


def test_at_without_seconds_means_zero_seconds() -> None:
    assert wall_of("at(2026-03-01T10:20)") == datetime(2026, 3, 1, 10, 20, 0)


def test_at_wall_time_is_naive() -> None:
    assert wall_of("at(2026-03-01T10:20)").tzinfo is None


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        # 2028 is divisible by 4 and not by 100: a leap year.
        ("at(2028-02-29T00:00:00)", datetime(2028, 2, 29)),
        # 2000 is divisible by 400: a leap year.
        ("at(2000-02-29T12:00:00)", datetime(2000, 2, 29, 12)),
        ("at(1970-01-01T00:00:00)", datetime(1970, 1, 1)),
        ("at(9999-12-31T23:59:59)", datetime(9999, 12, 31, 23, 59, 59)),
        ("at(2022-12-31T23:59:59)", datetime(2022, 12, 31, 23, 59, 59)),
        ("at(2026-04-30T23:59:00)", datetime(2026, 4, 30, 23, 59)),
    ],
)
def test_at_accepts_every_real_calendar_moment_from_1970_to_9999(text: str, wall: datetime) -> None:
    assert wall_of(text) == wall


@pytest.mark.parametrize(
    "text",
    [
        "at(2021-12-31T23:59:59Z)",  # a zone suffix
        "at(2021-12-31T23:59:59+00:00)",  # an offset
        "at(2021-12-31)",  # a date only
        "at(2021-12-31 23:59:59)",  # a space instead of T
        "at(2021-12-31t23:59:59)",  # a lower-case t
        "at(2021-12-31T23:59:59.5)",  # fractional seconds
        "at(2021-12-31T23:59:59.000)",
        "at(2021-1-31T23:59:59)",  # single-digit month
        "at(2021-12-3T23:59:59)",  # single-digit day
        "at(2021-12-31T3:59:59)",  # single-digit hour
        "at(2021-12-31T23:5:59)",  # single-digit minute
        "at(2021-12-31T23:59:5)",  # single-digit second
        "at(2021-12-31T23)",  # no minutes
        "at(21-12-31T23:59:59)",  # two-digit year
        "at(12021-12-31T23:59:59)",  # five-digit year
        "at()",
        "at(now)",
    ],
)
def test_at_rejects_malformed_text(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


@pytest.mark.parametrize(
    "text",
    [
        "at(2026-00-10T00:00:00)",  # month 0
        "at(2026-13-10T00:00:00)",  # month 13
        "at(2026-01-00T00:00:00)",  # day 0
        "at(2026-01-32T00:00:00)",  # January has 31 days
        "at(2026-04-31T00:00:00)",  # April has 30 days
        "at(2026-02-29T00:00:00)",  # 2026 is not divisible by 4: no leap day
        "at(2100-02-29T00:00:00)",  # 2100 is divisible by 100 but not 400: no leap day
        "at(2028-02-30T00:00:00)",  # even a leap February stops at 29
        "at(2026-01-01T24:00:00)",  # hour 24
        "at(2026-01-01T23:60:00)",  # minute 60
        "at(2026-01-01T23:59:60)",  # no leap seconds
        "at(1969-12-31T23:59:59)",  # before 1970
        "at(0000-01-01T00:00:00)",
    ],
)
def test_at_rejects_moments_missing_from_the_calendar_or_the_year_range(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)
