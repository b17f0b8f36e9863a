"""The engine as a tool: the next instants of any expression, and its validation, with no
emulator around it.

Both functions check exactly what CreateSchedule checks of an expression and its zone
(``parse_expression`` and ``resolve_timezone``, the API's own rules), so a refusal carries
the message the service answers. The instants are the nominal times the emulator fires a
schedule at: a schedule created at ``start`` with no StartDate or EndDate.
"""

from __future__ import annotations

from datetime import datetime

from pytest_schedemu.expressions.civil import floor_epoch, to_datetime
from pytest_schedemu.expressions.expression import parse_expression
from pytest_schedemu.expressions.timeline import timeline
from pytest_schedemu.expressions.zones import resolve_timezone
from pytest_schedemu.formats.times import (
    LAST_EPOCH_SECOND,
    Instant,
    to_utc,
    wall_clock_now,
    ztime,
)

#: The most instants one call returns: enough to read years of a daily schedule, few enough
#: that a typo in ``n`` cannot ask for a list that fills the memory.
MAX_OCCURRENCES = 10_000


def validate_expression(expression: str, timezone: str = "UTC") -> None:
    """Refuse what CreateSchedule refuses in ``ScheduleExpression`` and
    ``ScheduleExpressionTimezone``, with AWS's message.

    Raises ``InvalidScheduleExpression`` or ``InvalidTimezone`` (both ``ValueError``). An
    at() in the past passes: whether it has passed depends on when it is created.
    """
    parse_expression(expression)
    resolve_timezone(timezone)


def occurrences(
    expression: str,
    timezone: str = "UTC",
    start: Instant | None = None,
    n: int = 10,
) -> list[datetime]:
    """The first ``n`` instants, at or after ``start``, at which EventBridge Scheduler fires
    ``expression`` in ``timezone``, as aware UTC datetimes.

    ``start`` is an aware datetime or ISO 8601 text with an offset, taken to the whole
    second as a schedule's creation time is; without it, the wall clock's current second
    (this is a tool; nothing in the emulator calls it). A rate() counts from ``start``, as
    one created then with no StartDate does; an at() gives its instant when that is not
    before ``start``. Cron follows the engine's daylight-saving rules: a local time the
    clock skips does not fire, one it shows twice fires once, at its first instant.

    Fewer than ``n`` come back when the expression has no more: an at(), a cron whose years
    end (at the latest in 2199). Raises ``InvalidScheduleExpression`` or ``InvalidTimezone``
    with AWS's message, ``ValueError`` for ``n`` outside 1..MAX_OCCURRENCES, a ``start``
    without an offset, or an instant after the year 9999 in UTC.
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, got {n!r}")
    if not 1 <= n <= MAX_OCCURRENCES:
        raise ValueError(f"n must be between 1 and {MAX_OCCURRENCES}, got {n}")
    created = wall_clock_now() if start is None else to_utc(start, what="start")
    line = timeline(expression, timezone=timezone, created_at=created)
    # A schedule created during a second fires a nominal time of that very second.
    after = floor_epoch(created, "start") - 1
    found: list[datetime] = []
    while len(found) < n:
        nominal = line.next_after_epoch(after)
        if nominal is None:
            break
        if nominal > LAST_EPOCH_SECOND:
            raise ValueError(
                f"{expression}: the instant after the first {len(found)} falls after the "
                "year 9999 in UTC, which a datetime cannot hold"
            )
        found.append(to_datetime(nominal))
        after = nominal
    return found


def occurrence_line(instant: datetime, timezone: str = "UTC") -> str:
    """One line of ``schedemu next``: the instant in UTC, two spaces, then on the zone's
    wall clock with its offset and abbreviation, e.g.
    ``2026-03-09T06:30:00Z  2026-03-09 02:30:00-04:00 EDT``."""
    local = instant.astimezone(resolve_timezone(timezone)).replace(microsecond=0)
    return f"{ztime(instant)}  {local.isoformat(sep=' ')} {local.tzname()}"
