"""The drawing: legend, UTC axis, one lane per schedule, and the clock's instant.

Every element that describes records is an SVG shape with a ``<title>`` child, which
browsers show on hover: the picture needs no script.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from pytest_schedemu.expressions.zones import UTC_NAMES
from pytest_schedemu.timeline.binning import LanePlan, plan_lanes
from pytest_schedemu.timeline.lanes import OUTCOMES, Lane, build_lanes
from pytest_schedemu.timeline.layout import (
    Step,
    TimeScale,
    axis_labels,
    choose_step,
    fit_span,
    lane_labels,
    ticks,
)
from pytest_schedemu.timeline.legend import legend
from pytest_schedemu.timeline.marks import draw_lane_marks
from pytest_schedemu.timeline.model import TimelineData
from pytest_schedemu.timeline.shapes import ROOT_CLASS, STYLE, coordinate
from pytest_schedemu.timeline.text import epoch, escape, utc_text
from pytest_schedemu.timeline.titles import lane_title

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
MINIMUM_WIDTH = 640
MARGIN = 12
PLOT_LEFT = 280
RIGHT_MARGIN = 28
LANE_HEIGHT = 64
AXIS_HEIGHT = 46
#: More lanes than this make a picture too tall to read: the rest are counted in a note.
MAX_LANES = 60
#: The least room, in pixels, between two labels of the UTC axis.
TICK_SPACING = 84
# Rough widths of a character in the lane labels, to cut long names before they spill.
NAME_CHARACTER = 7.6
DETAIL_CHARACTER = 6.7


def render_timeline_svg(data: TimelineData, *, width: int = 1200) -> str:
    """The timeline as one ``<svg>`` element, styles included, ready to embed in a page."""
    return draw(data, width).svg


@dataclass(frozen=True)
class Drawing:
    """A rendered picture, with what the page around it summarises."""

    svg: str
    lanes: list[Lane]
    start: float
    end: float


def draw(data: TimelineData, width: int = 1200) -> Drawing:
    """The picture, from top to bottom: legend, UTC axis, lanes, the now line."""
    if width < MINIMUM_WIDTH:
        raise ValueError(
            f"the timeline needs a width of at least {MINIMUM_WIDTH} pixels "
            f"(the lane labels take {PLOT_LEFT}), got {width}"
        )
    lanes = build_lanes(data)
    start, end = fit_span(
        *_extent(lanes),
        epoch(data.now),
        None if data.since is None else epoch(data.since),
        None if data.until is None else epoch(data.until),
    )
    scale = TimeScale(start, end, PLOT_LEFT, width - RIGHT_MARGIN)
    shown, hidden = lanes[:MAX_LANES], lanes[MAX_LANES:]
    for lane in shown:
        lane.upcoming = [epoch(moment) for moment in data.upcoming.get(lane.arn, ())]
    plans = plan_lanes(shown, scale)
    changes = {change.css_class for lane in shown for change in lane.changes}
    upcoming = any(scale.shows(s) for lane in shown for s in lane.upcoming)
    legend_svg, legend_height = legend(
        width - MARGIN, MARGIN, MARGIN, changes, upcoming, _retried_runs(shown)
    )
    axis_top = MARGIN + legend_height + 10
    lanes_top = axis_top + AXIS_HEIGHT
    lanes_bottom = lanes_top + LANE_HEIGHT * max(1, len(plans))
    height = lanes_bottom + (AXIS_HEIGHT - 16 if len(plans) > 5 else 0) + (28 if hidden else 12)
    parts = [
        f'<svg xmlns="{SVG_NAMESPACE}" class="{ROOT_CLASS}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(_summary(lanes, start, end))}">',
        f"<style>{STYLE}</style>",
        legend_svg,
    ]
    parts.extend(
        f'<rect class="lane-bg{" alt" if index % 2 else ""}" x="0" '
        f'y="{lanes_top + index * LANE_HEIGHT}" width="{width}" height="{LANE_HEIGHT}"/>'
        for index in range(len(plans))
    )
    step = choose_step(end - start, int((scale.right - scale.left) / TICK_SPACING))
    parts.append(_axis(scale, step, axis_top, lanes_bottom, below=len(plans) > 5))
    for index, plan in enumerate(plans):
        parts.append(_lane(plan, lanes_top + index * LANE_HEIGHT, scale, step))
    if not plans:
        parts.append(
            f'<text class="note" x="{PLOT_LEFT}" y="{lanes_top + 36}">Nothing to show: the data '
            "has no schedules, executions or activity.</text>"
        )
    parts.append(_now(scale, epoch(data.now), axis_top, lanes_bottom))
    if hidden:
        parts.append(_hidden_note(hidden, height - 10))
    parts.append("</svg>")
    return Drawing("".join(parts), lanes, start, end)


def _extent(lanes: list[Lane]) -> tuple[float | None, float | None]:
    earliest: float | None = None
    latest: float | None = None
    for lane in lanes:
        instants = [change.seconds for change in lane.changes]
        for values in (lane.seconds, lane.nominals):
            if values:
                instants += (min(values), max(values))
        if not instants:
            continue
        low, high = min(instants), max(instants)
        earliest = low if earliest is None else min(earliest, low)
        latest = high if latest is None else max(latest, high)
    return earliest, latest


def _summary(lanes: list[Lane], start: float, end: float) -> str:
    attempts = sum(lane.attempt_count for lane in lanes)
    return (
        f"Timeline of {len(lanes)} schedule{'' if len(lanes) == 1 else 's'} and {attempts} "
        f"attempts from {_utc(start)} to {_utc(end)}"
    )


def _utc(seconds: float) -> str:
    return utc_text(datetime.fromtimestamp(seconds, timezone.utc))


def _axis(scale: TimeScale, step: Step, top: float, bottom: float, below: bool) -> str:
    n = coordinate
    moments = ticks(scale.start, scale.end, step, timezone.utc)
    labels = axis_labels(moments, step)
    line_y = top + AXIS_HEIGHT - 4
    parts = [
        f'<g class="axis"><line class="axis-line" x1="{n(scale.left)}" y1="{n(line_y)}" '
        f'x2="{n(scale.right)}" y2="{n(line_y)}"/>'
    ]
    for moment, (label, context) in zip(moments, labels):
        x = scale.x(moment.timestamp())
        major = " major" if context and step.unit in ("second", "minute", "hour") else ""
        parts.append(
            f'<line class="grid{major}" x1="{n(x)}" y1="{n(line_y)}" x2="{n(x)}" y2="{n(bottom)}"/>'
        )
        anchor = _anchor(x, scale)
        parts.append(
            f'<text class="axis-label" x="{n(x)}" y="{n(top + 22)}"{anchor}>{escape(label)}</text>'
        )
        if context:
            parts.append(
                f'<text class="axis-context" x="{n(x)}" y="{n(top + 35)}"{anchor}>'
                f"{escape(context)}</text>"
            )
        if below:
            parts.append(
                f'<text class="axis-label" x="{n(x)}" y="{n(bottom + 18)}"{anchor}>'
                f"{escape(label)}</text>"
            )
    parts.append(
        f'<text class="axis-context" x="{PLOT_LEFT - 10}" y="{n(top + 22)}" '
        'text-anchor="end">UTC</text></g>'
    )
    return "".join(parts)


def _anchor(x: float, scale: TimeScale) -> str:
    if x - scale.left < 24:
        return ' text-anchor="start"'
    if scale.right - x < 24:
        return ' text-anchor="end"'
    return ' text-anchor="middle"'


def _lane(plan: LanePlan, top: float, scale: TimeScale, step: Step) -> str:
    lane = plan.lane
    schedule = lane.schedule
    classes = "lane"
    if lane.deleted:
        classes += " deleted"
    if schedule is not None and schedule.state == "DISABLED":
        classes += " disabled"
    parts = [f'<g class="{classes}" data-arn="{escape(lane.arn)}">']
    parts.append(_lane_label(lane, top))
    deleted_at = lane.deleted_at
    if deleted_at is not None and deleted_at < scale.end:
        x = scale.clamp(scale.x(deleted_at))
        parts.append(
            f'<rect class="gone" x="{coordinate(x)}" y="{top + 1}" '
            f'width="{coordinate(scale.right - x)}" height="{LANE_HEIGHT - 2}"/>'
        )
    parts.append(_local_axis(lane, top, scale, step))
    parts.append(draw_lane_marks(plan, top, scale))
    parts.append(
        f'<line class="separator" x1="0" y1="{top + LANE_HEIGHT}" x2="{coordinate(scale.right)}" '
        f'y2="{top + LANE_HEIGHT}"/></g>'
    )
    return "".join(parts)


def _lane_label(lane: Lane, top: float) -> str:
    schedule = lane.schedule
    room = PLOT_LEFT - MARGIN - 14
    badge = ""
    if lane.deleted:
        badge = '<tspan class="badge-deleted"> · deleted</tspan>'
    elif schedule is not None and schedule.state == "DISABLED":
        badge = '<tspan class="badge-disabled"> · disabled</tspan>'
    name_room = room - (70 if badge else 0)
    name = _fit(lane.name, name_room / NAME_CHARACTER)
    if schedule is not None:
        detail = f"{lane.group} · {schedule.schedule_expression}"
        window = schedule.flexible_time_window.maximum_window_in_minutes
        zone = schedule.timezone + (f" · flexible {window} min" if window else "")
        if lane.origin is not None:
            zone += f" · {lane.origin}"
    else:
        detail = f"{lane.group} · expression unknown"
        zone = "zone unknown"
    return (
        f'<g class="lane-label"><title>{escape(lane_title(lane))}</title>'
        f'<text class="lane-name" x="{MARGIN}" y="{top + 20}">{escape(name)}{badge}</text>'
        f'<text class="lane-detail mono muted" x="{MARGIN}" y="{top + 36}">'
        f"{escape(_fit(detail, room / DETAIL_CHARACTER))}</text>"
        f'<text class="lane-zone muted small" x="{MARGIN}" y="{top + 51}">'
        f"{escape(_fit(zone, room / DETAIL_CHARACTER))}</text></g>"
    )


def _fit(text: str, characters: float) -> str:
    most = max(4, int(characters))
    return text if len(text) <= most else text[: most - 1] + "…"


def _local_axis(lane: Lane, top: float, scale: TimeScale, step: Step) -> str:
    zone = lane.zone
    if zone is None or lane.zone_name in UTC_NAMES:
        return ""
    moments = ticks(scale.start, scale.end, step, zone)
    parts = ['<g class="local-axis">']
    n = coordinate
    for moment, label in zip(moments, lane_labels(moments, step)):
        x = scale.x(moment.timestamp())
        parts.append(
            f'<line class="local-tick" x1="{n(x)}" y1="{top + 49}" x2="{n(x)}" y2="{top + 53}"/>'
            f'<text class="local-label muted small" x="{n(x)}" y="{top + 62}"{_anchor(x, scale)}>'
            f"{escape(label)}</text>"
        )
    parts.append("</g>")
    return "".join(parts)


def _now(scale: TimeScale, now: float, top: float, bottom: float) -> str:
    if not scale.shows(now):
        return ""
    n = coordinate
    x = scale.x(now)
    label = f"now {_utc(now)}"
    label_width = len(label) * 6.4 + 10
    left = x - label_width if scale.right - x < label_width else x
    return (
        f'<g class="now-marker"><title>{escape(label)}</title>'
        f'<line class="now" x1="{n(x)}" y1="{n(top + 6)}" x2="{n(x)}" y2="{n(bottom)}"/>'
        f'<g class="now-label"><rect x="{n(left)}" y="{n(top - 8)}" width="{n(label_width)}" '
        f'height="15" rx="3"/><text x="{n(left + 5)}" y="{n(top + 3)}">{escape(label)}</text>'
        "</g></g>"
    )


def _hidden_note(hidden: list[Lane], y: float) -> str:
    counts = dict.fromkeys(OUTCOMES, 0)
    for lane in hidden:
        for outcome in OUTCOMES:
            counts[outcome] += lane.outcomes.count(outcome)
    listed = ", ".join(f"{count} {outcome}" for outcome, count in counts.items() if count)
    return (
        f'<text class="note" x="{MARGIN}" y="{coordinate(y)}">{len(hidden)} more schedules are '
        f"not drawn ({escape(listed or 'no attempts')}): narrow the data by schedule or group "
        "to see them.</text>"
    )


def _retried_runs(lanes: list[Lane]) -> bool:
    """Whether a lane has an attempt whose function Lambda ran again."""
    return any(
        len(lane.runs_of(attempt)) > 1 for lane in lanes if lane.runs for attempt in lane.attempts
    )
