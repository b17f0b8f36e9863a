"""The stand-alone page: the drawing with a header that sums it up, in one HTML file.

The page is also well-formed XML (void elements are self-closed, the style sheet holds no
``<`` or ``&``), so tools and tests can read it with an XML parser.
"""

from __future__ import annotations

from datetime import datetime, timezone

from pytest_schedemu._version import __version__
from pytest_schedemu.timeline.lanes import OUTCOMES
from pytest_schedemu.timeline.model import TimelineData
from pytest_schedemu.timeline.shapes import COLOURS
from pytest_schedemu.timeline.svg import draw
from pytest_schedemu.timeline.text import escape, utc_text
from pytest_schedemu.timeline.titles import OUTCOME_WORDS

PAGE_WIDTH = 1200

_PAGE_STYLE = (
    "body{margin:0;background:#f1f5f9;color:#1f2937;"
    "font:14px system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}"
    "header{padding:18px 24px 6px}"
    "h1{font-size:20px;margin:0 0 4px;font-weight:650}"
    ".span{margin:0;color:#475569}"
    ".counts{list-style:none;display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0 0;padding:0}"
    ".counts li{display:flex;align-items:center;gap:6px}"
    ".swatch{display:inline-block;width:10px;height:10px;border-radius:2px}"
    "main{padding:8px 24px 12px;overflow-x:auto}"
    "main svg{display:block;max-width:100%;height:auto;background:#fff;"
    "border:1px solid #e2e8f0;border-radius:8px}"
    "footer{padding:0 24px 20px;color:#64748b;font-size:12px}"
)


def render_timeline_html(data: TimelineData, *, title: str = "schedemu timeline") -> str:
    """A self-contained HTML page of the timeline: inline SVG and CSS, no script, no
    network."""
    drawing = draw(data, PAGE_WIDTH)
    counts = dict.fromkeys(OUTCOMES, 0)
    attempts = 0
    for lane in drawing.lanes:
        for outcome in OUTCOMES:
            counts[outcome] += lane.outcomes.count(outcome)
        for ring in lane.rings.values():
            counts[ring] += 1
        attempts += lane.attempt_count
    schedules = len(drawing.lanes)
    span = (
        f"{_utc(drawing.start)} to {_utc(drawing.end)} · now {utc_text(data.now)} · "
        f"{schedules} schedule{'' if schedules == 1 else 's'} · "
        f"{attempts} attempt{'' if attempts == 1 else 's'}"
    )
    items = "".join(
        f'<li class="{outcome}"><span class="swatch" style="background:{COLOURS[outcome]}">'
        f"</span>{count} {escape(OUTCOME_WORDS[outcome])}</li>"
        for outcome, count in counts.items()
        if count
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
        f"<title>{escape(title)}</title><style>{_PAGE_STYLE}</style></head><body>"
        f'<header><h1>{escape(title)}</h1><p class="span">{escape(span)}</p>'
        f'<ul class="counts">{items}</ul></header>'
        f"<main>{drawing.svg}</main>"
        "<footer>The axis is in UTC; under each lane, the same instants on the schedule's "
        "own clock. Hover a mark, a bin or a tick for its details. "
        f"pytest-schedemu {escape(__version__)}</footer></body></html>\n"
    )


def _utc(seconds: float) -> str:
    return utc_text(datetime.fromtimestamp(seconds, timezone.utc))
