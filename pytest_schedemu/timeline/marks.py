"""The inside of one lane: nominal ticks, flexible windows, retry links, marks, bins and
the schedule's changes, from back to front."""

from __future__ import annotations

import math

from pytest_schedemu.timeline.binning import Bin, LanePlan
from pytest_schedemu.timeline.lanes import OUTCOMES
from pytest_schedemu.timeline.layout import TimeScale
from pytest_schedemu.timeline.model import RunRecord
from pytest_schedemu.timeline.shapes import (
    attempt_shape,
    change_shape,
    coordinate,
    end_shape,
    ring_shape,
    several_changes_shape,
)
from pytest_schedemu.timeline.text import epoch, escape
from pytest_schedemu.timeline.titles import (
    Clock,
    bin_title,
    change_title,
    mark_title,
    occurrence_title,
    run_line,
    upcoming_title,
)

# Rows of a lane, in pixels from its top.
CHANGE_ROW = 9
MARK_ROW = 29
#: How far below the attempts' row a function's retry run is drawn.
RUN_DROP = 10
BIN_BOTTOM = 44
BIN_HEIGHT = 30
COMB = (45, 48)
CHANGE_LINE = (15, 47)
# The least height of a bin's segment: one failure among thousands stays visible.
MIN_SEGMENT = 2.0
#: Upcoming ticks drawn with a title each; the rest of a lane's are one untitled comb.
TITLED_UPCOMING = 24


def draw_lane_marks(plan: LanePlan, top: float, scale: TimeScale) -> str:
    lane = plan.lane
    clock = Clock(lane.zone, lane.zone_name)
    n = coordinate
    parts = [
        f'<line class="change-line" x1="{n(x)}" y1="{top + CHANGE_LINE[0]}" x2="{n(x)}" '
        f'y2="{top + CHANGE_LINE[1]}"/>'
        for x, _ in plan.changes
    ]
    if plan.detailed:
        parts.append(_occurrences(plan, top, scale, clock))
    elif plan.tick_columns:
        d = "".join(f"M{n(x)} {top + COMB[0]}v{COMB[1] - COMB[0]}" for x in plan.tick_columns)
        parts.append(f'<path class="nominal-comb" d="{d}"/>')
    if lane.upcoming:
        parts.append(_upcoming(lane.upcoming, top, scale, clock))
    most = max((sum(b.counts.values()) for b in plan.bins), default=0)
    parts.extend(_bin(found, top, most, clock) for found in plan.bins)
    y = top + MARK_ROW
    for x, index in plan.marks:
        mark = lane.mark(index)
        title = escape(mark_title(mark, clock))
        if mark.attempt is None:
            shape = end_shape(mark.outcome, x, y)
            parts.append(f'<g class="end {mark.outcome}"><title>{title}</title>{shape}</g>')
            continue
        ring = ""
        classes = f"attempt {mark.outcome}"
        if mark.ring is not None:
            ring = ring_shape(mark.ring, x, y)
            classes += f" ends-{mark.ring}"
        parts.append(
            f'<g class="{classes}"><title>{title}</title>{ring}'
            f"{attempt_shape(mark.outcome, x, y)}</g>"
        )
        parts.extend(_retry_run(run, y, scale, clock) for run in mark.runs[1:])
    y = top + CHANGE_ROW
    for x, changes in plan.changes:
        title = escape(change_title(changes, clock))
        if len(changes) == 1:
            css_class = changes[0].css_class
            shape = change_shape(css_class, x, y)
        else:
            css_class = "several"
            shape = several_changes_shape(len(changes), x, y)
        parts.append(f'<g class="change {css_class}"><title>{title}</title>{shape}</g>')
    return "".join(parts)


def _occurrences(plan: LanePlan, top: float, scale: TimeScale, clock: Clock) -> str:
    lane = plan.lane
    schedule = lane.schedule
    window = schedule.flexible_time_window.maximum_window_in_minutes if schedule else None
    n = coordinate
    y = top + MARK_ROW
    back: list[str] = []
    front: list[str] = []
    for index in plan.occurrences:
        occurrence = lane.occurrence(index)
        nominal = scale.clamp(scale.x(occurrence.nominal))
        if window:
            end = scale.clamp(scale.x(occurrence.nominal + window * 60))
            if end > nominal:
                back.append(
                    f'<rect class="flex-window" x="{n(nominal)}" y="{n(y - 6)}" '
                    f'width="{n(end - nominal)}" height="12" rx="2"/>'
                )
        last = scale.clamp(scale.x(occurrence.last))
        if last - nominal > 1 and (len(occurrence.execution.attempts) > 1 or occurrence.fate):
            back.append(
                f'<line class="retry-link" x1="{n(nominal)}" y1="{n(y)}" x2="{n(last)}" '
                f'y2="{n(y)}"/>'
            )
        first = scale.clamp(scale.x(occurrence.first_due))
        if first - nominal > 0.5:
            back.append(
                f'<line class="flex-offset" x1="{n(nominal)}" y1="{n(y)}" x2="{n(first)}" '
                f'y2="{n(y)}"/>'
            )
        if scale.shows(occurrence.nominal):
            title = escape(occurrence_title(occurrence, clock, window))
            front.append(
                f'<g class="occurrence"><title>{title}</title>'
                f'<rect class="hit" x="{n(nominal - 3)}" y="{n(y - 11)}" width="6" height="22"/>'
                f'<line class="nominal" x1="{n(nominal)}" y1="{n(y - 10)}" x2="{n(nominal)}" '
                f'y2="{n(y + 10)}"/></g>'
            )
    return "".join(back) + "".join(front)


def _upcoming(upcoming: list[float], top: float, scale: TimeScale, clock: Clock) -> str:
    n = coordinate
    y = top + MARK_ROW
    shown = [seconds for seconds in upcoming if scale.shows(seconds)]
    titled, rest = shown[:TITLED_UPCOMING], shown[TITLED_UPCOMING:]
    parts = [
        f'<g class="next-occurrence"><title>{escape(upcoming_title(seconds, clock))}</title>'
        f'<rect class="hit" x="{n(scale.x(seconds) - 3)}" y="{n(y - 11)}" width="6" '
        f'height="22"/><line class="upcoming" x1="{n(scale.x(seconds))}" y1="{n(y - 10)}" '
        f'x2="{n(scale.x(seconds))}" y2="{n(y + 10)}"/></g>'
        for seconds in titled
    ]
    # One stroke per whole pixel bounds the comb whatever the count.
    columns = sorted({round(scale.x(seconds)) for seconds in rest})
    if columns:
        d = "".join(f"M{x} {n(y - 6)}v12" for x in columns)
        parts.append(f'<path class="upcoming-comb" d="{d}"/>')
    return "".join(parts)


def _retry_run(run: RunRecord, y: float, scale: TimeScale, clock: Clock) -> str:
    """A small dot at the instant Lambda retried the event, just below the attempt's row;
    nothing when the axis does not reach it (a run never stretches the axis)."""
    seconds = epoch(run.invoked_at)
    if not scale.shows(seconds):
        return ""
    n = coordinate
    outcome = "ok" if run.error_type is None else "failed"
    return (
        f'<g class="function-run {outcome}"><title>{escape(run_line(run, clock))}</title>'
        f'<circle cx="{n(scale.x(seconds))}" cy="{n(y + RUN_DROP)}" r="2.5"/></g>'
    )


def _bin(found: Bin, top: float, most: int, clock: Clock) -> str:
    counts = [(outcome, found.counts[outcome]) for outcome in OUTCOMES if found.counts[outcome]]
    total = sum(count for _, count in counts)
    # Heights grow with the count, gently: neighbouring columns of a steady schedule
    # hold one mark more or less, and that should not read as a pattern.
    height = BIN_HEIGHT * (0.55 + 0.45 * math.log1p(total) / math.log1p(max(most, 1)))
    height = max(height, MIN_SEGMENT * len(counts))
    spare = height - MIN_SEGMENT * len(counts)
    x = found.left + 1
    width = max(2.0, found.width - 2)
    bottom = top + BIN_BOTTOM
    parts = [f'<g class="bin"><title>{escape(bin_title(found, clock))}</title>']
    for outcome, count in counts:
        segment = MIN_SEGMENT + spare * count / total
        bottom -= segment
        parts.append(
            f'<rect class="{outcome}" x="{x:.1f}" y="{bottom:.1f}" width="{width:.1f}" '
            f'height="{segment:.1f}"/>'
        )
    parts.append("</g>")
    return "".join(parts)
