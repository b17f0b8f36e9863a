"""§4.5 zone names, and the engine's per-day zone arithmetic checked against zoneinfo."""

from __future__ import annotations

import importlib
import zoneinfo
from datetime import datetime, timedelta, timezone

import pytest

from pytest_schedemu.expressions import InvalidTimezone, resolve_timezone
from pytest_schedemu.expressions.zones import UTC_NAMES, ZoneCalendar

from .oracle import epoch

UTC = timezone.utc
_YEAR_1970 = 0
_YEAR_2040 = int(datetime(2040, 1, 1, tzinfo=UTC).timestamp())
_YEAR_2200 = int(datetime(2200, 1, 1, tzinfo=UTC).timestamp())


@pytest.mark.parametrize(
    "name",
    [
        "UTC",
        "Etc/UTC",
        "America/New_York",
        "Europe/London",
        "Australia/Lord_Howe",
        "Asia/Kolkata",
        "US/Eastern",  # backward-compatible links are IANA names too
        "Asia/Calcutta",
        "Etc/GMT+3",  # POSIX-style sign: three hours west of UTC
        "EST5EDT",
    ],
)
def test_iana_names_are_valid(name: str) -> None:
    assert resolve_timezone(name).key == name


@pytest.mark.parametrize(
    "name",
    [
        "utc",  # names are case-sensitive
        "america/new_york",
        "AMERICA/NEW_YORK",
        "+02:00",  # fixed offsets are not zone names
        "-0500",
        "UTC+3",
        "GMT+3",
        "Z",
        "",
        " UTC",
        "UTC ",
        "Europe/Londres",
        "America/New York",
        "localtime",  # a file of the host's zoneinfo folder, not an IANA name
        "posixrules",
    ],
)
def test_other_names_are_invalid(name: str) -> None:
    with pytest.raises(InvalidTimezone) as caught:
        resolve_timezone(name)
    assert caught.value.timezone == name


def test_the_utc_fast_path_only_covers_zones_that_are_always_utc() -> None:
    # The fast path skips all conversion, so it must never meet an offset.
    instants = range(_YEAR_1970, _YEAR_2200, 86400 * 97)
    for name in UTC_NAMES:
        zone = resolve_timezone(name)
        for instant in instants:
            local = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=instant)).astimezone(zone)
            assert local.utcoffset() == timedelta(0), name


def _transitions(name: str) -> list[tuple[int, int, int]]:
    """(instant, offset before, offset after) of every offset change from 1970 to 2200.

    The engine never needs transitions, so only this test reads them, from the pure-Python
    zoneinfo's internals: explicit ones, then the zone's recurring POSIX rule.
    """
    pure = importlib.import_module("zoneinfo._zoneinfo")
    zone = pure.ZoneInfo.no_cache(name)
    offsets = [info.utcoff // timedelta(seconds=1) for info in zone._ttinfos]
    changes: list[tuple[int, int]] = list(zip(zone._trans_utc, offsets))
    rule = zone._tz_after
    if isinstance(rule, pure._TZStr):
        standard = rule.std.utcoff // timedelta(seconds=1)
        summer = rule.dst.utcoff // timedelta(seconds=1)
        last = changes[-1][0] if changes else _YEAR_1970
        for year in range(1970, 2201):
            start, end = rule.transitions(year)
            for instant, offset in sorted([(start - standard, summer), (end - summer, standard)]):
                if instant > last:
                    changes.append((instant, offset))
    before = (
        zone._tti_before.utcoff // timedelta(seconds=1)
        if zone._tti_before is not None
        else offsets[0]
    )
    result = []
    for instant, offset in changes:
        if offset != before and _YEAR_1970 - 5 * 86400 <= instant < _YEAR_2200:
            result.append((instant, before, offset))
        before = offset
    return result


def _internals_available() -> bool:
    try:
        _transitions("America/New_York")
    except (ImportError, AttributeError):
        return False
    return True


needs_internals = pytest.mark.skipif(
    not _internals_available(), reason="this Python's pure-Python zoneinfo differs"
)


@needs_internals
def test_every_zone_changes_offset_at_most_once_in_any_four_days() -> None:
    # zones.py classifies each local day by assuming at most one change touches it.
    closest = min(
        (later[0] - earlier[0], name)
        for name in sorted(zoneinfo.available_timezones())
        for earlier, later in zip(_transitions(name), _transitions(name)[1:])
    )
    assert closest[0] > 4 * 86400, closest


def _first_instant(zone: zoneinfo.ZoneInfo, wall: int) -> int | None:
    """§4.6 steps 2-4 straight from zoneinfo."""
    naive = datetime(1970, 1, 1) + timedelta(seconds=wall)
    aware = naive.replace(tzinfo=zone)
    if aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        return None
    return epoch(aware)


def _local(zone: zoneinfo.ZoneInfo, instant: int) -> int:
    local = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=instant)).astimezone(zone)
    return epoch(local.replace(tzinfo=UTC))


@needs_internals
def test_wall_and_instant_mapping_matches_zoneinfo_around_transitions_in_every_zone() -> None:
    for name in sorted(zoneinfo.available_timezones()):
        zone = zoneinfo.ZoneInfo(name)
        calendar = ZoneCalendar(zone)
        changes = [change for change in _transitions(name) if change[0] < _YEAR_2040]
        for at, before, after in changes[:: max(1, len(changes) // 6)]:
            low, high = at + min(before, after), at + max(before, after)
            walls = [low - 1, low, high - 1, high, *range(low - 7200, high + 7200, 600)]
            for wall in walls:
                assert calendar.to_instant(wall) == _first_instant(zone, wall), (name, wall)
            for instant in (at - 3601, at - 1, at, at + 1, at + 3600):
                assert calendar.to_local(instant) == _local(zone, instant), (name, instant)
