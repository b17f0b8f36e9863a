"""Cron timelines in UTC: next_after / between semantics, windows, limits and inputs."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from pytest_schedemu.expressions import (
    InvalidScheduleExpression,
    InvalidTimezone,
    parse_expression,
    timeline,
)
from pytest_schedemu.expressions.schedule import CronSchedule

from .oracle import at

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def epoch(instant: datetime) -> int:
    return int(instant.timestamp())


def test_next_after_is_strictly_after_the_instant() -> None:
    line = timeline("cron(0 9 * * ? *)", created_at=CREATED)
    assert line.next_after(at(2026, 3, 2, 9, 0)) == at(2026, 3, 3, 9, 0)
    assert line.next_after(at(2026, 3, 2, 8, 59, 59)) == at(2026, 3, 2, 9, 0)


def test_next_after_a_fractional_instant_rounds_to_whole_seconds() -> None:
    line = timeline("cron(* * * * ? *)", created_at=CREATED)
    assert line.next_after(at(2026, 3, 2, 9, 0) + timedelta(microseconds=1)) == at(2026, 3, 2, 9, 1)
    assert line.next_after(at(2026, 3, 2, 8, 59, 59, 999999)) == at(2026, 3, 2, 9, 0)


def test_next_after_returns_aware_utc_datetimes() -> None:
    found = timeline("cron(0 9 * * ? *)", created_at=CREATED).next_after(at(2026, 3, 2))
    assert found is not None
    assert found.tzinfo is UTC


def test_next_after_accepts_any_aware_instant() -> None:
    # 10:00 at UTC+05:00 is 05:00Z, so the next 09:00Z is the same day.
    plus_five = datetime(2026, 3, 2, 10, 0, tzinfo=timezone(timedelta(hours=5)))
    line = timeline("cron(0 9 * * ? *)", created_at=CREATED)
    assert line.next_after(plus_five) == at(2026, 3, 2, 9, 0)


def test_epoch_and_datetime_methods_agree() -> None:
    line = timeline("cron(15 10 ? * 6L 2022-2030)", created_at=CREATED)
    instant = at(2026, 3, 1)
    found = line.next_after(instant)
    assert found is not None
    assert line.next_after_epoch(epoch(instant)) == epoch(found)
    window = (at(2026, 1, 1), at(2027, 1, 1))
    assert [epoch(t) for t in line.between(*window)] == list(
        line.between_epochs(*(epoch(t) for t in window))
    )


def test_between_is_start_inclusive_end_exclusive() -> None:
    line = timeline("cron(0 * * * ? *)", created_at=CREATED)
    assert list(line.between(at(2026, 3, 2, 10), at(2026, 3, 2, 13))) == [
        at(2026, 3, 2, 10),
        at(2026, 3, 2, 11),
        at(2026, 3, 2, 12),
    ]


def test_between_with_fractional_bounds_rounds_both_up() -> None:
    line = timeline("cron(0 * * * ? *)", created_at=CREATED)
    half = timedelta(microseconds=500000)
    # 10:00:00.5 excludes 10:00, and 13:00:00.5 includes 13:00.
    assert list(line.between(at(2026, 3, 2, 10) + half, at(2026, 3, 2, 13) + half)) == [
        at(2026, 3, 2, 11),
        at(2026, 3, 2, 12),
        at(2026, 3, 2, 13),
    ]


def test_between_an_empty_or_reversed_interval_is_empty() -> None:
    line = timeline("cron(* * * * ? *)", created_at=CREATED)
    assert list(line.between(at(2026, 3, 2), at(2026, 3, 2))) == []
    assert list(line.between(at(2026, 3, 3), at(2026, 3, 2))) == []


def test_between_crosses_month_and_year_boundaries() -> None:
    line = timeline("cron(0 0 L * ? *)", created_at=CREATED)
    assert list(line.between(at(2026, 11, 15), at(2027, 3, 1))) == [
        at(2026, 11, 30),
        at(2026, 12, 31),
        at(2027, 1, 31),
        at(2027, 2, 28),
    ]


def test_cron_is_not_anchored_at_creation() -> None:
    # The dispatcher applies its own lower bound; the timeline starts at -infinity.
    line = timeline("cron(0 0 1 1 ? 1970)", created_at=CREATED)
    assert line.next_after_epoch(-(1 << 62)) == 0


def test_years_run_out_after_the_last_listed_year() -> None:
    line = timeline("cron(0 0 1 1 ? 2030)", created_at=CREATED)
    assert line.next_after(at(2026, 6, 1)) == at(2030, 1, 1)
    assert line.next_after(at(2030, 1, 1)) is None


def test_years_run_out_at_the_end_of_2199() -> None:
    line = timeline("cron(* * * * ? *)", created_at=CREATED)
    assert line.next_after(at(2199, 12, 31, 23, 58)) == at(2199, 12, 31, 23, 59)
    assert line.next_after(at(2199, 12, 31, 23, 59)) is None
    assert line.next_after_epoch(1 << 62) is None


def test_expression_that_can_never_match_has_no_occurrences() -> None:
    line = timeline("cron(0 0 30 2 ? *)", created_at=CREATED)
    assert line.next_after_epoch(-(1 << 62)) is None
    assert list(line.between(at(2020, 1, 1), at(2030, 1, 1))) == []


def test_fifth_monday_of_february_skips_decades() -> None:
    # Leap years whose February starts on a Monday: 2016, 2044, 2072, then 2112 (2100 is
    # not a leap year, which breaks the 28-year cycle).
    line = timeline("cron(0 0 ? FEB MON#5 *)", created_at=CREATED)
    assert line.next_after(at(2016, 3, 1)) == at(2044, 2, 29)
    assert line.next_after(at(2044, 2, 29)) == at(2072, 2, 29)
    assert line.next_after(at(2072, 2, 29)) == at(2112, 2, 29)


def test_far_away_matches_are_found_without_walking_the_calendar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Walking month by month from 2045 would look at over a thousand months; only the
    # months the expression names are looked at (the Februaries, for MON#5).
    looked_at: list[int] = []
    original = CronSchedule._month

    def counting(self: CronSchedule, index: int) -> object:
        looked_at.append(index)
        return original(self, index)

    monkeypatch.setattr(CronSchedule, "_month", counting)
    x = epoch(at(2045, 1, 1))
    year_2150 = timeline("cron(0 12 1 1 ? 2150)", created_at=CREATED)
    assert year_2150.next_after_epoch(x) == epoch(at(2150, 1, 1, 12))
    assert len(looked_at) <= 4
    fifth_monday = timeline("cron(0 0 ? FEB MON#5 *)", created_at=CREATED)
    looked_at.clear()
    assert fifth_monday.next_after_epoch(x) == epoch(at(2072, 2, 29))
    assert len(looked_at) <= (2072 - 2045 + 1) + 2  # the Februaries, the month of x, the answer
    looked_at.clear()
    for _ in range(100):
        assert fifth_monday.next_after_epoch(x) == epoch(at(2072, 2, 29))
    assert len(looked_at) <= 100  # answered from the memo, not searched again


def test_start_date_is_inclusive() -> None:
    line = timeline("cron(0 * * * ? *)", start_date=at(2026, 3, 2, 10), created_at=CREATED)
    assert line.next_after(at(2026, 1, 1)) == at(2026, 3, 2, 10)


def test_fractional_start_date_excludes_the_whole_second_before_it() -> None:
    start = at(2026, 3, 2, 10) + timedelta(milliseconds=1)
    line = timeline("cron(0 * * * ? *)", start_date=start, created_at=CREATED)
    assert line.next_after(at(2026, 1, 1)) == at(2026, 3, 2, 11)


def test_end_date_is_inclusive() -> None:
    line = timeline("cron(0 * * * ? *)", end_date=at(2026, 3, 2, 10), created_at=CREATED)
    assert line.next_after(at(2026, 3, 2, 9, 30)) == at(2026, 3, 2, 10)
    assert line.next_after(at(2026, 3, 2, 10)) is None


def test_window_bounds_between() -> None:
    line = timeline(
        "cron(0 * * * ? *)",
        start_date=at(2026, 3, 2, 10),
        end_date=at(2026, 3, 2, 12),
        created_at=CREATED,
    )
    assert list(line.between(at(2026, 1, 1), at(2027, 1, 1))) == [
        at(2026, 3, 2, 10),
        at(2026, 3, 2, 11),
        at(2026, 3, 2, 12),
    ]


def test_end_before_start_leaves_nothing() -> None:
    line = timeline(
        "cron(* * * * ? *)", start_date=at(2026, 3, 3), end_date=at(2026, 3, 2), created_at=CREATED
    )
    assert line.next_after(at(2026, 1, 1)) is None
    assert list(line.between(at(2026, 1, 1), at(2027, 1, 1))) == []


def test_timeline_accepts_text_or_a_parsed_expression() -> None:
    parsed = parse_expression("cron(0 9 * * ? *)")
    from_text = timeline("cron(0 9 * * ? *)", created_at=CREATED)
    from_parsed = timeline(parsed, created_at=CREATED)
    assert from_text.expression is from_parsed.expression is parsed
    assert from_text.recurring and from_parsed.recurring


def test_timeline_rejects_an_invalid_expression() -> None:
    with pytest.raises(InvalidScheduleExpression):
        timeline("cron(0 0 * * * *)", created_at=CREATED)


def test_timeline_rejects_an_invalid_timezone() -> None:
    with pytest.raises(InvalidTimezone):
        timeline("cron(0 0 * * ? *)", timezone="Europe/Londres", created_at=CREATED)


@pytest.mark.parametrize(
    "expression", ["cron(0 0 * * ? *)", "rate(1 hour)", "at(2030-01-01T00:00)"]
)
def test_naive_datetimes_are_a_type_error(expression: str) -> None:
    naive = datetime(2026, 3, 1)
    with pytest.raises(TypeError, match="timezone-aware"):
        timeline(expression, created_at=naive)
    with pytest.raises(TypeError, match="start_date"):
        timeline(expression, start_date=naive, created_at=CREATED)
    with pytest.raises(TypeError, match="end_date"):
        timeline(expression, end_date=naive, created_at=CREATED)
    line = timeline(expression, created_at=CREATED)
    with pytest.raises(TypeError, match="instant"):
        line.next_after(naive)
    with pytest.raises(TypeError, match="start"):
        line.between(naive, CREATED)
    with pytest.raises(TypeError, match="end"):
        line.between(CREATED, naive)
