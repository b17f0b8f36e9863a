"""Time zones: validating names, and mapping between instants and a zone's wall clock.

Converting every candidate minute through zoneinfo would dominate the cost of a cron
search. Instead each *local day* (a day of the zone's wall clock, as an epoch-day number)
is classified once:

* most days have one UTC offset for the whole day, and every wall second ``w`` of the day
  is the instant ``w - offset``;
* a day touched by a transition keeps the transition instant and the offsets on either
  side, which decides for each wall time whether it is skipped (a spring-forward gap), or
  ambiguous (a fall-back overlap, where the first instant wins).

This relies on a property of the tz database that a test checks for every zone: from 1970
to 2200 two offset changes are always several days apart, so no local day sees more than
one.
"""

from __future__ import annotations

import importlib.resources
import zoneinfo
from datetime import timedelta
from functools import cache, lru_cache
from typing import NamedTuple, Union

from pytest_schedemu.errors import InvalidTimezone
from pytest_schedemu.expressions.civil import (
    EPOCH,
    SECONDS_PER_DAY,
    naive_wall,
)

# Zones that are UTC all year round: cron in them needs no conversion at all.
UTC_NAMES = frozenset(
    {
        "UTC",
        "Etc/UTC",
        "Etc/UCT",
        "UCT",
        "Etc/Universal",
        "Universal",
        "Etc/Zulu",
        "Zulu",
        "GMT",
        "Etc/GMT",
        "Etc/GMT0",
        "Etc/GMT+0",
        "Etc/GMT-0",
        "GMT0",
        "GMT+0",
        "GMT-0",
        "Greenwich",
        "Etc/Greenwich",
    }
)


@cache
def _zone_names() -> frozenset[str]:
    # The names the tzdata package lists, the same on every platform; available_timezones()
    # would add whatever the host's zoneinfo folder holds, such as "localtime".
    try:
        listing = importlib.resources.files("tzdata").joinpath("zones").read_text("utf-8")
    except (ImportError, OSError):
        return frozenset(zoneinfo.available_timezones())
    return frozenset(listing.split())


def resolve_timezone(name: str) -> zoneinfo.ZoneInfo:
    """The zone of an IANA name, compared case-sensitively; fixed offsets are refused."""
    if not isinstance(name, str) or name not in _zone_names():
        raise InvalidTimezone(name)
    return zoneinfo.ZoneInfo(name)


class Transition(NamedTuple):
    """An offset change seen by one local day: at instant ``at``, ``before`` -> ``after``."""

    at: int
    before: int
    after: int


LocalDay = Union[int, Transition]


class ZoneCalendar:
    """Instant <-> wall-clock arithmetic for one zone, on whole seconds."""

    __slots__ = ("_days", "_offsets", "_zone")

    def __init__(self, zone: zoneinfo.ZoneInfo) -> None:
        self._zone = zone
        self._days: dict[int, LocalDay] = {}
        # Most days share a handful of offsets; one int object per offset keeps the
        # day cache small.
        self._offsets: dict[int, int] = {}

    def day(self, day: int) -> LocalDay:
        """The offset of a local day that has a single one, else its transition."""
        found = self._days.get(day)
        if found is None:
            found = self._classify(day)
            self._days[day] = found
        return found

    def to_local(self, instant: int) -> int:
        """The wall-clock second of an instant."""
        utc_day = instant // SECONDS_PER_DAY
        # Offsets stay within a day of UTC, so the local day is one of three.
        for day in (utc_day, utc_day - 1):
            wall = instant + _offset_at(self.day(day), instant)
            if day * SECONDS_PER_DAY <= wall < (day + 1) * SECONDS_PER_DAY:
                return wall
        return instant + _offset_at(self.day(utc_day + 1), instant)

    def to_instant(self, wall: int) -> int | None:
        """The first instant showing a wall-clock second, or None if the clock skips it."""
        info = self.day(wall // SECONDS_PER_DAY)
        if isinstance(info, int):
            return wall - info
        return transition_instant(info, wall)

    def _classify(self, day: int) -> LocalDay:
        start = day * SECONDS_PER_DAY
        end = start + SECONDS_PER_DAY - 1
        # fold=0 and fold=1 differ exactly inside a gap or an overlap (PEP 495).
        before = self._wall_offset(start, 0)
        after = self._wall_offset(end, 1)
        if before == after == self._wall_offset(start, 1) == self._wall_offset(end, 0):
            return self._offsets.setdefault(before, before)
        # The change lies between the first instant of the day's first second and the
        # last instant of its last second; find it to the second.
        low = start - max(before, after)
        high = end - min(before, after) + 1
        while high - low > 1:
            middle = (low + high) // 2
            if self._instant_offset(middle) == before:
                low = middle
            else:
                high = middle
        return Transition(high, before, after)

    def _wall_offset(self, wall: int, fold: int) -> int:
        offset = naive_wall(wall).replace(tzinfo=self._zone, fold=fold).utcoffset()
        assert offset is not None
        return offset // timedelta(seconds=1)

    def _instant_offset(self, instant: int) -> int:
        local = (EPOCH + timedelta(seconds=instant)).astimezone(self._zone)
        offset = local.utcoffset()
        assert offset is not None
        return offset // timedelta(seconds=1)


def _offset_at(info: LocalDay, instant: int) -> int:
    if isinstance(info, int):
        return info
    return info.before if instant < info.at else info.after


def transition_instant(transition: Transition, wall: int) -> int | None:
    """§4.6 on a transition day: gap walls are skipped, overlap walls take the first instant."""
    instant = wall - transition.before
    if instant < transition.at:
        return instant
    instant = wall - transition.after
    if instant >= transition.at:
        return instant
    return None


@lru_cache(maxsize=256)
def zone_calendar(name: str) -> ZoneCalendar:
    """The shared calendar of a zone, so its day cache serves every schedule in the zone."""
    return ZoneCalendar(resolve_timezone(name))
