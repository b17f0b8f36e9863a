"""How each thing looks: the style sheet and the shape of every kind of mark.

Outcomes differ by shape as well as colour (a filled circle, a hollow circle, a cross, a
diamond, a square, a slashed circle), so the picture reads without colour vision too.
Styles are scoped to the picture's root class: the drawing may be inserted into a page
that has styles of its own.
"""

from __future__ import annotations

from pytest_schedemu.timeline.lanes import (
    CANCELLED,
    DEAD_LETTERED,
    DELIVERED,
    DROPPED,
    FAILED_PERMANENT,
    FAILED_RETRYABLE,
)

ROOT_CLASS = "schedemu-timeline"

COLOURS = {
    DELIVERED: "#16a34a",
    FAILED_RETRYABLE: "#ea580c",
    FAILED_PERMANENT: "#dc2626",
    DEAD_LETTERED: "#7c3aed",
    DROPPED: "#52525b",
    CANCELLED: "#a1a1aa",
}

_RULES = [
    "{font:12px system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}",
    " text{fill:#1f2937}",
    " .muted{fill:#64748b}",
    " .small{font-size:10.5px}",
    " .mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11px}",
    " .lane-name{font-weight:600;font-size:13px}",
    " .badge-deleted{fill:#b91c1c;font-weight:600;font-size:11px}",
    " .badge-disabled{fill:#64748b;font-weight:600;font-size:11px}",
    " .lane-bg{fill:#fff}",
    " .lane-bg.alt{fill:#f8fafc}",
    " .gone{fill:#e4e4e7;opacity:.55}",
    " .separator{stroke:#e2e8f0}",
    " .grid{stroke:#e5e7eb}",
    " .grid.major{stroke:#cbd5e1}",
    " .axis-line{stroke:#94a3b8}",
    " .local-tick{stroke:#94a3b8}",
    " .nominal{stroke:#334155;stroke-width:1.5}",
    " .nominal-comb{stroke:#94a3b8;stroke-width:1}",
    " .upcoming{stroke:#475569;stroke-width:1.5;stroke-dasharray:3 2}",
    " .upcoming-comb{stroke:#94a3b8;stroke-width:1;stroke-dasharray:2 2}",
    " .flex-window{fill:#93c5fd;opacity:.45}",
    " .flex-offset{stroke:#2563eb;stroke-width:3;stroke-linecap:round;opacity:.75}",
    " .retry-link{stroke:#64748b;stroke-width:1.2;stroke-dasharray:3 2;fill:none}",
    " .hit{fill:transparent}",
    " .function-run circle{fill:#7c3aed}",
    " .function-run.failed circle{fill:#fff;stroke:#7c3aed;stroke-width:1.4}",
    f" .attempt.delivered circle{{fill:{COLOURS[DELIVERED]}}}",
    f" .attempt.failed-retryable circle{{fill:#fff;stroke:{COLOURS[FAILED_RETRYABLE]};"
    "stroke-width:2.2}",
    f" .attempt.failed-permanent path{{stroke:{COLOURS[FAILED_PERMANENT]};stroke-width:2.6;"
    "stroke-linecap:round}",
    f" .ring.dead-lettered{{fill:#ede9fe;stroke:{COLOURS[DEAD_LETTERED]};stroke-width:1.8}}",
    f" .ring.dropped{{fill:#f4f4f5;stroke:{COLOURS[DROPPED]};stroke-width:1.6;"
    "stroke-dasharray:3 2}",
    f" .end .dot{{fill:{COLOURS[DROPPED]}}}",
    f" .end.dead-lettered .dot{{fill:{COLOURS[DEAD_LETTERED]}}}",
    f" .end.cancelled circle{{fill:#fff;stroke:{COLOURS[CANCELLED]};stroke-width:2}}",
    f" .end.cancelled path{{stroke:{COLOURS[CANCELLED]};stroke-width:2}}",
    *(f" .bin .{outcome}{{fill:{colour}}}" for outcome, colour in COLOURS.items()),
    " .bin .frame{fill:none;stroke:#475569;stroke-width:.6;opacity:.5}",
    " .change-line{stroke:#94a3b8;stroke-dasharray:1 2}",
    " .change.created path{fill:#16a34a}",
    " .change.updated path{fill:#2563eb}",
    " .change.enabled path{fill:#0d9488}",
    " .change.disabled path{stroke:#475569;stroke-width:2.4}",
    " .change.deleted path{fill:#111827}",
    " .change.auto-deleted path{fill:#fff;stroke:#111827;stroke-width:1.5}",
    " .change.group-removed path{fill:#7f1d1d}",
    " .change.interrupted path{fill:none;stroke:#d97706;stroke-width:2.2;stroke-linejoin:round}",
    " .change.other path{fill:#94a3b8}",
    " .change.several rect{fill:#fff;stroke:#334155}",
    " .change.several text{font-size:9px;font-weight:600}",
    " .now{stroke:#db2777;stroke-width:1.6}",
    " .now-label rect{fill:#db2777}",
    " .now-label text{fill:#fff;font-size:11px;font-weight:600}",
    " .axis-label{fill:#334155}",
    " .axis-context{fill:#64748b;font-size:10.5px;font-weight:600}",
    " .legend text{fill:#334155}",
    " .note{fill:#64748b;font-style:italic}",
]

STYLE = "".join(f".{ROOT_CLASS}{rule}" for rule in _RULES)


def _n(value: float) -> str:
    """A coordinate: one decimal at most, no trailing zero (bytes add up at 100k marks)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def attempt_shape(outcome: str, x: float, y: float) -> str:
    """The shape of an attempt's mark centred on (x, y)."""
    if outcome == FAILED_PERMANENT:
        return (
            f'<circle class="hit" cx="{_n(x)}" cy="{_n(y)}" r="6"/>'
            f'<path d="M{_n(x - 4)} {_n(y - 4)}l8 8m0-8l-8 8"/>'
        )
    radius = "5" if outcome == DELIVERED else "4"
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}"/>'


def ring_shape(fate: str, x: float, y: float) -> str:
    """Drawn around (behind) a last attempt: how its occurrence ended."""
    if fate == DEAD_LETTERED:
        return f'<path class="ring dead-lettered" d="M{_n(x)} {_n(y - 9)}l9 9-9 9-9-9z"/>'
    return f'<rect class="ring dropped" x="{_n(x - 8)}" y="{_n(y - 8)}" width="16" height="16"/>'


def end_shape(outcome: str, x: float, y: float) -> str:
    """An occurrence's end with no attempt of its own at that instant."""
    if outcome == CANCELLED:
        return (
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="5"/><path d="M{_n(x - 3.5)} {_n(y + 3.5)}l7-7"/>'
        )
    return ring_shape(outcome, x, y) + f'<circle class="dot" cx="{_n(x)}" cy="{_n(y)}" r="2.5"/>'


def change_shape(css_class: str, x: float, y: float) -> str:
    """A schedule change's marker centred on (x, y)."""
    hit = f'<circle class="hit" cx="{_n(x)}" cy="{_n(y)}" r="6"/>'
    if css_class == "created":
        path = f"M{_n(x - 5)} {_n(y + 4)}l5-9 5 9z"
    elif css_class == "updated":
        path = f"M{_n(x - 4)} {_n(y - 4)}h8v8h-8z"
    elif css_class == "enabled":
        path = f"M{_n(x - 4)} {_n(y - 5)}l9 5-9 5z"
    elif css_class == "disabled":
        path = f"M{_n(x - 2.5)} {_n(y - 5)}v10m5-10v10"
    elif css_class in ("deleted", "auto-deleted", "group-removed"):
        path = f"M{_n(x - 5)} {_n(y - 4)}h10l-5 9z"
    elif css_class == "interrupted":
        path = f"M{_n(x - 4)} {_n(y - 5)}l5 4-3 2 5 4"
    else:
        return hit + f'<path d="M{_n(x - 3.5)} {_n(y)}a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0-7 0"/>'
    return hit + f'<path d="{path}"/>'


def several_changes_shape(count: int, x: float, y: float) -> str:
    return (
        f'<rect x="{_n(x - 8)}" y="{_n(y - 6)}" width="16" height="12" rx="3"/>'
        f'<text x="{_n(x)}" y="{_n(y + 3)}" text-anchor="middle">{count}</text>'
    )


def coordinate(value: float) -> str:
    return _n(value)
