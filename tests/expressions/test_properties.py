"""Properties of cron timelines over the full AWS syntax, checked against ``oracle``:
occurrences increase strictly, every one matches, and none is skipped, in UTC and in zones
with DST, over short random intervals biased towards transition days."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_schedemu.expressions import CronExpression, parse_expression, timeline

from .oracle import brute_force, local_wall, matches
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

# Days with a transition somewhere, so intervals often contain one.
_AROUND = [
    int(datetime(*day, tzinfo=UTC).timestamp())  # type: ignore[misc]
    for day in [
        (2026, 3, 8),
        (2026, 11, 1),
        (2026, 3, 29),
        (2026, 10, 25),
        (2026, 4, 4),
        (2026, 10, 3),
        (2011, 12, 29),
        (2044, 3, 13),
        (2150, 10, 25),
        (2199, 12, 30),
    ]
]
_STARTS = st.one_of(
    st.sampled_from(_AROUND).flatmap(lambda day: st.integers(day - 86400, day + 86400)),
    st.integers(0, 7258118400),
)
_LENGTHS = st.integers(0, 2 * 86400)

_SETTINGS = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def parsed(case: Case) -> CronExpression:
    expression = parse_expression(case.aws)
    assert isinstance(expression, CronExpression)
    return expression


@_SETTINGS
@given(cron_cases(), st.sampled_from(ZONES), _STARTS, _LENGTHS)
def test_between_finds_exactly_the_brute_force_occurrences(
    case: Case, zone: str, start: int, length: int
) -> None:
    line = timeline(case.aws, timezone=zone, created_at=CREATED)
    expected = brute_force(parsed(case), zone, start, start + length)
    assert list(line.between_epochs(start, start + length)) == expected


@_SETTINGS
@given(cron_cases(), st.sampled_from(ZONES), _STARTS)
def test_next_after_chain_increases_strictly_and_agrees_with_between(
    case: Case, zone: str, start: int
) -> None:
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
@given(cron_cases(), st.sampled_from(ZONES), _STARTS)
def test_every_occurrence_matches_the_expression_on_the_local_wall_clock(
    case: Case, zone: str, start: int
) -> None:
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
@given(cron_cases(), _STARTS)
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
    created = datetime(1970, 1, 1, tzinfo=UTC).fromtimestamp(anchor, UTC)
    line = timeline(f"rate({value} {unit})", created_at=created)
    period = value * {"minute": 60, "hour": 3600, "day": 86400}[unit]
    found = line.next_after_epoch(x)
    assert found is not None
    assert found > x and (found - anchor) % period == 0 and found >= anchor
    assert found == anchor or found - period <= x
