"""§4.2 / §4.6 at(): one instant, read in the zone, blind to StartDate and EndDate."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from pytest_schedemu.expressions import timeline

from .oracle import at

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def instant_of(expression: str, zone: str = "UTC") -> datetime | None:
    return timeline(expression, timezone=zone, created_at=CREATED).next_after(at(1970, 1, 1))


def test_at_in_utc_is_that_instant() -> None:
    assert instant_of("at(2030-01-01T00:00:00)") == at(2030, 1, 1)


def test_at_is_read_in_the_schedule_zone() -> None:
    # Tokyo is UTC+9 all year.
    assert instant_of("at(2026-06-01T09:00)", "Asia/Tokyo") == at(2026, 6, 1, 0, 0)


def test_at_next_after_its_own_instant_is_none() -> None:
    line = timeline("at(2030-01-01T00:00:00)", created_at=CREATED)
    assert line.next_after(at(2029, 12, 31, 23, 59, 59)) == at(2030, 1, 1)
    assert line.next_after(at(2030, 1, 1)) is None


def test_at_is_not_recurring() -> None:
    assert not timeline("at(2030-01-01T00:00:00)", created_at=CREATED).recurring


def test_at_ignores_start_and_end_dates() -> None:
    line = timeline(
        "at(2030-01-01T00:00:00)",
        start_date=at(2031, 1, 1),
        end_date=at(2029, 1, 1),
        created_at=CREATED,
    )
    assert line.next_after(at(2026, 1, 1)) == at(2030, 1, 1)
    assert list(line.between(at(2026, 1, 1), at(2040, 1, 1))) == [at(2030, 1, 1)]


def test_at_in_the_past_is_still_its_instant() -> None:
    # The dispatcher decides what a past at() does; the timeline only knows when it was.
    assert instant_of("at(2022-12-31T23:59:59)") == at(2022, 12, 31, 23, 59, 59)


def test_at_between_is_start_inclusive_end_exclusive() -> None:
    line = timeline("at(2030-01-01T00:00:00)", created_at=CREATED)
    assert list(line.between(at(2030, 1, 1), at(2030, 1, 2))) == [at(2030, 1, 1)]
    assert list(line.between(at(2029, 1, 1), at(2030, 1, 1))) == []


def test_at_at_the_dispatcher_sentinel_is_found() -> None:
    line = timeline("at(2030-01-01T00:00:00)", created_at=CREATED)
    assert line.next_after_epoch(-(1 << 62)) == int(at(2030, 1, 1).timestamp())


def test_at_before_1970_utc_in_an_eastern_zone_is_a_negative_epoch() -> None:
    # Midnight on 1970-01-01 in Tokyo (UTC+9) is 15:00Z the day before.
    line = timeline("at(1970-01-01T00:00)", timezone="Asia/Tokyo", created_at=CREATED)
    assert line.next_after_epoch(-(1 << 62)) == -9 * 3600


def test_at_in_year_9999_west_of_utc_overflows_only_as_a_datetime() -> None:
    line = timeline("at(9999-12-31T23:00)", timezone="America/New_York", created_at=CREATED)
    # 23:00 EST is 04:00Z on 10000-01-01, past datetime.max.
    assert line.next_after_epoch(0) == int(at(9999, 12, 31, 23).timestamp()) + 5 * 3600
    with pytest.raises(OverflowError, match="outside the years datetime can represent"):
        line.next_after(at(1970, 1, 1))


@pytest.mark.parametrize(
    ("expression", "zone", "expected"),
    [
        # Spring forward: 02:30 does not exist on 2026-03-08 in New York. fold=0 keeps EST
        # (UTC-5), so 07:30Z, which New York shows as 03:30 EDT.
        ("at(2026-03-08T02:30:00)", "America/New_York", at(2026, 3, 8, 7, 30)),
        # Europe/London skips 01:00-02:00 GMT on 2026-03-29: 01:30 GMT is 01:30Z.
        ("at(2026-03-29T01:30)", "Europe/London", at(2026, 3, 29, 1, 30)),
        # Lord Howe skips 02:00-02:30 on 2026-10-04; 02:15 at +10:30 is 15:45Z on the 3rd.
        ("at(2026-10-04T02:15)", "Australia/Lord_Howe", at(2026, 10, 3, 15, 45)),
    ],
)
def test_at_in_a_dst_gap_moves_forward_by_the_gap(
    expression: str, zone: str, expected: datetime
) -> None:
    assert instant_of(expression, zone) == expected


@pytest.mark.parametrize(
    ("expression", "zone", "expected"),
    [
        # Fall back: 01:30 happens at 05:30Z (EDT) and 06:30Z (EST); the first wins.
        ("at(2026-11-01T01:30:00)", "America/New_York", at(2026, 11, 1, 5, 30)),
        # London repeats 01:00-02:00 on 2026-10-25: 01:30 BST is 00:30Z.
        ("at(2026-10-25T01:30)", "Europe/London", at(2026, 10, 25, 0, 30)),
        # Lord Howe repeats 01:30-02:00 on 2026-04-05: 01:45 at +11:00 is 14:45Z on the 4th.
        ("at(2026-04-05T01:45)", "Australia/Lord_Howe", at(2026, 4, 4, 14, 45)),
    ],
)
def test_at_at_an_ambiguous_time_takes_the_first_instant(
    expression: str, zone: str, expected: datetime
) -> None:
    assert instant_of(expression, zone) == expected
