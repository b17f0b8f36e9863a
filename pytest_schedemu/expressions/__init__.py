"""The schedule expression engine: parsing ``at()``, ``rate()`` and ``cron()`` (§4) and
computing their nominal times in a time zone, DST rules included (§4.6-§4.8).

::

    expr = parse_expression("cron(0 9 ? * MON-FRI *)")
    line = timeline(expr, timezone="Europe/London", created_at=now)
    line.next_after(now)            # aware UTC datetime, or None
    line.next_after_epoch(1772352000)   # the same on integer epoch seconds
"""

from pytest_schedemu.errors import InvalidScheduleExpression, InvalidTimezone
from pytest_schedemu.expressions.at import AtExpression
from pytest_schedemu.expressions.cron import CronExpression
from pytest_schedemu.expressions.expression import Expression, parse_expression
from pytest_schedemu.expressions.rate import RateExpression
from pytest_schedemu.expressions.timeline import Timeline, timeline
from pytest_schedemu.expressions.zones import resolve_timezone

__all__ = [
    "AtExpression",
    "CronExpression",
    "Expression",
    "InvalidScheduleExpression",
    "InvalidTimezone",
    "RateExpression",
    "Timeline",
    "parse_expression",
    "resolve_timezone",
    "timeline",
]
