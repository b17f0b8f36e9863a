"""The time axis: fitting, bounds, tick steps, the now line, and each lane's own clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from pytest_schedemu.timeline import render_timeline_svg

from .records import NOON, Schedule, attr, data, find, lane, mark_x, occurrence, parse, text, title

S = Schedule("job")


def plot_edges(root: object) -> tuple[float, float]:
    (line,) = find(root, "axis-line")
    return attr(line, "x1"), attr(line, "x2")


def test_the_now_line_stands_at_its_instant_within_explicit_bounds() -> None:
    since, until = NOON, NOON + timedelta(hours=10)
    root = parse(
        render_timeline_svg(
            data(schedules=[S], now=NOON + timedelta(hours=4), since=since, until=until)
        )
    )
    left, right = plot_edges(root)
    (now,) = find(find(root, "now-marker")[0], "now")
    assert attr(now, "x1") == pytest.approx(left + (right - left) * 0.4, abs=0.1)
    assert "2026-03-01 16:00:00Z" in title(find(root, "now-marker")[0])


def test_the_axis_fits_every_mark_and_now() -> None:
    executions = [occurrence(S.arn, NOON + timedelta(hours=h)) for h in range(5)]
    root = parse(
        render_timeline_svg(
            data(schedules=[S], executions=executions, now=NOON + timedelta(hours=8))
        )
    )
    left, right = plot_edges(root)
    xs = [mark_x(m) for m in find(lane(root, S.arn), "attempt")]
    (now,) = find(find(root, "now-marker")[0], "now")
    assert len(xs) == 5
    assert left < min(xs) < max(xs) < attr(now, "x1") < right


def test_since_and_until_clip_what_lies_outside() -> None:
    executions = [occurrence(S.arn, NOON + timedelta(hours=h)) for h in range(10)]
    root = parse(
        render_timeline_svg(
            data(
                schedules=[S],
                executions=executions,
                now=NOON + timedelta(hours=20),
                since=NOON + timedelta(hours=2, minutes=30),
                until=NOON + timedelta(hours=6, minutes=30),
            )
        )
    )
    assert len(find(lane(root, S.arn), "attempt")) == 4
    assert find(root, "now-marker") == []


def test_bounds_in_the_wrong_order_are_refused_with_both_values() -> None:
    with pytest.raises(ValueError, match=r"since must come before its until.*2026-03-01T12"):
        render_timeline_svg(data(since=NOON, until=NOON - timedelta(hours=1)))


def test_a_width_too_small_for_the_labels_is_refused() -> None:
    with pytest.raises(ValueError, match=r"at least 640 pixels.*got 300"):
        render_timeline_svg(data(), width=300)


@pytest.mark.parametrize(
    ("span", "label"),
    [
        (timedelta(minutes=2), "12:00:30"),
        (timedelta(hours=6), "14:00"),
        (timedelta(days=20), "Mar 5"),
        (timedelta(days=700), "Jul"),
        (timedelta(days=365 * 40), "2040"),
    ],
)
def test_ticks_step_by_round_units_that_suit_the_span(span: timedelta, label: str) -> None:
    root = parse(render_timeline_svg(data(now=NOON, since=NOON, until=NOON + span)))
    labels = [text(e) for e in find(root, "axis-label")]
    assert label in labels
    assert 4 <= len(set(labels)) <= 12


def test_the_axis_writes_the_date_where_it_changes() -> None:
    root = parse(render_timeline_svg(data(now=NOON, since=NOON, until=NOON + timedelta(hours=30))))
    contexts = [text(e) for e in find(root, "axis-context") if text(e) != "UTC"]
    assert contexts == ["Sun Mar 1 2026", "Mon Mar 2 2026"]


NEW_YORK = Schedule("morning", schedule_expression="cron(0 9 * * ? *)", timezone="America/New_York")


def new_york_mornings() -> object:
    # 09:00 in New York is 14:00Z before the 8 March 2026 change and 13:00Z after it.
    mornings = [
        datetime(2026, 3, 7, 14, tzinfo=timezone.utc),
        datetime(2026, 3, 8, 13, tzinfo=timezone.utc),
        datetime(2026, 3, 9, 13, tzinfo=timezone.utc),
    ]
    executions = [occurrence(NEW_YORK.arn, m) for m in mornings]
    return parse(
        render_timeline_svg(data(schedules=[NEW_YORK], executions=executions, now=mornings[-1]))
    )


def test_a_lane_titles_its_marks_in_its_own_zone_across_daylight_saving() -> None:
    marks = find(lane(new_york_mornings(), NEW_YORK.arn), "attempt")
    words = [title(m) for m in marks]
    assert "2026-03-07 14:00:00Z · 09:00:00 EST America/New_York" in words[0]
    assert "2026-03-08 13:00:00Z · 09:00:00 EDT America/New_York" in words[1]
    assert "2026-03-09 13:00:00Z · 09:00:00 EDT America/New_York" in words[2]


def test_a_lane_in_another_zone_labels_its_own_clock_and_the_change_of_offset() -> None:
    root = new_york_mornings()
    labels = [text(e) for e in find(lane(root, NEW_YORK.arn), "local-label")]
    assert any(label.endswith("EST") for label in labels[:1])
    assert any(label.endswith("EDT") for label in labels)
    axis = {text(e) for e in find(root, "axis-label")}
    assert set(labels) != axis


def test_a_lane_in_utc_has_no_second_clock() -> None:
    root = parse(render_timeline_svg(data(schedules=[S], executions=[occurrence(S.arn, NOON)])))
    assert find(lane(root, S.arn), "local-label") == []
