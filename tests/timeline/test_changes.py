"""A schedule's own changes as markers on its lane."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pytest_schedemu.timeline import render_timeline_svg

from .records import NOON, Activity, Schedule, classes, data, find, lane, parse, title

S = Schedule("job")


def markers(*activity: Activity) -> list[object]:
    root = parse(
        render_timeline_svg(
            data(schedules=[S], activity=list(activity), now=NOON + timedelta(hours=2))
        )
    )
    return find(lane(root, S.arn), "change")


@pytest.mark.parametrize(
    ("kind", "css_class"),
    [
        ("created", "created"),
        ("updated", "updated"),
        ("deleted", "deleted"),
        ("auto_deleted", "auto-deleted"),
        ("interrupted", "interrupted"),
        ("something_new", "other"),
    ],
)
def test_each_kind_of_change_has_its_marker(kind: str, css_class: str) -> None:
    (marker,) = markers(Activity(kind, NOON, S.arn, None, "why it happened"))
    assert css_class in classes(marker)
    assert "why it happened" in title(marker)
    assert "2026-03-01 12:00:00Z" in title(marker)


@pytest.mark.parametrize(
    ("detail", "css_class"),
    [("state ENABLED -> DISABLED", "disabled"), ("State: DISABLED -> ENABLED", "enabled")],
)
def test_an_update_of_the_state_shows_the_new_state(detail: str, css_class: str) -> None:
    (marker,) = markers(Activity("updated", NOON, S.arn, None, detail))
    assert css_class in classes(marker)


def test_changes_far_apart_each_get_a_marker_in_time_order() -> None:
    found = markers(
        Activity("deleted", NOON + timedelta(hours=1), S.arn),
        Activity("created", NOON, S.arn),
    )
    assert [sorted(classes(m) - {"change"}) for m in found] == [["created"], ["deleted"]]


def test_changes_at_one_instant_share_one_marker_that_counts_them() -> None:
    (marker,) = markers(
        Activity("created", NOON, S.arn),
        Activity("updated", NOON + timedelta(seconds=1), S.arn),
    )
    assert "several" in classes(marker)
    assert title(marker).startswith("2 changes: 1 created, 1 updated")


def test_occurrence_endings_in_the_activity_are_not_drawn_as_changes() -> None:
    assert markers(Activity("dropped", NOON, S.arn, NOON, "gone")) == []
