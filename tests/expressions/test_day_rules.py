"""§4.4 day rules, on real months. Every expected date was worked out by hand from a
printed calendar; the comment beside it gives the reasoning."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from pytest_schedemu.expressions import timeline

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def fire_days(expression: str, year: int, month: int) -> list[int]:
    """The days of one month on which ``expression`` fires, in UTC."""
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    line = timeline(expression, created_at=CREATED)
    return [instant.day for instant in line.between(start, end)]


# -- day-of-month L, nW, LW -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("year", "month", "day"),
    [
        (2026, 2, 28),  # 2026 is not a leap year
        (2028, 2, 29),  # 2028 is
        (2100, 2, 28),  # 2100 is divisible by 100, not by 400
        (2000, 2, 29),  # 2000 is divisible by 400
        (2026, 4, 30),
        (2026, 12, 31),
    ],
)
def test_day_of_month_l_is_the_last_day(year: int, month: int, day: int) -> None:
    assert fire_days("cron(0 0 L * ? *)", year, month) == [day]


def test_nw_on_a_weekday_is_that_day() -> None:
    # 2026-04-15 is a Wednesday.
    assert fire_days("cron(0 0 15W * ? *)", 2026, 4) == [15]


def test_nw_on_a_saturday_moves_back_to_friday() -> None:
    # 2026-03-14 is a Saturday, so 14W is Friday the 13th.
    assert fire_days("cron(0 0 14W * ? *)", 2026, 3) == [13]


def test_nw_on_a_sunday_moves_on_to_monday() -> None:
    # 2026-03-15 is a Sunday, so 15W is Monday the 16th.
    assert fire_days("cron(0 0 15W * ? *)", 2026, 3) == [16]


def test_1w_on_a_saturday_moves_forward_to_monday_the_3rd() -> None:
    # 2026-08-01 is a Saturday; Friday would be July 31st, outside the month.
    assert fire_days("cron(0 0 1W * ? *)", 2026, 8) == [3]


def test_1w_on_a_sunday_moves_to_monday_the_2nd() -> None:
    # 2026-02-01 is a Sunday.
    assert fire_days("cron(0 0 1W * ? *)", 2026, 2) == [2]


def test_nw_on_a_sunday_that_ends_the_month_moves_back_to_friday() -> None:
    # 2026-05-31 is a Sunday and the last day of May; Monday would be June 1st.
    assert fire_days("cron(0 0 31W * ? *)", 2026, 5) == [29]


def test_nw_on_a_saturday_that_ends_the_month_moves_back_to_friday() -> None:
    # 2026-10-31 is a Saturday.
    assert fire_days("cron(0 0 31W * ? *)", 2026, 10) == [30]


def test_nw_on_a_sunday_before_the_last_day_moves_to_monday() -> None:
    # 2026-08-30 is a Sunday and August has 31 days, so Monday the 31st.
    assert fire_days("cron(0 0 30W * ? *)", 2026, 8) == [31]


def test_nw_on_the_last_day_of_february_that_is_a_saturday() -> None:
    # 2026-02-28 is a Saturday and the last day: Friday the 27th.
    assert fire_days("cron(0 0 28W * ? *)", 2026, 2) == [27]


@pytest.mark.parametrize(
    ("expression", "year", "month"),
    [
        ("cron(0 0 31W * ? *)", 2026, 4),  # April has 30 days
        ("cron(0 0 30W * ? *)", 2026, 2),  # February 2026 has 28
        ("cron(0 0 29W * ? *)", 2026, 2),
    ],
)
def test_nw_past_the_end_of_the_month_matches_nothing_that_month(
    expression: str, year: int, month: int
) -> None:
    assert fire_days(expression, year, month) == []


def test_29w_in_a_leap_february() -> None:
    # 2028-02-29 is a Tuesday.
    assert fire_days("cron(0 0 29W * ? *)", 2028, 2) == [29]


@pytest.mark.parametrize(
    ("year", "month", "day"),
    [
        (2026, 3, 31),  # 2026-03-31 is a Tuesday
        (2026, 5, 29),  # 2026-05-31 is a Sunday: back two days to Friday the 29th
        (2026, 10, 30),  # 2026-10-31 is a Saturday: back one day to Friday the 30th
        (2026, 2, 27),  # 2026-02-28 is a Saturday
        (2026, 1, 30),  # 2026-01-31 is a Saturday
    ],
)
def test_lw_is_the_last_weekday_of_the_month(year: int, month: int, day: int) -> None:
    assert fire_days("cron(0 0 LW * ? *)", year, month) == [day]


def test_day_of_month_list_skips_days_the_month_lacks() -> None:
    # April has no 31st.
    assert fire_days("cron(0 0 1,30,31 * ? *)", 2026, 4) == [1, 30]


# -- day-of-week values, L, nL, n#k ----------------------------------------------------------


def test_day_of_week_numbers_start_with_sunday_as_1() -> None:
    # March 2026 starts on a Sunday: Sundays are 1, 8, 15, 22, 29.
    assert fire_days("cron(0 0 ? * 1 *)", 2026, 3) == [1, 8, 15, 22, 29]


def test_day_of_week_7_is_saturday() -> None:
    # 2026-03-07 is the first Saturday of March.
    assert fire_days("cron(0 0 ? * 7 *)", 2026, 3) == [7, 14, 21, 28]


def test_day_of_week_bare_l_is_saturday() -> None:
    assert fire_days("cron(0 0 ? * L *)", 2026, 3) == [7, 14, 21, 28]


def test_mon_fri_is_the_working_week() -> None:
    # 2026-02-01 is a Sunday, so the first week's weekdays are the 2nd to the 6th.
    assert fire_days("cron(0 0 ? * MON-FRI *)", 2026, 2)[:5] == [2, 3, 4, 5, 6]
    assert len(fire_days("cron(0 0 ? * MON-FRI *)", 2026, 2)) == 20


def test_wrapping_day_of_week_range_fri_mon() -> None:
    # March 2026: Fridays 6, 13, 20, 27; Saturdays 7, 14, 21, 28; Sundays 1, 8, 15, 22, 29;
    # Mondays 2, 9, 16, 23, 30.
    assert fire_days("cron(0 0 ? * FRI-MON *)", 2026, 3) == [
        1, 2, 6, 7, 8, 9, 13, 14, 15, 16, 20, 21, 22, 23, 27, 28, 29, 30,
    ]  # fmt: skip


def test_star_day_of_week_with_question_day_of_month_is_every_day() -> None:
    assert fire_days("cron(0 0 ? * * *)", 2026, 4) == list(range(1, 31))


@pytest.mark.parametrize(
    ("field", "day"),
    [
        ("6L", 27),  # Fridays of March 2026: 6, 13, 20, 27
        ("FRIL", 27),
        ("1L", 29),  # Sundays: 1, 8, 15, 22, 29
        ("3L", 31),  # 2026-03-31 is a Tuesday, the last day itself
        ("7L", 28),  # Saturdays: 7, 14, 21, 28
    ],
)
def test_nl_is_the_last_such_weekday_of_the_month(field: str, day: int) -> None:
    assert fire_days(f"cron(0 0 ? * {field} *)", 2026, 3) == [day]


@pytest.mark.parametrize(
    ("field", "day"),
    [
        ("2#1", 2),  # March 2026 starts on a Sunday, so the first Monday is the 2nd
        ("MON#1", 2),
        ("1#1", 1),  # and the first Sunday is the 1st
        ("7#1", 7),
        ("2#3", 16),  # Mondays 2, 9, 16
        ("2#5", 30),  # Mondays 2, 9, 16, 23, 30
        ("3#5", 31),  # Tuesdays 3, 10, 17, 24, 31
    ],
)
def test_n_hash_k_is_the_kth_such_weekday(field: str, day: int) -> None:
    assert fire_days(f"cron(0 0 ? * {field} *)", 2026, 3) == [day]


def test_n_hash_5_matches_nothing_in_a_month_without_a_fifth() -> None:
    # Wednesdays of March 2026: 4, 11, 18, 25.
    assert fire_days("cron(0 0 ? * 4#5 *)", 2026, 3) == []


def test_fifth_monday_of_february_is_a_leap_day_that_is_a_monday() -> None:
    # 2044-02-01 is a Monday and 2044 is a leap year, so Monday the 29th is the fifth.
    assert fire_days("cron(0 0 ? FEB 2#5 *)", 2044, 2) == [29]


def test_day_of_month_rule_applies_only_in_the_months_and_years_given() -> None:
    # 6L in 2022-2023 only: the last Friday of March 2023 is the 31st; none in 2024.
    assert fire_days("cron(15 10 ? * 6L 2022-2023)", 2023, 3) == [31]
    assert fire_days("cron(15 10 ? * 6L 2022-2023)", 2024, 3) == []
