"""Words in the picture: escaping that accepts any string, and how instants are written."""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo

# Zones that are UTC all year round: a lane in one needs no second clock.
from pytest_schedemu.expressions.zones import UTC_NAMES

# Everything XML 1.0 cannot carry, lone surrogates included: payloads are arbitrary text,
# and one such character would make the whole document unreadable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SPACES = re.compile(r"\s+")

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def escape(value: object) -> str:
    """``value`` as text safe inside an XML element or a double-quoted attribute."""
    text = _NOT_XML.sub("\ufffd", value if isinstance(value, str) else str(value))
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def excerpt(value: object, limit: int) -> str:
    """At most ``limit`` characters of ``value`` on one line, with an ellipsis when cut."""
    text = _SPACES.sub(" ", value if isinstance(value, str) else str(value)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def epoch(moment: datetime) -> float:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _stamp(moment: datetime) -> str:
    """``2026-03-08 14:00:00`` (with milliseconds when there are any), C-speed."""
    if moment.microsecond:
        return moment.isoformat(" ", "milliseconds")[:23]
    return moment.isoformat(" ", "seconds")[:19]


def utc_text(moment: datetime) -> str:
    """``2026-03-08 14:00:00Z``."""
    return _stamp(as_utc(moment)) + "Z"


def instant_text(moment: datetime, zone: tzinfo | None, zone_name: str) -> str:
    """The instant in UTC and, when the zone is another, on that zone's wall clock.

    ``2026-03-08 14:00:00Z · 10:00:00 EDT America/New_York`` (the local date is added
    when it differs from the UTC one).
    """
    if moment.tzinfo is not timezone.utc:
        moment = as_utc(moment)
    text = _stamp(moment)
    if zone is None or zone_name in UTC_NAMES:
        return text + "Z"
    local = moment.astimezone(zone)
    wall = _stamp(local)
    shown = wall[11:] if wall[:10] == text[:10] else wall
    return f"{text}Z · {shown} {local.tzname() or ''} {zone_name}".replace("  ", " ")


def duration_text(seconds: float) -> str:
    """``+7m12s``, ``2h``, ``3d4h``: a short, exact-enough length of time."""
    whole = round(abs(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")]
    shown = [f"{n}{unit}" for n, unit in parts if n][:2]
    return "".join(shown) if shown else "0s"
