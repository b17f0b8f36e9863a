"""``occurrences`` and ``validate_expression``: the engine as a tool, without an emulator.

2026 clock changes in America/New_York: Mar 8 02:00 EST -> 03:00 EDT (07:00Z), Nov 1
02:00 EDT -> 01:00 EST (06:00Z).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from pytest_schedemu import (
    InvalidScheduleExpression,
    InvalidTimezone,
    SchedemuError,
    occurrences,
    validate_expression,
)
from pytest_schedemu.expressions.tool import MAX_OCCURRENCES
from tests.helpers import schedule_args

UTC = timezone.utc
NEW_YEAR = datetime(2026, 1, 1, tzinfo=UTC)


def at_utc(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=UTC)


def test_a_local_time_the_clock_springs_over_does_not_fire() -> None:
    found = occurrences("cron(30 2 * * ? *)", "America/New_York", start="2026-03-07T00:00Z", n=3)
    # 02:30 on Mar 8 never shows on New York's clocks.
    assert found == [
        at_utc(2026, 3, 7, 7, 30),
        at_utc(2026, 3, 9, 6, 30),
        at_utc(2026, 3, 10, 6, 30),
    ]


def test_a_local_time_the_clock_shows_twice_fires_once_at_its_first_instant() -> None:
    found = occurrences("cron(30 1 * * ? *)", "America/New_York", start="2026-10-31T00:00Z", n=3)
    # Nov 1 01:30 is 05:30Z (EDT) and again 06:30Z (EST); only the first fires.
    assert found == [
        at_utc(2026, 10, 31, 5, 30),
        at_utc(2026, 11, 1, 5, 30),
        at_utc(2026, 11, 2, 6, 30),
    ]


@pytest.mark.parametrize(
    ("expression", "expected_days"),
    [
        ("cron(0 12 L * ? *)", [(1, 31), (2, 28), (3, 31)]),  # the last day of the month
        ("cron(0 12 15W * ? *)", [(1, 15), (2, 16), (3, 16)]),  # Feb 15, Mar 15: Sundays
        ("cron(0 12 LW * ? *)", [(1, 30), (2, 27), (3, 31)]),  # Jan 31: a Saturday
        ("cron(0 12 ? * 6#3 *)", [(1, 16), (2, 20), (3, 20)]),  # the third Friday
        ("cron(0 12 ? * 6L *)", [(1, 30), (2, 27), (3, 27)]),  # the last Friday
    ],
)
def test_aws_day_rules_choose_the_days(
    expression: str, expected_days: list[tuple[int, int]]
) -> None:
    found = occurrences(expression, start=NEW_YEAR, n=3)
    assert found == [at_utc(2026, month, day, 12) for month, day in expected_days]


def test_a_zoned_cron_follows_the_zone_across_its_clock_change() -> None:
    found = occurrences("cron(0 9 ? * 6#3 *)", "Europe/London", start="2026-03-01T00:00Z", n=2)
    assert found == [at_utc(2026, 3, 20, 9), at_utc(2026, 4, 17, 8)]


def test_a_rate_counts_from_start_taken_to_the_whole_second() -> None:
    found = occurrences("rate(5 minutes)", start="2026-03-07T10:00:10.7+01:00", n=3)
    first = at_utc(2026, 3, 7, 9, 0, 10)
    assert found == [first, first + timedelta(minutes=5), first + timedelta(minutes=10)]


def test_a_rate_ignores_the_zone_s_clock_change() -> None:
    found = occurrences("rate(1 day)", "America/New_York", start="2026-03-07T12:00Z", n=3)
    assert found == [at_utc(2026, 3, 7, 12), at_utc(2026, 3, 8, 12), at_utc(2026, 3, 9, 12)]


def test_a_cron_instant_in_the_second_of_start_is_included() -> None:
    found = occurrences("cron(0 * * * ? *)", start="2026-03-07T10:00:00.5Z", n=1)
    assert found == [at_utc(2026, 3, 7, 10)]


def test_an_at_in_the_future_gives_its_one_instant_read_in_the_zone() -> None:
    found = occurrences("at(2026-03-07T10:00:00)", "Europe/Paris", start=NEW_YEAR)
    assert found == [at_utc(2026, 3, 7, 9)]


def test_an_at_at_start_is_included_and_one_before_start_gives_nothing() -> None:
    assert occurrences("at(2026-03-07T10:00:00)", start="2026-03-07T10:00:00Z") == [
        at_utc(2026, 3, 7, 10)
    ]
    assert occurrences("at(2026-03-07T10:00:00)", start="2026-03-07T10:00:01Z") == []


def test_a_cron_whose_years_end_gives_fewer_than_asked() -> None:
    assert occurrences("cron(0 0 1 1 ? 2026-2027)", start=NEW_YEAR, n=10) == [
        at_utc(2026, 1, 1),
        at_utc(2027, 1, 1),
    ]


def test_start_as_text_and_as_a_datetime_in_another_zone_give_the_same_instants() -> None:
    eastern = timezone(timedelta(hours=-5))
    as_text = occurrences("cron(15 * * * ? *)", start="2026-03-06T19:00:00-05:00", n=3)
    as_datetime = occurrences(
        "cron(15 * * * ? *)", start=datetime(2026, 3, 6, 19, tzinfo=eastern), n=3
    )
    assert as_text == as_datetime == [at_utc(2026, 3, 7, hour, 15) for hour in (0, 1, 2)]
    assert all(instant.tzinfo is UTC for instant in as_text)


def test_without_start_the_instants_count_from_the_wall_clock() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    (first,) = occurrences("rate(1 minute)", n=1)
    assert before <= first <= datetime.now(UTC)


@pytest.mark.parametrize("start", ["2026-03-07T10:00:00", datetime(2026, 3, 7, 10)])
def test_a_start_without_an_offset_is_refused(start: Any) -> None:
    with pytest.raises(ValueError, match="has no time zone"):
        occurrences("rate(1 hour)", start=start)


def test_an_unreadable_start_is_refused_with_an_example() -> None:
    with pytest.raises(ValueError, match="expected ISO 8601 such as '2026-03-01T08:00:00Z'"):
        occurrences("rate(1 hour)", start="next tuesday")


@pytest.mark.parametrize("n", [0, -1, MAX_OCCURRENCES + 1])
def test_n_outside_its_bounds_is_refused(n: int) -> None:
    with pytest.raises(ValueError, match=f"n must be between 1 and 10000, got {n}"):
        occurrences("rate(1 minute)", start=NEW_YEAR, n=n)


@pytest.mark.parametrize("n", [2.0, True, "3"])
def test_n_that_is_not_an_int_is_refused(n: Any) -> None:
    with pytest.raises(TypeError, match="n must be an int"):
        occurrences("rate(1 minute)", start=NEW_YEAR, n=n)


def test_the_largest_n_is_served() -> None:
    found = occurrences("rate(1 minute)", start=NEW_YEAR, n=MAX_OCCURRENCES)
    assert len(found) == MAX_OCCURRENCES
    assert found[-1] == NEW_YEAR + timedelta(minutes=MAX_OCCURRENCES - 1)


def test_an_instant_after_the_year_9999_is_refused_rather_than_dropped() -> None:
    with pytest.raises(ValueError, match="the instant after the first 1 falls after the year 9999"):
        occurrences("rate(3000000 days)", start=NEW_YEAR, n=2)


INVALID_EXPRESSIONS = [
    "rate(0 minutes)",
    "rate(10 seconds)",
    "cron(0 1 * * * *)",
    "cron(0 9 * * MON *)",
    "at(2021-12-31T23:59:59Z)",
    " rate(10 minutes)",
]


@pytest.mark.parametrize("expression", INVALID_EXPRESSIONS)
def test_an_invalid_expression_is_refused_with_aws_s_message(expression: str) -> None:
    message = f"Invalid Schedule Expression {expression}."
    with pytest.raises(InvalidScheduleExpression) as from_occurrences:
        occurrences(expression, start=NEW_YEAR)
    with pytest.raises(InvalidScheduleExpression) as from_validation:
        validate_expression(expression)
    assert str(from_occurrences.value) == str(from_validation.value) == message


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "+02:00", "america/new_york"])
def test_an_invalid_zone_is_refused_with_aws_s_message(zone: str) -> None:
    message = f"Invalid Schedule Expression Timezone {zone}."
    with pytest.raises(InvalidTimezone) as from_occurrences:
        occurrences("rate(1 hour)", zone, start=NEW_YEAR)
    with pytest.raises(InvalidTimezone) as from_validation:
        validate_expression("rate(1 hour)", zone)
    assert str(from_occurrences.value) == str(from_validation.value) == message


def test_the_messages_are_those_create_schedule_answers(client: Any) -> None:
    for expression, zone in [("cron(0 9 * * MON *)", "UTC"), ("rate(1 hour)", "Mars/Base")]:
        with pytest.raises(ValueError) as refused:
            validate_expression(expression, zone)
        with pytest.raises(client.exceptions.ValidationException) as answered:
            client.create_schedule(
                **schedule_args(ScheduleExpression=expression, ScheduleExpressionTimezone=zone)
            )
        assert answered.value.response["Error"]["Message"] == str(refused.value)


def test_an_expression_is_checked_before_its_zone_as_create_schedule_does() -> None:
    with pytest.raises(InvalidScheduleExpression):
        validate_expression("rate(1 fortnight)", "Mars/Base")


def test_the_refusals_are_value_errors_of_the_emulator() -> None:
    for error in (InvalidScheduleExpression, InvalidTimezone):
        assert issubclass(error, ValueError)
        assert issubclass(error, SchedemuError)


def test_validation_accepts_an_at_in_the_past() -> None:
    assert validate_expression("at(2001-01-01T00:00:00)", "Asia/Tokyo") is None
