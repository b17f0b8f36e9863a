"""The control API's numbers from a JSON body, each checked for its type and its range
before anything is done with it, and refused in the API's own words: a 400
``ValidationException`` naming the field, what it must be, and the value given (a huge one
shortened).

JSON cannot spell NaN or infinity (the body is refused as unparsable), but ``1e400`` is read
as infinity, and a whole number may have hundreds of digits: both are out of range here.
"""

from __future__ import annotations

import math
from typing import Any

from pytest_schedemu.errors import ValidationException

#: The span of a datetime's calendar, from the year 1 to the year 9999, in days: no move can
#: be longer, in any unit.
CALENDAR_DAYS = 3_652_059
#: Seconds in each unit a span may be given in.
UNIT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800}
#: The most failures ``targets/fail`` may be told to make before the target recovers.
MAX_FAILURES = 1_000_000_000


def shown(value: Any) -> str:
    """A value as a refusal shows it: a number with hundreds of digits cut to its ends."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}…{text[-8:]} ({len(text)} characters)"


def most_of(unit: str) -> int:
    """The longest span a field in ``unit`` may give: the calendar's."""
    return CALENDAR_DAYS * UNIT_SECONDS["days"] // UNIT_SECONDS[unit]


def amount(body: dict[str, Any], key: str, unit: str | None = None) -> float:
    """``body[key]``: a number of ``unit`` (``key`` itself if not given), not negative and
    no longer than the calendar."""
    unit = unit or key
    highest = most_of(unit)
    expected = f"a number of {unit} from 0 to {highest}"
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationException(f"{key} must be {expected}, not {shown(value)}")
    if not (isinstance(value, int) or math.isfinite(value)) or not 0 <= value <= highest:
        raise ValidationException(f"{key} {shown(value)} is out of range: {key} must be {expected}")
    return float(value)


def whole(
    body: dict[str, Any], key: str, default: int, lowest: int, highest: int, what: str
) -> int:
    """``body[key]`` (``default`` when absent or null): a whole number of ``what`` from
    ``lowest`` to ``highest``."""
    value = body.get(key)
    if value is None:
        return default
    expected = f"a whole number of {what} from {lowest} to {highest}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationException(f"{key} must be {expected}, not {shown(value)}")
    if not lowest <= value <= highest:
        raise ValidationException(f"{key} {shown(value)} is out of range: {key} must be {expected}")
    return value
