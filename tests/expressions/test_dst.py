"""§4.6 cron across DST: skipped wall times are skipped, repeated ones fire once, first.

2026 transitions used below (from the tz database):

  America/New_York     Mar 8   02:00 EST -> 03:00 EDT     at 07:00Z
                       Nov 1   02:00 EDT -> 01:00 EST     at 06:00Z
  America/Los_Angeles  Mar 8   02:00 PST -> 03:00 PDT     at 10:00Z
  Europe/London        Mar 29  01:00 GMT -> 02:00 BST     at 01:00Z
                       Oct 25  02:00 BST -> 01:00 GMT     at 01:00Z
  Australia/Lord_Howe  Apr 5   02:00 +11 -> 01:30 +10:30  at 15:00Z on Apr 4
                       Oct 4   02:00 +10:30 -> 02:30 +11  at 15:30Z on Oct 3
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

import pytest

from pytest_schedemu.expressions import timeline

from .oracle import at

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def fires(expression: str, zone: str, start: datetime, end: datetime) -> list[datetime]:
    return list(timeline(expression, timezone=zone, created_at=CREATED).between(start, end))


def chain(expression: str, zone: str, after: datetime, count: int) -> list[datetime]:
    line = timeline(expression, timezone=zone, created_at=CREATED)
    found: list[datetime] = []
    for _ in range(count):
        instant = line.next_after(found[-1] if found else after)
        assert instant is not None
        found.append(instant)
    return found


# -- the reference's worked table ------------------------------------------------------------


def test_table_los_angeles_0230_is_skipped_on_the_spring_forward_day() -> None:
    # Mar 7 02:30 PST = 10:30Z; Mar 8 02:30 does not exist; Mar 9 02:30 PDT = 09:30Z.
    assert fires("cron(30 2 * * ? *)", "America/Los_Angeles", at(2026, 3, 7), at(2026, 3, 10)) == [
        at(2026, 3, 7, 10, 30),
        at(2026, 3, 9, 9, 30),
    ]


def test_table_new_york_0130_fires_once_on_the_fall_back_day() -> None:
    # 01:30 EDT = 05:30Z fires; 01:30 EST = 06:30Z does not.
    assert fires("cron(30 1 * * ? *)", "America/New_York", at(2026, 11, 1), at(2026, 11, 2)) == [
        at(2026, 11, 1, 5, 30)
    ]


def test_table_new_york_hourly_skips_the_second_0100_on_the_fall_back_day() -> None:
    hourly = fires("cron(0 * * * ? *)", "America/New_York", at(2026, 11, 1, 4), at(2026, 11, 1, 9))
    # 04:00Z = 00:00 EDT, 05:00Z = 01:00 EDT, 06:00Z = 01:00 EST (repeat), 07:00Z = 02:00 EST.
    assert hourly == [
        at(2026, 11, 1, 4),
        at(2026, 11, 1, 5),
        at(2026, 11, 1, 7),
        at(2026, 11, 1, 8),
    ]


def test_table_new_york_hourly_has_no_0200_on_the_spring_forward_day() -> None:
    hourly = fires("cron(0 * * * ? *)", "America/New_York", at(2026, 3, 8, 5), at(2026, 3, 8, 9))
    # 05:00Z = 00:00 EST, 06:00Z = 01:00 EST, 07:00Z = 03:00 EDT, 08:00Z = 04:00 EDT.
    assert hourly == [at(2026, 3, 8, 5), at(2026, 3, 8, 6), at(2026, 3, 8, 7), at(2026, 3, 8, 8)]


def test_table_london_0130_is_skipped_on_the_spring_forward_day() -> None:
    # Mar 28 01:30 GMT = 01:30Z; Mar 29 has no 01:30; Mar 30 01:30 BST = 00:30Z.
    assert fires("cron(30 1 * * ? *)", "Europe/London", at(2026, 3, 28), at(2026, 3, 31)) == [
        at(2026, 3, 28, 1, 30),
        at(2026, 3, 30, 0, 30),
    ]


def test_table_london_0130_fires_once_on_the_fall_back_day() -> None:
    # 01:30 BST = 00:30Z fires; 01:30 GMT = 01:30Z does not.
    assert fires("cron(30 1 * * ? *)", "Europe/London", at(2026, 10, 25), at(2026, 10, 26)) == [
        at(2026, 10, 25, 0, 30)
    ]


# -- New York, both directions ----------------------------------------------------------------


def test_new_york_every_minute_jumps_the_spring_forward_gap() -> None:
    # 06:59Z = 01:59 EST, then 07:00Z = 03:00 EDT.
    assert chain("cron(* * * * ? *)", "America/New_York", at(2026, 3, 8, 6, 58), 2) == [
        at(2026, 3, 8, 6, 59),
        at(2026, 3, 8, 7, 0),
    ]


def test_new_york_every_minute_does_not_repeat_the_fall_back_hour() -> None:
    # 05:59Z = 01:59 EDT; the repeated 01:00-01:59 EST (06:00Z-06:59Z) is skipped.
    assert chain("cron(* * * * ? *)", "America/New_York", at(2026, 11, 1, 5, 58), 2) == [
        at(2026, 11, 1, 5, 59),
        at(2026, 11, 1, 7, 0),
    ]


def test_new_york_spring_forward_day_has_1380_minutes() -> None:
    # Local Mar 8 runs from 05:00Z (00:00 EST) to 04:00Z on Mar 9 (00:00 EDT): 23 hours.
    minutes = fires("cron(* * * * ? *)", "America/New_York", at(2026, 3, 8, 5), at(2026, 3, 9, 4))
    assert len(minutes) == 23 * 60


def test_new_york_fall_back_day_still_fires_each_wall_minute_once() -> None:
    # Local Nov 1 runs from 04:00Z (00:00 EDT) to 05:00Z on Nov 2 (00:00 EST): 25 hours,
    # but the repeated hour fires only on its first pass, so 24 hours of minutes.
    minutes = fires("cron(* * * * ? *)", "America/New_York", at(2026, 11, 1, 4), at(2026, 11, 2, 5))
    assert len(minutes) == 24 * 60
    assert at(2026, 11, 1, 6, 30) not in minutes


def test_new_york_next_after_inside_the_repeated_hour_moves_past_it() -> None:
    # 06:15Z is 01:15 EST, the second pass; 01:30 already fired at 05:30Z, so the next
    # 01:30 is the following day's, at 06:30Z (EST).
    line = timeline("cron(30 1 * * ? *)", timezone="America/New_York", created_at=CREATED)
    assert line.next_after(at(2026, 11, 1, 6, 15)) == at(2026, 11, 2, 6, 30)


def test_new_york_daily_time_keeps_its_wall_clock_across_both_changes() -> None:
    # 09:00 local is 14:00Z in winter and 13:00Z in summer.
    daily = fires("cron(0 9 * * ? *)", "America/New_York", at(2026, 3, 7), at(2026, 3, 10))
    assert daily == [at(2026, 3, 7, 14), at(2026, 3, 8, 13), at(2026, 3, 9, 13)]
    daily = fires("cron(0 9 * * ? *)", "America/New_York", at(2026, 10, 31), at(2026, 11, 3))
    assert daily == [at(2026, 10, 31, 13), at(2026, 11, 1, 14), at(2026, 11, 2, 14)]


# -- London, both directions ---------------------------------------------------------------------


def test_london_half_hourly_around_the_spring_forward() -> None:
    # 00:30Z = 00:30 GMT, 01:00Z = 02:00 BST: 01:00 and 01:30 local do not exist.
    assert fires(
        "cron(0/30 * * * ? *)", "Europe/London", at(2026, 3, 29, 0, 30), at(2026, 3, 29, 2)
    ) == [
        at(2026, 3, 29, 0, 30),
        at(2026, 3, 29, 1, 0),
        at(2026, 3, 29, 1, 30),
    ]


def test_london_half_hourly_around_the_fall_back() -> None:
    # 00:00Z = 01:00 BST, 00:30Z = 01:30 BST; 01:00Z and 01:30Z repeat 01:00 and 01:30 in
    # GMT and do not fire; 02:00Z = 02:00 GMT.
    assert fires(
        "cron(0/30 * * * ? *)", "Europe/London", at(2026, 10, 25), at(2026, 10, 25, 2, 1)
    ) == [
        at(2026, 10, 25, 0, 0),
        at(2026, 10, 25, 0, 30),
        at(2026, 10, 25, 2, 0),
    ]


# -- Lord Howe: a 30-minute shift ---------------------------------------------------------------


def test_lord_howe_skips_0215_on_its_spring_forward_day() -> None:
    # Oct 3 02:15 at +10:30 = 15:45Z on Oct 2; Oct 4 02:15 does not exist;
    # Oct 5 02:15 at +11 = 15:15Z on Oct 4.
    assert fires("cron(15 2 * * ? *)", "Australia/Lord_Howe", at(2026, 10, 2), at(2026, 10, 5)) == [
        at(2026, 10, 2, 15, 45),
        at(2026, 10, 4, 15, 15),
    ]


def test_lord_howe_quarter_hours_across_the_spring_forward_gap() -> None:
    # 01:30 and 01:45 at +10:30 are 15:00Z and 15:15Z; 02:00 and 02:15 do not exist;
    # 02:30 at +11 is 15:30Z.
    assert chain("cron(0/15 * * * ? *)", "Australia/Lord_Howe", at(2026, 10, 3, 14, 59), 4) == [
        at(2026, 10, 3, 15, 0),
        at(2026, 10, 3, 15, 15),
        at(2026, 10, 3, 15, 30),
        at(2026, 10, 3, 15, 45),
    ]


def test_lord_howe_fires_its_repeated_half_hour_once() -> None:
    # Apr 5 01:45 at +11 = 14:45Z on Apr 4; the repeat at +10:30 (15:15Z) does not fire.
    assert fires("cron(45 1 * * ? *)", "Australia/Lord_Howe", at(2026, 4, 4), at(2026, 4, 6)) == [
        at(2026, 4, 4, 14, 45),
        at(2026, 4, 5, 15, 15),
    ]


def test_lord_howe_quarter_hours_across_the_fall_back() -> None:
    # 01:00, 01:15, 01:30, 01:45 at +11 = 14:00Z-14:45Z; 01:30 and 01:45 repeat at +10:30
    # (15:00Z, 15:15Z) and do not fire; 02:00 at +10:30 is 15:30Z.
    assert fires(
        "cron(0/15 * * * ? *)", "Australia/Lord_Howe", at(2026, 4, 4, 14), at(2026, 4, 4, 15, 31)
    ) == [
        at(2026, 4, 4, 14, 0),
        at(2026, 4, 4, 14, 15),
        at(2026, 4, 4, 14, 30),
        at(2026, 4, 4, 14, 45),
        at(2026, 4, 4, 15, 30),
    ]


# -- other shapes of transition ------------------------------------------------------------------


def test_a_skipped_calendar_day_is_skipped_whole() -> None:
    # Samoa jumped from UTC-10 to UTC+14 at 10:00Z on 2011-12-30, so its Dec 30 never
    # happened: noon on the 29th is 22:00Z, noon on the 31st is 22:00Z on the 30th.
    assert fires("cron(0 12 * * ? *)", "Pacific/Apia", at(2011, 12, 29), at(2011, 12, 31)) == [
        at(2011, 12, 29, 22),
        at(2011, 12, 30, 22),
    ]


@pytest.mark.parametrize(
    ("zone", "offset"),
    [
        ("Asia/Kolkata", timedelta(hours=5, minutes=30)),
        ("Asia/Tokyo", timedelta(hours=9)),
        ("Africa/Abidjan", timedelta(0)),
    ],
)
def test_zones_without_dst_keep_a_fixed_offset(zone: str, offset: timedelta) -> None:
    # Mar 1 to Dec 30 is 31+30+31+30+31+31+30+31+30+30 = 305 days, each firing at noon.
    daily = fires("cron(0 12 * * ? *)", zone, at(2026, 3, 1), at(2026, 12, 31))
    assert len(daily) == 305
    assert {(instant + offset).time() for instant in daily} == {time(12, 0)}


@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC", "Africa/Abidjan"])
def test_utc_fast_path_and_zoned_path_agree(zone: str) -> None:
    # Africa/Abidjan is UTC all year but goes through the zoned path.
    window = (at(2026, 1, 1), at(2026, 2, 1))
    assert fires("cron(*/7 */5 ? * 2#2 *)", zone, *window) == fires(
        "cron(*/7 */5 ? * 2#2 *)", "UTC", *window
    )
