"""Properties of cron timelines over the full AWS syntax, checked against ``oracle``:
occurrences increase strictly, every one matches, and none is skipped, in UTC and in zones
with DST, over short random intervals biased towards transition days."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_schedemu.expressions import CronExpression, parse_expression, timeline

from .oracle import brute_force, local_wall, matches, offset_changes
from .strategies import Case, cron_cases

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)

ZONES = (
    "UTC",
    "Africa/Abidjan",  # UTC all year, through the zoned path
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",  # 30-minute shifts
    "Pacific/Apia",  # skipped 2011-12-30 entirely
    "Asia/Kolkata",
)

# Every offset change of each zone in 2026 and in 2150 (where zoneinfo runs on the zone's
# recurring rule), plus Samoa's skipped day in 2011.
_CHANGES = {
    zone: offset_changes(zone, range(2026, 2027)) + offset_changes(zone, range(2150, 2151))
    for zone in ZONES
}
_CHANGES["Pacific/Apia"] += offset_changes("Pacific/Apia", range(2011, 2012))


# Any second from 1970 to 2200.
_ANYWHERE = st.integers(0, 7258118400)


def _starts(zone: str) -> st.SearchStrategy[int]:
    """Mostly within a day before one of the zone's offset changes, else anywhere."""
    if not _CHANGES[zone]:
        return _ANYWHERE
    near = st.sampled_from(_CHANGES[zone]).flatmap(lambda at: st.integers(at - 86400, at))
    return st.one_of(near, near, _ANYWHERE)


_ZONES_AND_STARTS = st.sampled_from(ZONES).flatmap(
    lambda zone: st.tuples(st.just(zone), _starts(zone))
)
_LENGTHS = st.integers(0, 2 * 86400)
# Dense cases fire on most days; the others exercise every field.
_CASES = st.one_of(cron_cases(dense=True), cron_cases())

# As many examples as the Hypothesis profile says (tests/conftest.py), the same ones each run.
_SETTINGS = settings(
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def parsed(case: Case) -> CronExpression:
    expression = parse_expression(case.aws)
    assert isinstance(expression, CronExpression)
    return expression


@_SETTINGS
@given(_CASES, _ZONES_AND_STARTS, st.booleans(), _LENGTHS, _LENGTHS)
def test_between_finds_exactly_the_brute_force_occurrences(
    case: Case, zone_and_start: tuple[str, int], near_one: bool, lead: int, length: int
) -> None:
    zone, start = zone_and_start
    line = timeline(case.aws, timezone=zone, created_at=CREATED)
    first = line.next_after_epoch(start)
    if near_one and first is not None:
        # Rare expressions seldom fire in a random short interval; cover one of theirs.
        start = first - lead % (length + 1)
    end = start + length + 1
    assert list(line.between_epochs(start, end)) == brute_force(parsed(case), zone, start, end)


@_SETTINGS
@given(_CASES, _ZONES_AND_STARTS)
def test_next_after_chain_increases_strictly_and_agrees_with_between(
    case: Case, zone_and_start: tuple[str, int]
) -> None:
    zone, start = zone_and_start
    line = timeline(case.aws, timezone=zone, created_at=CREATED)
    chained: list[int] = []
    after = start
    while len(chained) < 50:
        following = line.next_after_epoch(after)
        if following is None:
            break
        assert following > after
        chained.append(following)
        after = following
    if chained:
        assert list(line.between_epochs(start + 1, chained[-1] + 1)) == chained


@_SETTINGS
@given(_CASES, _ZONES_AND_STARTS)
def test_every_occurrence_matches_the_expression_on_the_local_wall_clock(
    case: Case, zone_and_start: tuple[str, int]
) -> None:
    zone, start = zone_and_start
    from zoneinfo import ZoneInfo

    line = timeline(case.aws, timezone=zone, created_at=CREATED)
    expression = parsed(case)
    local = ZoneInfo(zone)
    after = start
    for _ in range(20):
        following = line.next_after_epoch(after)
        if following is None:
            break
        assert matches(expression, local_wall(following, local)), (case, following)
        after = following


@_SETTINGS
@given(_CASES, _ANYWHERE)
def test_utc_fast_path_equals_the_zoned_path_of_a_zone_that_is_always_utc(
    case: Case, start: int
) -> None:
    fast = timeline(case.aws, timezone="UTC", created_at=CREATED)
    zoned = timeline(case.aws, timezone="Africa/Abidjan", created_at=CREATED)
    week = start + 7 * 86400
    assert list(fast.between_epochs(start, week)) == list(zoned.between_epochs(start, week))
    assert fast.next_after_epoch(start) == zoned.next_after_epoch(start)


@_SETTINGS
@given(
    st.integers(1, 10**6),
    st.sampled_from(["minute", "hour", "day"]),
    st.integers(-(10**10), 10**10),
    st.integers(-(10**10), 10**10),
)
def test_rate_closed_form_matches_stepping_from_the_anchor(
    value: int, unit: str, anchor: int, x: int
) -> None:
    created = datetime.fromtimestamp(anchor, UTC)
    line = timeline(f"rate({value} {unit})", created_at=created)
    period = value * {"minute": 60, "hour": 3600, "day": 86400}[unit]
    found = line.next_after_epoch(x)
    assert found is not None
    assert found > x and (found - anchor) % period == 0 and found >= anchor
    assert found == anchor or found - period <= x
