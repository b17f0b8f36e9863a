"""Time helpers shared by every part of the emulator: conversions, formats, parsing.

The dispatcher counts in whole epoch seconds (integers compare and hash faster than
datetimes, and nominal times are whole seconds by definition); everything a user sees is an
aware UTC datetime. The conversions between the two, and the formats AWS uses on the wire,
live here once.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Union

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
_MILLISECOND = timedelta(milliseconds=1)

#: The last whole second a datetime can hold, in epoch seconds: later instants are ones the
#: clock can never reach.
LAST_EPOCH_SECOND = (datetime.max.replace(tzinfo=UTC) - EPOCH) // _SECOND

#: A time a user gives: an aware datetime or ISO 8601 text with an offset.
Instant = Union[str, datetime]

#: A nominal time inside the dispatcher: an aware datetime or whole epoch seconds.
Moment = Union[datetime, int]


def to_utc(value: Instant, *, what: str = "time") -> datetime:
    """An aware UTC datetime from an aware datetime or an ISO-8601 string with an offset."""
    # A refusal shows what the caller wrote, not the datetime it was parsed into.
    given = value
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"Unsupported {what} {value!r}: expected ISO 8601 such as '2026-03-01T08:00:00Z'"
            ) from None
        value = parsed
    elif not isinstance(value, datetime):
        raise TypeError(
            f"Unsupported {what} {value!r}: expected an aware datetime or an ISO 8601 string"
        )
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            f"Unsupported {what} {given!r}: it has no time zone; add one, e.g. 'Z' or +00:00"
        )
    try:
        return value.astimezone(UTC)
    except OverflowError:
        # 9999-12-31T23:59:59-01:00 is a valid local time whose UTC instant a datetime
        # cannot hold.
        raise ValueError(
            f"Unsupported {what} {value.isoformat()!r}: in UTC it falls after the year 9999"
        ) from None


def wall_clock_now() -> datetime:
    """The real time, whole seconds: the default start of a virtual clock."""
    return datetime.now(UTC).replace(microsecond=0)


def from_epoch(seconds: int) -> datetime:
    """The aware UTC datetime of whole epoch seconds."""
    # Positional (days, seconds): a third of the cost of the keyword, on a hot path.
    return EPOCH + timedelta(0, seconds)


def to_epoch(instant: datetime) -> float:
    """Epoch seconds of an aware datetime, with its fraction."""
    return (instant - EPOCH).total_seconds()


def floor_epoch(instant: datetime) -> int:
    """Whole epoch seconds of an aware datetime, rounded down."""
    return (instant - EPOCH) // _SECOND


def ztime(moment: Moment) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ``: UTC, whole seconds (sub-seconds are dropped)."""
    # Naive UTC values and isoformat() take half the time of strftime on an aware value, and
    # this runs on every attempt.
    if isinstance(moment, datetime):
        if moment.tzinfo is None or moment.utcoffset() is None:
            # astimezone() would read a naive value as local time and shift it silently.
            raise ValueError(f"Unsupported naive datetime {moment!r}: expected an aware datetime")
        naive = moment.astimezone(UTC).replace(tzinfo=None, microsecond=0)
    else:
        naive = _NAIVE_EPOCH + timedelta(seconds=moment)
    return naive.isoformat() + "Z"


def epoch_number(instant: datetime) -> float:
    """A timestamp as AWS renders it in JSON: epoch seconds with at most three decimals."""
    return ((instant - EPOCH) // _MILLISECOND) / 1000


def truncate_to_ms(instant: datetime) -> datetime:
    """``instant`` without its sub-millisecond part, the precision AWS keeps."""
    return instant.replace(microsecond=instant.microsecond // 1000 * 1000)
