"""§4.4: the cron() grammar, field by field and token by token."""

from __future__ import annotations

import pytest

from pytest_schedemu.expressions import CronExpression, InvalidScheduleExpression, parse_expression
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

ALL_YEARS = tuple(range(1970, 2200))


def cron(text: str) -> CronExpression:
    expression = parse_expression(text)
    assert isinstance(expression, CronExpression)
    return expression


def minutes(field: str) -> tuple[int, ...]:
    return cron(f"cron({field} 0 * * ? *)").minutes


def hours(field: str) -> tuple[int, ...]:
    return cron(f"cron(0 {field} * * ? *)").hours


def months(field: str) -> tuple[int, ...]:
    return cron(f"cron(0 0 * {field} ? *)").months


def years(field: str) -> tuple[int, ...]:
    return cron(f"cron(0 0 * * ? {field})").years


def by_month(field: str) -> DayRule:
    return cron(f"cron(0 0 {field} * ? *)").day_rule


def by_week(field: str) -> DayRule:
    return cron(f"cron(0 0 ? * {field} *)").day_rule


def rejected(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


# -- the reference's recorded examples ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)",
        "cron(30-30 13-13 ? * 2,4,6 *)",
        "cron(1-31/30 1-1 ? * 1,7 *)",
        "cron(0 18 ? * MON-FRI *)",
        "cron(*/15 * * * ? *)",
        "cron(0-59/10 0-23/2 ? * * *)",
        "cron(0 0 * * ? *)",
        "cron(15 10 ? * 6L 2022-2023)",
    ],
)
def test_cron_accepts_the_expressions_aws_accepted(text: str) -> None:
    cron(text)


@pytest.mark.parametrize(
    "text",
    [
        "cron(0 1 * * * *)",
        "cron(7 20 * * NOT *)",
        "cron(INVALID)",
        "cron(0 dummy ? * MON-FRI *)",
        "cron(71 8 1 * ? *)",
        "cron()",
    ],
)
def test_cron_rejects_the_expressions_aws_rejected(text: str) -> None:
    rejected(text)


def test_recorded_example_0_15_step_1_is_minutes_0_to_15() -> None:
    assert cron("cron(0-15/1 8-8 ? * 2,3,4,5,6,7 *)").minutes == tuple(range(16))


def test_recorded_example_six_l_with_a_year_range() -> None:
    expression = cron("cron(15 10 ? * 6L 2022-2023)")
    assert expression.day_rule == LastOfWeekday(6)
    assert expression.years == (2022, 2023)


# -- field count and separators ------------------------------------------------------------


def test_five_fields_mean_every_year() -> None:
    assert cron("cron(0 0 * * ?)").years == ALL_YEARS


def test_fields_may_be_separated_by_several_spaces() -> None:
    assert cron("cron(0   12  * * ?   2030)").hours == (12,)


@pytest.mark.parametrize(
    "text",
    [
        "cron(0 0 * *)",  # four fields
        "cron(0 0 0 * * ? *)",  # seven fields: no seconds field
        "cron(0\t0 * * ? *)",  # a tab between fields
        "cron(0 0 * * ?\t*)",
        "cron(0,0 0 * * ? *,)",
    ],
)
def test_cron_rejects_other_field_counts_and_separators(text: str) -> None:
    rejected(text)


# -- numbers, ranges, steps and lists -----------------------------------------------------


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("*", tuple(range(60))),
        ("7", (7,)),
        ("07", (7,)),
        ("0007", (7,)),
        ("5-8", (5, 6, 7, 8)),
        ("8-8", (8,)),  # n-n is the single value
        ("1/10", (1, 11, 21, 31, 41, 51)),  # n/s runs to the maximum
        ("*/15", (0, 15, 30, 45)),  # */s starts at the minimum
        ("0-59/10", (0, 10, 20, 30, 40, 50)),
        ("10-30/7", (10, 17, 24)),  # n-m/s stops at m: 31 > 30
        ("58/100", (58,)),  # a step larger than the range
        ("5,1,3,1", (1, 3, 5)),  # lists are sets, sorted
        ("0-5,*/30,59", (0, 1, 2, 3, 4, 5, 30, 59)),
        ("*,5", tuple(range(60))),
    ],
)
def test_minutes_field_values(field: str, values: tuple[int, ...]) -> None:
    assert minutes(field) == values


def test_step_larger_than_the_range_keeps_only_the_ends() -> None:
    # 1-31/30 is 1, then 1 + 30 = 31.
    assert by_month("1-31/30") == MonthDays((1, 31))


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("22-2", (0, 1, 2, 22, 23)),  # wraps past 23
        ("0-23/2", tuple(range(0, 24, 2))),
        ("23-23", (23,)),
        # 20, 23, then 26 - 24 = 2: the step carries on across the wrap.
        ("20-4/3", (2, 20, 23)),
    ],
)
def test_hours_field_values(field: str, values: tuple[int, ...]) -> None:
    assert hours(field) == values


def test_minute_range_wraps_past_59() -> None:
    # 50, 55, then 60 - 60 = 0, 5, 10.
    assert minutes("50-10/5") == (0, 5, 10, 50, 55)


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("*", tuple(range(1, 13))),
        ("JAN", (1,)),
        ("jan", (1,)),
        ("Dec", (12,)),
        ("MAR-MAY", (3, 4, 5)),
        ("3-MAY", (3, 4, 5)),  # names and numbers mix
        ("NOV-FEB", (1, 2, 11, 12)),  # wraps past December
        ("JAN/3", (1, 4, 7, 10)),  # a name in n/s
        ("*/4", (1, 5, 9)),
        ("JAN,jul,12", (1, 7, 12)),
        # 11, then 17 - 12 = 5.
        ("NOV-MAY/6", (5, 11)),
    ],
)
def test_month_field_values(field: str, values: tuple[int, ...]) -> None:
    assert months(field) == values


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("*", ALL_YEARS),
        ("2030", (2030,)),
        ("1970", (1970,)),
        ("2199", (2199,)),
        ("2022-2023", (2022, 2023)),
        ("2030/50", (2030, 2080, 2130, 2180)),
        ("*/100", (1970, 2070, 2170)),
        ("2030,2020", (2020, 2030)),
    ],
)
def test_year_field_values(field: str, values: tuple[int, ...]) -> None:
    assert years(field) == values


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("*", {1, 2, 3, 4, 5, 6, 7}),
        ("1", {1}),
        ("MON-FRI", {2, 3, 4, 5, 6}),
        ("mon-fri", {2, 3, 4, 5, 6}),
        ("2-6", {2, 3, 4, 5, 6}),
        ("FRI-MON", {6, 7, 1, 2}),  # wraps past Saturday
        ("7-1", {7, 1}),
        ("SUN,sat", {1, 7}),
        ("2,4,6", {2, 4, 6}),
        ("MON-3", {2, 3}),
        ("L", {7}),  # a bare L is Saturday, the last day of the week
        ("l", {7}),
    ],
)
def test_day_of_week_values(field: str, values: set[int]) -> None:
    assert by_week(field) == WeekDays(frozenset(values))


def test_star_day_of_month_with_question_day_of_week_is_every_day() -> None:
    assert by_month("*") == MonthDays(tuple(range(1, 32)))


@pytest.mark.parametrize(
    ("field", "rule"),
    [
        ("L", LastDay()),
        ("l", LastDay()),
        ("LW", LastWeekday()),
        ("lw", LastWeekday()),
        ("15W", NearestWeekday(15)),
        ("1W", NearestWeekday(1)),
        ("31W", NearestWeekday(31)),
        ("05w", NearestWeekday(5)),
        ("1,15", MonthDays((1, 15))),
        ("10-12", MonthDays((10, 11, 12))),
        ("*/10", MonthDays((1, 11, 21, 31))),
    ],
)
def test_day_of_month_rules(field: str, rule: DayRule) -> None:
    assert by_month(field) == rule


@pytest.mark.parametrize(
    ("field", "rule"),
    [
        ("6L", LastOfWeekday(6)),
        ("FRIL", LastOfWeekday(6)),
        ("fril", LastOfWeekday(6)),
        ("1L", LastOfWeekday(1)),
        ("7L", LastOfWeekday(7)),
        ("2#1", NthWeekday(2, 1)),
        ("MON#1", NthWeekday(2, 1)),
        ("mon#1", NthWeekday(2, 1)),
        ("7#5", NthWeekday(7, 5)),
        ("1#3", NthWeekday(1, 3)),
        ("02#01", NthWeekday(2, 1)),
    ],
)
def test_day_of_week_rules(field: str, rule: DayRule) -> None:
    assert by_week(field) == rule


@pytest.mark.parametrize(
    "text",
    [
        "cron(0 0 30 2 ? *)",  # February never has a 30th
        "cron(0 0 31 APR,JUN ? *)",
        "cron(0 0 1 1 ? 1970)",  # only years long past
        "cron(0 0 ? 2 2#5 2025)",  # February 2025 has four Mondays
    ],
)
def test_cron_accepts_expressions_that_can_never_fire(text: str) -> None:
    cron(text)


# -- the ? rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "cron(0 1 * * * *)",  # neither field is ?
        "cron(0 1 1 * MON *)",
        "cron(0 1 ? * ? *)",  # both are ?
        "cron(0 1 L * L *)",
    ],
)
def test_exactly_one_day_field_is_a_question_mark(text: str) -> None:
    rejected(text)


@pytest.mark.parametrize(
    "text",
    [
        "cron(? 0 * * ? *)",
        "cron(0 ? * * ? *)",
        "cron(0 0 * ? ? *)",
        "cron(0 0 * * ? ?)",
        "cron(0 0 ?,1 * ? *)",
        "cron(0 0 ? * ?,1 *)",
    ],
)
def test_question_mark_only_fills_a_whole_day_field(text: str) -> None:
    rejected(text)


# -- rejected tokens -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    ["60", "-1", "*/0", "*/", "/5", "5/", "1-", "-5", "1-2-3", "*-5", "5-*", "1,,2", "1,", ",1",
     "L", "W", "#", "JAN", "MON", "1.5", "+1", "5/0", "5/-1", "0x1", "*/*", "**"],
)  # fmt: skip
def test_minutes_field_rejects(field: str) -> None:
    rejected(f"cron({field} 0 * * ? *)")


@pytest.mark.parametrize("field", ["24", "25-2", "0-24", "L", "MON", "JAN"])
def test_hours_field_rejects(field: str) -> None:
    rejected(f"cron(0 {field} * * ? *)")


@pytest.mark.parametrize(
    "field",
    [
        "0",
        "32",
        "20-10",  # day-of-month ranges do not wrap
        "L,15",  # L, LW and nW are whole-field only
        "15,L",
        "LW,1",
        "15W,20",
        "1-15W",
        "0W",
        "32W",
        "W",
        "WL",
        "L-2",  # no offset from the last day
        "15L",  # nL belongs to day-of-week
        "2#1",  # # belongs to day-of-week
        "JAN",
        "MON",
        "1W/2",
    ],
)
def test_day_of_month_field_rejects(field: str) -> None:
    rejected(f"cron(0 0 {field} * ? *)")


@pytest.mark.parametrize(
    "field",
    ["0", "13", "JANUARY", "JA", "MON", "DEC-13", "L", "1W", "2#1"],
)
def test_month_field_rejects(field: str) -> None:
    rejected(f"cron(0 0 * {field} ? *)")


@pytest.mark.parametrize(
    "field",
    [
        "0",  # Sunday is 1, not 0
        "8",
        "*/2",  # no / at all in day-of-week
        "1/2",
        "1-7/2",
        "MON/2",
        "MONDAY",
        "JAN",
        "2#1,3#1",  # only one # expression
        "2#1,3",
        "6L,2",
        "L,1",
        "2#0",
        "2#6",
        "0#1",
        "8#1",
        "#1",
        "2#",
        "8L",
        "0L",
        "LL",
        "LW",
        "15W",
        "2-6L",
        "NOT",
    ],
)
def test_day_of_week_field_rejects(field: str) -> None:
    rejected(f"cron(0 0 ? * {field} *)")


@pytest.mark.parametrize(
    "field",
    ["1969", "2200", "2025-2024", "2199-1970", "0", "30", "L", "MON", "*/0"],
)
def test_year_field_rejects(field: str) -> None:
    rejected(f"cron(0 0 * * ? {field})")
