"""TimelineData.filtered narrows the records by schedule, group, target and time."""

from __future__ import annotations

from datetime import timedelta

from tests.constants import FUNCTION, QUEUE

from .records import NOON, Activity, DeadLetter, Schedule, Target, arn, data, occurrence

A = Schedule("a", "g1")
B = Schedule("b", "g2", target=Target(FUNCTION))
GROUP_ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g2"


def full() -> object:
    return data(
        schedules=[A, B],
        executions=[
            occurrence(A.arn, NOON),
            occurrence(A.arn, NOON + timedelta(hours=5)),
            occurrence(B.arn, NOON, target=FUNCTION),
            occurrence(arn("gone", "g1"), NOON, target=FUNCTION),
        ],
        activity=[
            Activity("created", NOON, A.arn),
            Activity("created", NOON + timedelta(hours=5), B.arn),
            Activity("group_removed", NOON + timedelta(hours=6), GROUP_ARN),
        ],
        dead_letters=[DeadLetter(QUEUE, A.arn, NOON, NOON)],
    )


def arns(narrowed: object) -> dict[str, list[str]]:
    return {
        "schedules": [s.arn for s in narrowed.schedules],
        "executions": [e.producer_key for e in narrowed.executions],
        "activity": [a.producer_key for a in narrowed.activity],
        "dead_letters": [d.producer_key for d in narrowed.dead_letters],
    }


def test_nothing_given_narrows_nothing() -> None:
    everything = full()
    assert arns(everything.filtered()) == arns(everything)


def test_by_schedule_name_or_arn() -> None:
    by_name = full().filtered(schedule="a")
    by_arn = full().filtered(schedule=A.arn)
    expected = {
        "schedules": [A.arn],
        "executions": [A.arn, A.arn],
        "activity": [A.arn],
        "dead_letters": [A.arn],
    }
    assert arns(by_name) == arns(by_arn) == expected


def test_by_group_keeps_deleted_schedules_and_removals_of_that_group() -> None:
    g1 = arns(full().filtered(group="g1"))
    assert g1["executions"] == [A.arn, A.arn, arn("gone", "g1")]
    g2 = arns(full().filtered(group="g2"))
    assert g2["activity"] == [B.arn, GROUP_ARN]


def test_by_target_keeps_schedules_aimed_at_it_and_those_that_tried_it() -> None:
    narrowed = arns(full().filtered(target_arn=FUNCTION))
    assert narrowed["schedules"] == [B.arn]
    assert narrowed["executions"] == [B.arn, arn("gone", "g1")]


def test_by_time_keeps_what_overlaps_and_sets_the_bounds() -> None:
    since, until = NOON + timedelta(hours=4), NOON + timedelta(hours=8)
    narrowed = full().filtered(since=since, until=until)
    assert arns(narrowed)["executions"] == [A.arn]
    assert arns(narrowed)["activity"] == [B.arn, GROUP_ARN]
    assert arns(narrowed)["dead_letters"] == []
    assert (narrowed.since, narrowed.until) == (since, until)
