"""Dense data: marks that would overlap are counted into bins, and the picture stays small."""

from __future__ import annotations

import re
from datetime import timedelta

from pytest_schedemu.timeline import render_timeline_svg

from .records import NOON, Schedule, data, find, lane, occurrence, parse, title

MINUTELY = Schedule("minutely", schedule_expression="rate(1 minute)")


def minutes(count: int, schedule: Schedule = MINUTELY, every: int = 50) -> list[object]:
    # One failure, then a retry that works, in every ``every`` occurrences.
    return [
        occurrence(
            schedule.arn,
            NOON + timedelta(minutes=i),
            "retry ok" if i % every == 0 else "ok",
            offsets=(0, 30),
        )
        for i in range(count)
    ]


def bin_total(words: str) -> int:
    found = re.search(r"(\d+) attempts?:", words)
    return int(found.group(1)) if found else 0


def test_marks_that_would_overlap_are_counted_into_bins_by_outcome() -> None:
    root = parse(render_timeline_svg(data(schedules=[MINUTELY], executions=minutes(2000))))
    found = lane(root, MINUTELY.arn)
    bins = find(found, "bin")
    assert bins
    loose = find(found, "attempt")
    assert sum(bin_total(title(b)) for b in bins) + len(loose) == 2040
    assert any("failed, retryable" in title(b) for b in bins)
    first = bins[0]
    assert {rect.get("class") for rect in first} >= {"delivered"}


def test_sparse_marks_are_not_binned() -> None:
    root = parse(render_timeline_svg(data(schedules=[MINUTELY], executions=minutes(20, every=100))))
    found = lane(root, MINUTELY.arn)
    assert find(found, "bin") == []
    assert len(find(found, "attempt")) == 21


def test_a_column_with_one_mark_keeps_it_and_its_title_among_bins() -> None:
    executions = minutes(500)
    lonely = occurrence(MINUTELY.arn, NOON + timedelta(days=2), "fatal", payload="alone")
    root = parse(render_timeline_svg(data(schedules=[MINUTELY], executions=[*executions, lonely])))
    found = lane(root, MINUTELY.arn)
    assert find(found, "bin")
    (alone,) = [m for m in find(found, "attempt") if "alone" in title(m)]
    assert "failed-permanent" in alone.get("class", "")


def test_a_hundred_thousand_attempts_make_a_picture_under_two_megabytes() -> None:
    schedules = [Schedule(f"s{i}", schedule_expression="rate(1 minute)") for i in range(20)]
    executions = [e for s in schedules for e in minutes(5000, s, every=7)]
    svg = render_timeline_svg(data(schedules=schedules, executions=executions))
    assert len(svg.encode("utf-8")) < 2_000_000
    root = parse(svg)
    lanes = [lane(root, s.arn) for s in schedules]
    counted = sum(bin_total(title(b)) for found in lanes for b in find(found, "bin"))
    loose = sum(len(find(found, "attempt")) for found in lanes)
    assert counted + loose == sum(len(e.attempts) for e in executions)


def test_many_busy_lanes_widen_the_bins_to_stay_within_the_budget() -> None:
    from pytest_schedemu.timeline.binning import ELEMENT_BUDGET

    schedules = [Schedule(f"s{i:02d}", schedule_expression="rate(1 minute)") for i in range(50)]
    executions = [e for s in schedules for e in minutes(600, s)]
    root = parse(render_timeline_svg(data(schedules=schedules, executions=executions)))
    lanes = find(root, "lane")
    drawn = sum(len(find(found, "bin")) + len(find(found, "attempt")) for found in lanes)
    assert drawn <= ELEMENT_BUDGET
