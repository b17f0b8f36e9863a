"""``rate(<value> <unit>)``: a fixed period of elapsed time, blind to time zones."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal

from pytest_schedemu.errors import InvalidScheduleExpression

# Scheduler, unlike EventBridge rules, does not check singular against plural.
_RATE = re.compile(r"rate\(([0-9]+) +(minutes?|hours?|days?)\)", re.IGNORECASE | re.ASCII)

_UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}


@dataclass(frozen=True)
class RateExpression:
    """A recurring schedule every ``value`` units; ``unit`` is minute, hour or day."""

    text: str
    value: int
    unit: Literal["minute", "hour", "day"]

    kind: ClassVar[Literal["rate"]] = "rate"
    recurring: ClassVar[bool] = True

    @property
    def period_seconds(self) -> int:
        # A day is always 86400 s of elapsed time, whatever DST does to the wall clock.
        return self.value * _UNIT_SECONDS[self.unit]


def parse_rate(text: str) -> RateExpression:
    match = _RATE.fullmatch(text)
    if match is None:
        raise InvalidScheduleExpression(text)
    value = int(match.group(1))
    if value < 1:
        raise InvalidScheduleExpression(text)
    unit = match.group(2).lower().rstrip("s")
    if unit == "minute":
        return RateExpression(text, value, "minute")
    if unit == "hour":
        return RateExpression(text, value, "hour")
    return RateExpression(text, value, "day")
