"""One lane per schedule ARN, labelled with the schedule's name, group, expression and zone."""

from __future__ import annotations

from datetime import timedelta

from pytest_schedemu.timeline import render_timeline_svg

from .records import (
    NOON,
    Activity,
    Schedule,
    Window,
    arn,
    classes,
    data,
    find,
    lane,
    occurrence,
    parse,
    text,
    title,
)


def test_each_schedule_has_a_lane_labelled_with_name_group_expression_and_zone() -> None:
    schedules = [
        Schedule("nightly", "reports", "cron(0 9 * * ? *)", "America/New_York"),
        Schedule("poll", "default", "rate(5 minutes)", "UTC"),
    ]
    root = parse(render_timeline_svg(data(schedules=schedules)))
    assert [e.get("data-arn") for e in find(root, "lane")] == [
        arn("poll"),
        arn("nightly", "reports"),
    ]
    label = text(find(lane(root, arn("nightly", "reports")), "lane-label")[0])
    for part in ("nightly", "reports", "cron(0 9 * * ? *)", "America/New_York"):
        assert part in label


def test_a_lane_label_names_the_flexible_window_and_its_title_the_target() -> None:
    schedule = Schedule("flex", flexible_time_window=Window(15))
    label = find(parse(render_timeline_svg(data(schedules=[schedule]))), "lane-label")[0]
    assert "flexible 15 min" in text(label)
    assert "arn:aws:sqs:us-east-1:123456789012:queue" in title(label)


def test_a_schedule_known_only_from_its_executions_has_a_lane_marked_deleted() -> None:
    gone = arn("gone", "old")
    root = parse(render_timeline_svg(data(executions=[occurrence(gone, NOON)])))
    found = lane(root, gone)
    assert "deleted" in classes(found)
    assert "gone" in text(found) and "old" in text(found)


def test_a_schedule_known_only_from_activity_has_a_lane() -> None:
    removed = arn("removed")
    root = parse(render_timeline_svg(data(activity=[Activity("deleted", NOON, removed)])))
    assert "deleted" in classes(lane(root, removed))


def test_a_schedule_whose_last_change_is_a_deletion_is_marked_deleted_from_then_on() -> None:
    schedule = Schedule("temp")
    activity = [Activity("deleted", NOON + timedelta(hours=1), schedule.arn)]
    root = parse(
        render_timeline_svg(
            data(schedules=[schedule], activity=activity, now=NOON + timedelta(hours=2))
        )
    )
    found = lane(root, schedule.arn)
    assert "deleted" in classes(found)
    assert len(find(found, "gone")) == 1


def test_a_schedule_created_again_after_a_deletion_is_not_deleted() -> None:
    schedule = Schedule("again")
    activity = [
        Activity("deleted", NOON, schedule.arn),
        Activity("created", NOON + timedelta(minutes=5), schedule.arn),
    ]
    root = parse(render_timeline_svg(data(schedules=[schedule], activity=activity)))
    assert "deleted" not in classes(lane(root, schedule.arn))


def test_a_disabled_schedule_says_so_in_its_label() -> None:
    schedule = Schedule("paused", state="DISABLED")
    found = lane(parse(render_timeline_svg(data(schedules=[schedule]))), schedule.arn)
    assert "disabled" in classes(found)
    assert "disabled" in text(find(found, "lane-name")[0])


def test_a_group_removal_is_not_a_lane_but_a_marker_on_each_lane_of_the_group() -> None:
    kept, removed = Schedule("a", "other"), Schedule("b", "doomed")
    group_arn = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/doomed"
    root = parse(
        render_timeline_svg(
            data(schedules=[kept, removed], activity=[Activity("group_removed", NOON, group_arn)])
        )
    )
    assert len(find(root, "lane")) == 2
    assert len(find(lane(root, removed.arn), "change", "group-removed")) == 1
    assert find(lane(root, kept.arn), "change") == []


def test_beyond_the_lane_limit_a_note_counts_the_schedules_not_drawn() -> None:
    from pytest_schedemu.timeline.svg import MAX_LANES

    schedules = [Schedule(f"s{i:03d}") for i in range(MAX_LANES + 3)]
    root = parse(render_timeline_svg(data(schedules=schedules)))
    assert len(find(root, "lane")) == MAX_LANES
    (note,) = find(root, "note")
    assert "3 more schedules" in text(note)


def test_no_data_at_all_still_draws_a_picture_that_says_so() -> None:
    root = parse(render_timeline_svg(data()))
    assert find(root, "lane") == []
    assert "Nothing to show" in text(find(root, "note")[0])
