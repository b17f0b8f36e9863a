"""Deciding what is drawn one by one and what is counted into bins.

The plot is cut into columns of a few pixels. In each lane, a column holding one mark
draws it with its own title; a column where marks would overlap draws one bin that counts
them by outcome. The column width starts at a mark's width and doubles until the number
of drawn elements fits a budget, which bounds the size of the picture whatever the number
of records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby

from pytest_schedemu.timeline.lanes import OUTCOMES, Change, Lane
from pytest_schedemu.timeline.layout import TimeScale

#: The narrowest column: about a mark's width, so two marks in one column would overlap.
COLUMN_WIDTH = 10.0
#: How many titled elements (marks, bins, ticks, change markers) a picture may hold:
#: with titles of a few hundred bytes each, this keeps a picture well under 2 MB.
ELEMENT_BUDGET = 2500


@dataclass
class Bin:
    """Marks of one lane counted together: one column of the plot."""

    left: float
    width: float
    first: float
    last: float
    counts: dict[str, int]
    attempts: int


@dataclass
class LanePlan:
    """What one lane draws, in plot coordinates."""

    lane: Lane
    #: Whether each occurrence gets its own tick, retry link and flexible-window bar.
    detailed: bool
    #: Indexes of the lane's occurrences in view, for a detailed lane.
    occurrences: list[int] = field(default_factory=list)
    #: (x, index) of each mark drawn on its own.
    marks: list[tuple[float, int]] = field(default_factory=list)
    bins: list[Bin] = field(default_factory=list)
    #: x of the nominal ticks of a lane that is not detailed, one per column.
    tick_columns: list[float] = field(default_factory=list)
    changes: list[tuple[float, list[Change]]] = field(default_factory=list)


@dataclass
class _Placed:
    lane: Lane
    #: Mark indexes by the whole pixel they fall on (from the plot's left edge).
    pixels: dict[int, list[int]]
    occurrences: list[int]
    changes: list[tuple[float, Change]]


def plan_lanes(lanes: Sequence[Lane], scale: TimeScale) -> list[LanePlan]:
    """The plan of each lane, in columns as narrow as the picture's budget allows."""
    placed = [_place(lane, scale) for lane in lanes]
    plot_width = scale.right - scale.left
    width = _column_width(placed, scale.left, plot_width)
    plans = []
    for item in placed:
        lane = item.lane
        detailed = len(item.occurrences) * width <= plot_width
        plan = LanePlan(lane, detailed, item.occurrences if detailed else [])
        _fill_columns(plan, item.pixels, scale, width)
        plan.changes = _change_columns(item.changes, scale.left, width)
        if not detailed:
            plan.tick_columns = _tick_columns(lane, scale, width)
        plans.append(plan)
    return plans


def _place(lane: Lane, scale: TimeScale) -> _Placed:
    start, end, per_second = scale.start, scale.end, scale.per_second
    # Marks grouped by pixel at C speed: a stable sort of the indexes by pixel, then
    # groupby; a Python loop over 100,000 marks would cost several times as much.
    pixels = [int((s - start) * per_second) if start <= s <= end else -1 for s in lane.seconds]
    pixel_of = pixels.__getitem__
    order = sorted(range(len(pixels)), key=pixel_of)
    grouped = {pixel: list(members) for pixel, members in groupby(order, key=pixel_of)}
    grouped.pop(-1, None)
    nominals, lasts = lane.nominals, lane.lasts
    if not nominals or (min(lasts) >= start and max(nominals) <= end):
        occurrences = list(range(len(nominals)))
    else:
        occurrences = [i for i in range(len(nominals)) if lasts[i] >= start and nominals[i] <= end]
    changes = [(scale.x(c.seconds), c) for c in lane.changes if scale.shows(c.seconds)]
    return _Placed(lane, grouped, occurrences, changes)


def _column_width(placed: Sequence[_Placed], left: float, plot_width: float) -> float:
    width = COLUMN_WIDTH
    while width < plot_width:
        cost = 0
        for item in placed:
            cost += len({int(p // width) for p in item.pixels})
            cost += len({int((x - left) // width) for x, _ in item.changes})
            if len(item.occurrences) * width <= plot_width:
                cost += len(item.occurrences)
        if cost <= ELEMENT_BUDGET:
            break
        width *= 2
    return width


def _fill_columns(
    plan: LanePlan, pixels: dict[int, list[int]], scale: TimeScale, width: float
) -> None:
    columns: dict[int, list[int]] = {}
    for pixel, indexes in pixels.items():
        column = int(pixel // width)
        found = columns.get(column)
        if found is None:
            columns[column] = list(indexes)
        else:
            found.extend(indexes)
    lane = plan.lane
    for column in sorted(columns):
        members = columns[column]
        if len(members) == 1:
            index = members[0]
            plan.marks.append((scale.x(lane.seconds[index]), index))
        else:
            plan.bins.append(_bin(lane, members, scale.left + column * width, width))


def _bin(lane: Lane, members: list[int], left: float, width: float) -> Bin:
    counts = dict.fromkeys(OUTCOMES, 0)
    counts.update(Counter(map(lane.outcomes.__getitem__, members)))
    rings = lane.rings
    inside = set(members)
    for index in inside.intersection(rings):
        counts[rings[index]] += 1
    times = list(map(lane.seconds.__getitem__, members))
    attempts = len(members) - len(inside.intersection(lane.ends))
    return Bin(left, width, min(times), max(times), counts, attempts)


def _change_columns(
    changes: list[tuple[float, Change]], left: float, width: float
) -> list[tuple[float, list[Change]]]:
    columns: dict[int, list[tuple[float, Change]]] = {}
    for placed in changes:
        columns.setdefault(int((placed[0] - left) // width), []).append(placed)
    return [
        (members[0][0], [change for _, change in members]) for _, members in sorted(columns.items())
    ]


def _tick_columns(lane: Lane, scale: TimeScale, width: float) -> list[float]:
    start, end = scale.start, scale.end
    per_column = scale.per_second / width
    columns = {int((n - start) * per_column) for n in lane.nominals if start <= n <= end}
    return [scale.left + (column + 0.5) * width for column in sorted(columns)]
