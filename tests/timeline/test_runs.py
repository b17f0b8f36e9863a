"""A stack's own function run by an attempt's event: its runs in the attempt's title, and
a dot at the instant of each of Lambda's retries."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from pytest_schedemu.timeline import render_timeline_svg

from .records import (
    NOON,
    Execution,
    Schedule,
    data,
    find,
    lane,
    mark_x,
    occurrence,
    parse,
    text,
    title,
)

S = Schedule("charge-nightly")


@dataclass(frozen=True)
class Run:
    function_name: str
    attempt: int
    invoked_at: datetime
    error_type: str | None = None
    error_message: str | None = None


def refused_then_delivered() -> Execution:
    """Lambda throttled the first attempt and accepted the second's event."""
    execution = occurrence(S.arn, NOON, "retry ok", status="success")
    attempts = tuple(replace(a, execution_id="exec-1") for a in execution.attempts)
    return replace(execution, attempts=attempts)


def rendered(runs: list[Run]) -> ET.Element:
    return lane(picture(runs), S.arn)


def picture(runs: list[Run]) -> ET.Element:
    svg = render_timeline_svg(
        data(
            schedules=[S],
            executions=[refused_then_delivered()],
            runs={"exec-1": runs},
            now=NOON + timedelta(minutes=5),
        )
    )
    return parse(svg)


DECLINED = Run("charge", 1, NOON + timedelta(minutes=1), "ValueError", "card declined")
RETRIED = Run("charge", 2, NOON + timedelta(minutes=2))


def test_the_delivered_attempt_names_the_runs_its_event_caused() -> None:
    row = rendered([DECLINED, RETRIED])
    refused, delivered = find(row, "attempt")

    assert "↳" not in title(refused)
    lines = title(delivered).splitlines()
    assert lines[-2:] == [
        "↳ charge run 1 ValueError: card declined · 2026-03-01 12:01:00Z",
        "↳ charge run 2 ok · 2026-03-01 12:02:00Z",
    ]


def test_each_retry_run_is_a_dot_at_its_instant_on_the_lane() -> None:
    row = rendered([DECLINED, RETRIED])
    _, delivered = find(row, "attempt")

    (dot,) = find(row, "function-run")
    assert "ok" in dot.get("class", "")
    assert title(dot) == "↳ charge run 2 ok · 2026-03-01 12:02:00Z"
    # A minute after the delivered attempt, as the retry came a minute after the run.
    assert mark_x(dot) > mark_x(delivered)


def test_an_attempt_that_caused_no_run_says_nothing_of_functions() -> None:
    row = rendered([])
    assert all("↳" not in title(mark) for mark in find(row, "attempt"))
    assert find(row, "function-run") == []


def test_the_legend_explains_the_dot_only_when_lambda_retried_a_run() -> None:
    (retried,) = find(picture([DECLINED, RETRIED]), "legend")
    (once,) = find(picture([DECLINED]), "legend")

    assert "function run retried by Lambda" in text(retried)
    assert "function run" not in text(once)
