"""Next occurrences: dashed ticks after now where the axis reaches them, never stretching
it, titled in UTC and the lane's zone, and a plain comb when there are many."""

from __future__ import annotations

from datetime import timedelta

from pytest_schedemu.timeline import render_timeline_svg

from .records import NOON, Schedule, arn, data, find, lane, occurrence, parse, text, title

HOURLY = arn("hourly")


def hourly_data(**overrides: object) -> object:
    return data(
        schedules=[Schedule("hourly", timezone="America/New_York")],
        executions=[occurrence(HOURLY, NOON - timedelta(hours=1))],
        **overrides,
    )


def test_next_occurrences_within_the_axis_are_dashed_ticks_with_titles() -> None:
    upcoming = {HOURLY: [NOON + timedelta(hours=h) for h in (1, 2, 3, 30)]}
    root = parse(
        render_timeline_svg(
            hourly_data(
                upcoming=upcoming, since=NOON - timedelta(hours=2), until=NOON + timedelta(hours=4)
            )
        )
    )
    ticks = find(lane(root, HOURLY), "next-occurrence")
    assert [title(t) for t in ticks] == [
        "Next occurrence\n2026-03-01 13:00:00Z · 08:00:00 EST America/New_York",
        "Next occurrence\n2026-03-01 14:00:00Z · 09:00:00 EST America/New_York",
        "Next occurrence\n2026-03-01 15:00:00Z · 10:00:00 EST America/New_York",
    ]
    assert "next occurrence" in text(find(root, "legend")[0])


def test_next_occurrences_never_stretch_the_axis() -> None:
    upcoming = {HOURLY: [NOON + timedelta(days=30)]}
    with_them = render_timeline_svg(hourly_data(upcoming=upcoming))
    assert with_them == render_timeline_svg(hourly_data())
    assert "next occurrence" not in with_them


def test_many_next_occurrences_become_one_comb() -> None:
    upcoming = {HOURLY: [NOON + timedelta(minutes=m) for m in range(1, 600)]}
    root = parse(
        render_timeline_svg(hourly_data(upcoming=upcoming, until=NOON + timedelta(hours=10)))
    )
    drawn = lane(root, HOURLY)
    assert len(find(drawn, "next-occurrence")) == 24
    [comb] = find(drawn, "upcoming-comb")
    assert 0 < comb.get("d", "").count("M") <= 599 - 24
