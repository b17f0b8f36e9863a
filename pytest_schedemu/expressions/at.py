"""``at(yyyy-mm-ddThh:mm[:ss])``: one wall-clock moment in the schedule's time zone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Literal

from pytest_schedemu.errors import InvalidScheduleExpression

# [0-9] rather than \d: \d would also take other scripts' digits.
_AT = re.compile(
    r"[aA][tT]\(([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?\)"
)

# The same first year as cron; the last is datetime's own, 9999.
_FIRST_YEAR = 1970


@dataclass(frozen=True)
class AtExpression:
    """A one-time schedule. ``wall`` is naive: it is read in the schedule's time zone."""

    text: str
    wall: datetime

    kind: ClassVar[Literal["at"]] = "at"
    recurring: ClassVar[bool] = False


def parse_at(text: str) -> AtExpression:
    match = _AT.fullmatch(text)
    if match is None:
        raise InvalidScheduleExpression(text)
    year, month, day, hour, minute = (int(group) for group in match.groups()[:5])
    second = int(match.group(6) or 0)
    if year < _FIRST_YEAR:
        raise InvalidScheduleExpression(text)
    try:
        # datetime checks the calendar: month lengths, leap years, 0-23 / 0-59 ranges.
        wall = datetime(year, month, day, hour, minute, second)
    except ValueError:
        raise InvalidScheduleExpression(text) from None
    return AtExpression(text, wall)
