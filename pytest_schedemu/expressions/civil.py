"""Calendar arithmetic on integer epoch seconds, days and months.

Cron occurrences are computed on plain integers: a *day* is a count of days since
1970-01-01 and a *month index* counts months from January 1970. Two tables cover 1970 to
2199, so that turning a day into its month, or a month into its first day and length, is
a lookup rather than calendar arithmetic.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

FIRST_YEAR = 1970
LAST_YEAR = 2199
MONTH_COUNT = (LAST_YEAR - FIRST_YEAR + 1) * 12

SECONDS_PER_DAY = 86400
MINUTES_PER_DAY = 1440

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NAIVE_EPOCH = datetime(1970, 1, 1)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()

# MONTH_STARTS[i] is the day of the 1st of month index i; the extra last entry (January
# 2200) closes the final month, so MONTH_STARTS[i + 1] - MONTH_STARTS[i] is its length.
MONTH_STARTS: tuple[int, ...] = tuple(
    date(FIRST_YEAR + i // 12, i % 12 + 1, 1).toordinal() - _EPOCH_ORDINAL
    for i in range(MONTH_COUNT + 1)
)

FIRST_DAY = MONTH_STARTS[0]
END_DAY = MONTH_STARTS[-1]

# MONTH_OF_DAY[day - FIRST_DAY] is the month index of a day: the cron search's hottest
# lookup, so a flat tuple (whose entries share one int object per month) beats a bisect.
MONTH_OF_DAY: tuple[int, ...] = tuple(
    index
    for index in range(MONTH_COUNT)
    for _ in range(MONTH_STARTS[index + 1] - MONTH_STARTS[index])
)


def month_index(year: int, month: int) -> int:
    return (year - FIRST_YEAR) * 12 + month - 1


def aws_weekday(day: int) -> int:
    """1 = Sunday ... 7 = Saturday, the numbering of cron's day-of-week field."""
    # 1970-01-01 was a Thursday, which is 5 in that numbering.
    return (day + 4) % 7 + 1


def _since_epoch(instant: datetime, name: str) -> timedelta:
    # Subtracting an aware datetime from a naive one (or anything else) is a TypeError
    # already; it only needs a clearer message.
    try:
        return instant - EPOCH
    except TypeError:
        raise TypeError(
            f"{name} must be a timezone-aware datetime, got {instant!r}; "
            "attach a zone, e.g. .replace(tzinfo=timezone.utc)"
        ) from None


def floor_epoch(instant: datetime, name: str) -> int:
    """Whole epoch seconds at or before an aware instant."""
    delta = _since_epoch(instant, name)
    # timedelta keeps microseconds non-negative, so days/seconds already round down.
    return delta.days * SECONDS_PER_DAY + delta.seconds


def ceil_epoch(instant: datetime, name: str) -> int:
    """Whole epoch seconds at or after an aware instant."""
    delta = _since_epoch(instant, name)
    return delta.days * SECONDS_PER_DAY + delta.seconds + (1 if delta.microseconds else 0)


def to_datetime(seconds: int) -> datetime:
    """The aware UTC datetime of whole epoch seconds."""
    # Positional (days, seconds) measured about twice as fast as timedelta(seconds=...)
    # for present-day epochs, and this conversion is on every datetime answer.
    days, rest = divmod(seconds, SECONDS_PER_DAY)
    try:
        return EPOCH + timedelta(days, rest)
    except OverflowError:
        raise OverflowError(
            f"epoch second {seconds} lies outside the years datetime can represent"
        ) from None


def naive_wall(seconds: int) -> datetime:
    """The naive wall-clock datetime of whole seconds counted on a zone's own clock."""
    return NAIVE_EPOCH + timedelta(seconds=seconds)
