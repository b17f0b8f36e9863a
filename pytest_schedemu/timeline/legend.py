"""The legend: every shape the picture uses, with what it means, in rows that wrap."""

from __future__ import annotations

from collections.abc import Iterable

from pytest_schedemu.timeline.lanes import (
    CANCELLED,
    DEAD_LETTERED,
    DELIVERED,
    DROPPED,
    FAILED_PERMANENT,
    FAILED_RETRYABLE,
)
from pytest_schedemu.timeline.shapes import (
    attempt_shape,
    change_shape,
    coordinate,
    end_shape,
    ring_shape,
)
from pytest_schedemu.timeline.text import escape

ROW_HEIGHT = 20
# An estimate of the width of a character of the legend's 12-pixel text.
CHARACTER_WIDTH = 6.4
ICON_WIDTH = 18
GAP = 18

# Changes every legend lists; the rarer ones are listed when the picture has them.
CORE_CHANGES = ("created", "updated", "disabled", "deleted", "auto-deleted")
CHANGE_WORDS = {
    "created": "created",
    "updated": "updated",
    "enabled": "enabled",
    "disabled": "disabled",
    "deleted": "deleted",
    "auto-deleted": "auto-deleted",
    "group-removed": "group removed",
    "interrupted": "interrupted",
    "other": "other activity",
}


def _icon(kind: str, x: float, y: float) -> str:
    n = coordinate
    if kind in (DELIVERED, FAILED_RETRYABLE, FAILED_PERMANENT):
        return f'<g class="attempt {kind}">{attempt_shape(kind, x, y)}</g>'
    if kind == DEAD_LETTERED:
        return f'<g class="attempt {FAILED_RETRYABLE}">{ring_shape(kind, x, y)}</g>'
    if kind in (DROPPED, CANCELLED):
        return f'<g class="end {kind}">{end_shape(kind, x, y)}</g>'
    if kind == "bin":
        return (
            f'<g class="bin"><rect class="{FAILED_RETRYABLE}" x="{n(x - 3)}" y="{n(y - 8)}" '
            f'width="6" height="5"/><rect class="{DELIVERED}" x="{n(x - 3)}" y="{n(y - 3)}" '
            f'width="6" height="10"/></g>'
        )
    if kind == "nominal":
        return f'<line class="nominal" x1="{n(x)}" y1="{n(y - 7)}" x2="{n(x)}" y2="{n(y + 7)}"/>'
    if kind == "flex":
        return (
            f'<rect class="flex-window" x="{n(x - 8)}" y="{n(y - 4)}" width="16" height="8"/>'
            f'<line class="flex-offset" x1="{n(x - 7)}" y1="{n(y)}" x2="{n(x + 2)}" y2="{n(y)}"/>'
        )
    if kind == "retries":
        return f'<line class="retry-link" x1="{n(x - 9)}" y1="{n(y)}" x2="{n(x + 9)}" y2="{n(y)}"/>'
    if kind == "upcoming":
        return f'<line class="upcoming" x1="{n(x)}" y1="{n(y - 7)}" x2="{n(x)}" y2="{n(y + 7)}"/>'
    if kind == "function-run":
        return f'<g class="function-run"><circle cx="{n(x)}" cy="{n(y)}" r="2.5"/></g>'
    if kind == "now":
        return f'<line class="now" x1="{n(x)}" y1="{n(y - 7)}" x2="{n(x)}" y2="{n(y + 7)}"/>'
    return f'<g class="change {kind}">{change_shape(kind, x, y)}</g>'


def legend(
    width: float,
    left: float,
    top: float,
    changes: Iterable[str],
    upcoming: bool = False,
    function_retries: bool = False,
) -> tuple[str, float]:
    """The legend's SVG and its height, laid out from (left, top) within ``width``;
    ``upcoming`` lists the next occurrences' tick, ``function_retries`` the dot of a
    function's run that Lambda retried."""
    present = set(changes)
    extra = [kind for kind in CHANGE_WORDS if kind in present and kind not in CORE_CHANGES]
    entries = [
        (DELIVERED, "delivered"),
        (FAILED_RETRYABLE, "failed, will retry"),
        (FAILED_PERMANENT, "failed, permanent"),
        (DEAD_LETTERED, "dead-lettered"),
        (DROPPED, "dropped"),
        (CANCELLED, "cancelled"),
        ("bin", "attempts counted in a bin"),
        ("nominal", "nominal time"),
        *((("upcoming", "next occurrence"),) if upcoming else ()),
        ("flex", "flexible window, first attempt"),
        ("retries", "retries of one occurrence"),
        *((("function-run", "function run retried by Lambda"),) if function_retries else ()),
        ("now", "now"),
        *((kind, CHANGE_WORDS[kind]) for kind in (*CORE_CHANGES, *extra)),
    ]
    parts = ['<g class="legend">']
    x, y = left, top + ROW_HEIGHT / 2
    for kind, words in entries:
        entry_width = ICON_WIDTH + 4 + len(words) * CHARACTER_WIDTH
        if x + entry_width > width and x > left:
            x, y = left, y + ROW_HEIGHT
        parts.append(_icon(kind, x + ICON_WIDTH / 2, y))
        parts.append(
            f'<text x="{coordinate(x + ICON_WIDTH + 4)}" y="{coordinate(y + 4)}">'
            f"{escape(words)}</text>"
        )
        x += entry_width + GAP
    parts.append("</g>")
    return "".join(parts), y + ROW_HEIGHT / 2 - top
