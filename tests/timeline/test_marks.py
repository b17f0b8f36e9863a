"""Attempts as marks by outcome, with titles; retries joined; how occurrences ended."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pytest_schedemu.timeline import render_timeline_svg
from tests.constants import DLQ

from .records import (
    NOON,
    Activity,
    DeadLetter,
    Schedule,
    Window,
    attr,
    classes,
    data,
    find,
    lane,
    mark_x,
    occurrence,
    parse,
    title,
)

S = Schedule("job")


def render(*executions: object, **extra: object) -> object:
    values = {"schedules": [S], "executions": list(executions), **extra}
    return parse(render_timeline_svg(data(**values)))


@pytest.mark.parametrize(
    ("outcome", "css_class"),
    [("ok", "delivered"), ("retry", "failed-retryable"), ("fatal", "failed-permanent")],
)
def test_an_attempt_is_a_mark_classed_by_its_outcome(outcome: str, css_class: str) -> None:
    root = render(occurrence(S.arn, NOON, outcome, status="retrying"))
    (mark,) = find(lane(root, S.arn), "attempt")
    assert css_class in classes(mark)


def test_every_attempt_has_its_own_mark() -> None:
    root = render(occurrence(S.arn, NOON, "retry retry ok", offsets=(0, 600, 1800)))
    marks = find(lane(root, S.arn), "attempt")
    assert [sorted(classes(m) - {"attempt"}) for m in marks] == [
        ["failed-retryable"],
        ["failed-retryable"],
        ["delivered"],
    ]


def test_an_attempt_title_names_time_number_error_code_and_payload() -> None:
    execution = occurrence(
        S.arn, NOON, "ok retry", offsets=(0, 600), payload='{"user": "ada"}', status="retrying"
    )
    root = render(execution)
    second = find(lane(root, S.arn), "attempt")[1]
    words = title(second)
    assert "Attempt 2" in words
    assert "2026-03-01 12:10:00Z" in words
    assert "ThrottlingException" in words
    assert 'payload: {"user": "ada"}' in words


def test_a_long_payload_is_cut_to_an_excerpt() -> None:
    root = render(occurrence(S.arn, NOON, payload="x" * 5000))
    words = title(find(lane(root, S.arn), "attempt")[-1])
    assert "x" * 70 in words and "x" * 200 not in words and "…" in words


def test_retries_are_joined_to_their_nominal_tick_by_a_dashed_link() -> None:
    root = render(occurrence(S.arn, NOON, "retry retry ok", offsets=(0, 900, 2700)))
    found = lane(root, S.arn)
    (tick,) = find(found, "nominal")
    (link,) = find(found, "retry-link")
    last = find(found, "attempt")[-1]
    assert attr(link, "x1") == pytest.approx(attr(tick, "x1"), abs=0.1)
    assert attr(link, "x2") == pytest.approx(mark_x(last), abs=0.1)


def test_a_single_punctual_attempt_needs_no_link() -> None:
    root = render(occurrence(S.arn, NOON, "ok"), now=NOON + timedelta(hours=1))
    assert find(lane(root, S.arn), "retry-link") == []


def test_a_flexible_offset_runs_from_the_nominal_tick_to_the_first_attempt() -> None:
    flexible = Schedule("flex", flexible_time_window=Window(30))
    due = NOON + timedelta(minutes=12)
    root = parse(
        render_timeline_svg(
            data(
                schedules=[flexible],
                executions=[occurrence(flexible.arn, NOON, "ok", due=due)],
                now=NOON + timedelta(hours=1),
            )
        )
    )
    (offset,) = find(lane(root, flexible.arn), "flex-offset")
    (tick,) = find(lane(root, flexible.arn), "nominal")
    (mark,) = find(lane(root, flexible.arn), "attempt")
    assert attr(offset, "x1") == pytest.approx(attr(tick, "x1"), abs=0.1)
    assert attr(offset, "x2") == pytest.approx(mark_x(mark), abs=0.1)
    (window,) = find(lane(root, flexible.arn), "flex-window")
    assert attr(window, "width") > attr(offset, "x2") - attr(offset, "x1")
    assert "+12m" in title(find(lane(root, flexible.arn), "occurrence")[0])


def test_a_dead_lettered_occurrence_rings_its_last_attempt_and_names_the_queue() -> None:
    execution = occurrence(
        S.arn, NOON, "retry retry", exhausted="MaximumRetryAttempts", offsets=(0, 60)
    )
    letter = DeadLetter(
        DLQ, S.arn, NOON, NOON + timedelta(seconds=60), {"ERROR_CODE": "ThrottlingException"}
    )
    root = render(execution, dead_letters=[letter])
    first, last = find(lane(root, S.arn), "attempt")
    assert "ends-dead-lettered" in classes(last)
    assert "ends-dead-lettered" not in classes(first)
    assert len(find(last, "ring", "dead-lettered")) == 1
    assert DLQ in title(last) and "MaximumRetryAttempts" in title(last)


def test_a_failed_occurrence_without_a_dead_letter_is_dropped() -> None:
    root = render(occurrence(S.arn, NOON, "fatal", exhausted="permanent"))
    (mark,) = find(lane(root, S.arn), "attempt", "failed-permanent")
    assert "ends-dropped" in classes(mark)
    assert "permanent" in title(mark)


def test_a_cancelled_occurrence_is_a_mark_at_the_cancellation() -> None:
    cancelled_at = NOON + timedelta(minutes=30)
    execution = occurrence(S.arn, NOON, "retry", status="cancelled")
    activity = [Activity("cancelled", cancelled_at, S.arn, NOON, "schedule deleted")]
    root = render(execution, activity=activity, now=NOON + timedelta(hours=1))
    (end,) = find(lane(root, S.arn), "end", "cancelled")
    assert "schedule deleted" in title(end) and "12:30:00Z" in title(end)
    (link,) = find(lane(root, S.arn), "retry-link")
    assert attr(link, "x2") > mark_x(find(lane(root, S.arn), "attempt")[0])


def test_an_end_no_execution_accounts_for_is_still_drawn() -> None:
    letter = DeadLetter(DLQ, S.arn, NOON, NOON + timedelta(minutes=3))
    root = render(dead_letters=[letter])
    (end,) = find(lane(root, S.arn), "end", "dead-lettered")
    assert DLQ in title(end)


def test_a_nominal_tick_titles_its_occurrence() -> None:
    root = render(occurrence(S.arn, NOON, "retry ok"))
    (tick,) = find(lane(root, S.arn), "occurrence")
    assert "Occurrence 2026-03-01 12:00:00Z" in title(tick)
    assert "2 attempts" in title(tick)
