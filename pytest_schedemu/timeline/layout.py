"""The time axis: the stretch shown, where an instant falls, and where ticks go.

Ticks are placed on a zone's wall clock (UTC for the main axis, the schedule's zone for
each lane), at a round step chosen from the span: seconds to years.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo

from pytest_schedemu.timeline.text import MONTHS, WEEKDAYS

MINUTE = 60
HOUR = 3600
DAY = 86400
# With no span to speak of (one attempt, at now), the axis still shows a minute.
MINIMUM_SPAN = 60.0
PADDING = 0.03
# A guard against a malformed step or span running the tick loops away.
MAX_TICK_CANDIDATES = 2000


@dataclass(frozen=True)
class TimeScale:
    """Maps epoch seconds in [start, end] to x in [left, right]."""

    start: float
    end: float
    left: float
    right: float

    @property
    def per_second(self) -> float:
        return (self.right - self.left) / (self.end - self.start)

    def x(self, seconds: float) -> float:
        return self.left + (seconds - self.start) * self.per_second

    def shows(self, seconds: float) -> bool:
        return self.start <= seconds <= self.end

    def clamp(self, x: float) -> float:
        return min(max(x, self.left), self.right)


def fit_span(
    earliest: float | None,
    latest: float | None,
    now: float,
    since: float | None,
    until: float | None,
) -> tuple[float, float]:
    """The shown stretch: the data and now with a margin, or the given bounds."""
    low = min(now, earliest) if earliest is not None else now
    high = max(now, latest) if latest is not None else now
    if since is not None and until is not None:
        if since >= until:
            raise ValueError(
                "the timeline's since must come before its until, got since="
                f"{_iso(since)} and until={_iso(until)}"
            )
        return since, until
    if since is not None:
        low = since
        high = max(high, since + MINIMUM_SPAN)
        return low, high + (high - low) * PADDING
    if until is not None:
        high = until
        low = min(low, until - MINIMUM_SPAN)
        return low - (high - low) * PADDING, high
    if high - low < MINIMUM_SPAN:
        middle = (low + high) / 2
        low, high = middle - MINIMUM_SPAN / 2, middle + MINIMUM_SPAN / 2
    margin = (high - low) * PADDING
    return _rounded_out(low - margin, high + margin)


def _rounded_out(low: float, high: float) -> tuple[float, float]:
    # Ends on whole seconds, minutes or hours read better than a margin's odd fraction.
    span = high - low
    unit = 1 if span < 10 * MINUTE else MINUTE if span < 2 * DAY else HOUR
    return math.floor(low / unit) * unit, math.ceil(high / unit) * unit


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat()


@dataclass(frozen=True)
class Step:
    """A tick step: a fixed number of seconds, or of calendar months."""

    seconds: int
    months: int
    unit: str

    @property
    def approximate(self) -> float:
        return self.months * 30.44 * DAY if self.months else float(self.seconds)


def _steps() -> tuple[Step, ...]:
    fixed = [(s, "second") for s in (1, 2, 5, 10, 15, 30)]
    fixed += [(m * MINUTE, "minute") for m in (1, 2, 5, 10, 15, 30)]
    fixed += [(h * HOUR, "hour") for h in (1, 2, 3, 6, 12)]
    fixed += [(DAY, "day"), (2 * DAY, "day"), (7 * DAY, "week")]
    steps = [Step(seconds, 0, unit) for seconds, unit in fixed]
    steps += [Step(0, months, "month") for months in (1, 2, 3, 6)]
    steps += [Step(0, 12 * years, "year") for years in (1, 2, 5, 10, 20, 50, 100, 200, 500)]
    return tuple(steps)


STEPS = _steps()


def choose_step(span: float, most: int) -> Step:
    """The finest step that puts at most ``most`` ticks on ``span`` seconds."""
    for step in STEPS:
        if span / step.approximate <= max(1, most):
            return step
    return STEPS[-1]


def ticks(start: float, end: float, step: Step, zone: tzinfo) -> list[datetime]:
    """The round instants of ``zone``'s wall clock in [start, end], aware in ``zone``.

    A wall time skipped by a daylight-saving change has no tick; one that occurs twice
    has two. Day and longer ticks are at local midnight.
    """
    try:
        first = datetime.fromtimestamp(start, zone).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return []
    found: dict[float, datetime] = {}
    for wall in _wall_candidates(first, step):
        instants = _instants_of(wall, zone, keep_skipped=step.seconds >= DAY or step.months > 0)
        if not instants:
            continue
        for moment in instants:
            seconds = moment.timestamp()
            if start <= seconds <= end:
                found[seconds] = moment
        if instants[0].timestamp() > end:
            break
    return [found[seconds] for seconds in sorted(found)]


def _wall_candidates(first: datetime, step: Step) -> Iterator[datetime]:
    """Round wall times from the last one at or before ``first``, in order."""
    if step.months:
        index = (first.year * 12 + first.month - 1) // step.months * step.months
        for month in range(index, index + MAX_TICK_CANDIDATES * step.months, step.months):
            if not 1 <= month // 12 <= 9999:
                return
            yield datetime(month // 12, month % 12 + 1, 1)
        return
    midnight = datetime(first.year, first.month, first.day)
    if step.seconds >= DAY:
        days = step.seconds // DAY
        align = midnight.weekday() if step.unit == "week" else midnight.toordinal() % days
        try:
            base = midnight - timedelta(days=align)
        except OverflowError:
            return
    else:
        seconds = int((first - midnight).total_seconds())
        base = midnight + timedelta(seconds=seconds // step.seconds * step.seconds)
    increment = timedelta(seconds=step.seconds)
    for _ in range(MAX_TICK_CANDIDATES):
        yield base
        try:
            base += increment
        except OverflowError:
            return


def _instants_of(wall: datetime, zone: tzinfo, keep_skipped: bool) -> list[datetime]:
    instants: list[datetime] = []
    for fold in (0, 1):
        try:
            moment = wall.replace(tzinfo=zone, fold=fold)
            back = datetime.fromtimestamp(moment.timestamp(), zone)
        except (OverflowError, OSError, ValueError):
            continue
        if back.replace(tzinfo=None) != wall and not (keep_skipped and fold == 0):
            continue
        if all(back.timestamp() != seen.timestamp() for seen in instants):
            instants.append(back)
    return instants


def axis_labels(moments: list[datetime], step: Step) -> list[tuple[str, str]]:
    """(label, context) per tick of the UTC axis; the context (the date, or the year) is
    written only where it changes."""
    labels = []
    previous = ""
    for moment in moments:
        context = _context(moment, step)
        labels.append((_label(moment, step), context if context != previous else ""))
        previous = context
    return labels


def lane_labels(moments: list[datetime], step: Step) -> list[str]:
    """One-line labels on a zone's wall clock: the date where it changes (sub-day steps),
    the zone's abbreviation where it changes (daylight saving)."""
    labels = []
    previous_day: date | None = None
    previous_abbreviation = None
    for moment in moments:
        text = _label(moment, step)
        if step.seconds and step.seconds < DAY and moment.date() != previous_day:
            text = f"{MONTHS[moment.month - 1]} {moment.day} {text}"
        abbreviation = moment.tzname()
        if abbreviation != previous_abbreviation:
            text = f"{text} {abbreviation or ''}".rstrip()
        labels.append(text)
        previous_day, previous_abbreviation = moment.date(), abbreviation
    return labels


def _label(moment: datetime, step: Step) -> str:
    if step.unit == "second":
        return f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    if step.unit in ("minute", "hour"):
        return f"{moment.hour:02d}:{moment.minute:02d}"
    if step.unit in ("day", "week"):
        return f"{MONTHS[moment.month - 1]} {moment.day}"
    if step.unit == "month":
        return MONTHS[moment.month - 1]
    return str(moment.year)


def _context(moment: datetime, step: Step) -> str:
    if step.unit in ("second", "minute", "hour"):
        return f"{WEEKDAYS[moment.weekday()]} {MONTHS[moment.month - 1]} {moment.day} {moment.year}"
    if step.unit == "year":
        return ""
    return str(moment.year)
