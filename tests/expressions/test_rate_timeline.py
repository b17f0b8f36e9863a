"""§4.7 rate(): anchor, closed-form occurrences, window, and indifference to zones."""

from __future__ import annotations

from datetime import timedelta, timezone

from pytest_schedemu.expressions import timeline

from .oracle import at

UTC = timezone.utc


def test_rate_without_start_date_is_anchored_at_creation_floored_to_the_second() -> None:
    created = at(2026, 3, 1, 10, 0, 30) + timedelta(milliseconds=700)
    line = timeline("rate(5 minutes)", created_at=created)
    assert list(line.between(at(2026, 3, 1), at(2026, 3, 1, 10, 11))) == [
        at(2026, 3, 1, 10, 0, 30),
        at(2026, 3, 1, 10, 5, 30),
        at(2026, 3, 1, 10, 10, 30),
    ]


def test_rate_first_occurrence_is_the_anchor_itself() -> None:
    created = at(2026, 3, 1, 10)
    line = timeline("rate(1 hour)", created_at=created)
    assert line.next_after(created - timedelta(seconds=1)) == created


def test_rate_with_start_date_is_anchored_at_the_start_date() -> None:
    line = timeline("rate(1 hour)", start_date=at(2026, 3, 5, 12, 15), created_at=at(2026, 3, 1))
    assert line.next_after(at(2026, 1, 1)) == at(2026, 3, 5, 12, 15)
    assert line.next_after(at(2026, 3, 5, 12, 15)) == at(2026, 3, 5, 13, 15)


def test_rate_with_a_fractional_start_date_keeps_the_floored_grid_inside_the_window() -> None:
    # The anchor is 12:00:00, but the window starts at 12:00:00.250, so the anchor itself
    # is outside it and the first occurrence is one period later.
    start = at(2026, 3, 5, 12) + timedelta(milliseconds=250)
    line = timeline("rate(10 minutes)", start_date=start, created_at=at(2026, 3, 1))
    assert line.next_after(at(2026, 1, 1)) == at(2026, 3, 5, 12, 10)


def test_rate_next_after_is_closed_form_far_from_the_anchor() -> None:
    created = at(2026, 3, 1)
    line = timeline("rate(7 minutes)", created_at=created)
    anchor = int(created.timestamp())
    x = anchor + 10**12 * 420 + 5
    assert line.next_after_epoch(x) == anchor + (10**12 + 1) * 420


def test_rate_next_after_an_occurrence_is_the_following_one() -> None:
    line = timeline("rate(2 hours)", created_at=at(2026, 3, 1))
    assert line.next_after(at(2026, 3, 1, 2)) == at(2026, 3, 1, 4)


def test_rate_before_the_anchor_starts_at_the_anchor() -> None:
    line = timeline("rate(1 day)", created_at=at(2026, 3, 1))
    assert line.next_after_epoch(-(1 << 62)) == int(at(2026, 3, 1).timestamp())


def test_rate_end_date_is_inclusive() -> None:
    line = timeline("rate(1 hour)", end_date=at(2026, 3, 1, 2), created_at=at(2026, 3, 1))
    assert list(line.between(at(2026, 1, 1), at(2027, 1, 1))) == [
        at(2026, 3, 1, 0),
        at(2026, 3, 1, 1),
        at(2026, 3, 1, 2),
    ]
    assert line.next_after(at(2026, 3, 1, 2)) is None


def test_rate_has_no_last_year() -> None:
    line = timeline("rate(1 day)", created_at=at(2026, 3, 1))
    assert line.next_after(at(2500, 1, 1)) == at(2500, 1, 2)


def test_rate_day_is_24_hours_across_dst_whatever_the_zone() -> None:
    # The reference's row: StartDate 2026-03-07T12:00Z gives 12:00Z on the 7th, 8th and
    # 9th, although New York moves its clocks on the 8th.
    for zone in ("UTC", "America/New_York"):
        line = timeline(
            "rate(1 day)", timezone=zone, start_date=at(2026, 3, 7, 12), created_at=at(2026, 3, 1)
        )
        assert list(line.between(at(2026, 3, 1), at(2026, 3, 10))) == [
            at(2026, 3, 7, 12),
            at(2026, 3, 8, 12),
            at(2026, 3, 9, 12),
        ]


def test_rate_between_returns_only_the_grid_points_inside() -> None:
    line = timeline("rate(15 minutes)", created_at=at(2026, 3, 1, 0, 5))
    epochs = list(
        line.between_epochs(int(at(2026, 3, 1, 1).timestamp()), int(at(2026, 3, 1, 2).timestamp()))
    )
    assert [e % 3600 for e in epochs] == [5 * 60, 20 * 60, 35 * 60, 50 * 60]
