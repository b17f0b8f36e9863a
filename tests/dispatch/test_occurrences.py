"""When occurrences fire: windows, rate anchors, cron in zones, at(), DISABLED, updates."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import QUEUE, ROLE, T0
from tests.helpers import create


def times(emu: Emulator, **filters: Any) -> list[datetime]:
    return [a.scheduled_time for a in emu.attempts(**filters)]


def test_rate_every_minute_delivers_every_missed_period(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 minute)")
    emu.clock.advance(minutes=59, seconds=30)
    delivered = emu.deliveries()
    assert len(delivered) == 60
    assert [d.scheduled_time for d in delivered] == [T0 + timedelta(minutes=i) for i in range(60)]
    assert all(d.attempted_at == d.scheduled_time for d in delivered)


def test_rate_without_start_date_is_anchored_at_creation(emu: Emulator, client: Any) -> None:
    emu.clock.advance(seconds=90.7)
    create(client, expression="rate(5 minutes)")
    emu.clock.advance(minutes=11)
    anchor = T0 + timedelta(seconds=90)
    assert times(emu) == [anchor, anchor + timedelta(minutes=5), anchor + timedelta(minutes=10)]


def test_rate_with_start_date_is_anchored_at_the_start_date(emu: Emulator, client: Any) -> None:
    start = T0 + timedelta(minutes=7, seconds=30)
    create(client, expression="rate(10 minutes)", StartDate=start)
    emu.clock.advance(minutes=30)
    assert times(emu) == [start, start + timedelta(minutes=10), start + timedelta(minutes=20)]


def test_end_date_is_inclusive_on_the_nominal_time(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)", EndDate=T0 + timedelta(hours=2))
    emu.clock.advance(days=1)
    assert times(emu) == [T0, T0 + timedelta(hours=1), T0 + timedelta(hours=2)]


def test_start_date_in_the_past_window_is_the_first_occurrence(emu: Emulator, client: Any) -> None:
    # §4.7: StartDate "sets the first occurrence"; those before now fire at once.
    create(client, expression="rate(1 minute)", StartDate=T0 - timedelta(minutes=3))
    emu.clock.tick()
    assert times(emu) == [T0 - timedelta(minutes=m) for m in (3, 2, 1, 0)]
    assert {a.attempted_at for a in emu.attempts()} == {T0}
    emu.clock.advance(minutes=1)
    assert times(emu)[-1] == T0 + timedelta(minutes=1)


def test_cron_with_a_past_start_date_fires_its_matches_since_then_at_once(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="cron(*/2 * * * ? *)", StartDate=T0 - timedelta(minutes=5))
    emu.clock.tick()
    assert times(emu) == [T0 - timedelta(minutes=4), T0 - timedelta(minutes=2), T0]


def test_a_past_start_date_without_a_match_in_its_window_fires_nothing_early(
    emu: Emulator, client: Any
) -> None:
    create(client, expression="cron(30 * * * ? *)", StartDate=T0 - timedelta(minutes=4))
    emu.clock.advance(minutes=30)
    assert times(emu) == [T0 + timedelta(minutes=30)]


def test_an_update_does_not_replay_the_past_window(emu: Emulator, client: Any) -> None:
    start = T0 - timedelta(minutes=3)
    create(client, expression="rate(1 minute)", StartDate=start)
    emu.clock.tick()
    client.update_schedule(
        Name="s1",
        ScheduleExpression="rate(1 minute)",
        StartDate=start,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    emu.clock.tick()
    assert len(emu.attempts()) == 4


def test_end_date_in_the_past_never_fires(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)", EndDate=T0 - timedelta(hours=1))
    emu.clock.advance(days=2)
    assert emu.attempts() == []


def test_cron_daily_in_utc(emu: Emulator, client: Any) -> None:
    create(client, expression="cron(30 9 * * ? *)")
    emu.clock.advance(days=3)
    # Created at 10:00, so the first 09:30 is the next day's.
    assert times(emu) == [datetime(2026, 3, d, 9, 30, tzinfo=timezone.utc) for d in (2, 3, 4)]


def test_cron_across_spring_forward_in_new_york(emu: Emulator, client: Any) -> None:
    # 2026-03-08: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist that day.
    create(
        client,
        expression="cron(30 2 * * ? *)",
        ScheduleExpressionTimezone="America/New_York",
    )
    emu.clock.move_to("2026-03-10T12:00:00Z")
    assert times(emu) == [
        datetime(2026, 3, 2, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 3, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 4, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 5, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 6, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 7, 7, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 9, 6, 30, tzinfo=timezone.utc),
        datetime(2026, 3, 10, 6, 30, tzinfo=timezone.utc),
    ]


def test_hourly_cron_fires_once_in_the_repeated_hour(emu: Emulator, client: Any) -> None:
    emu.clock.move_to("2026-11-01T03:30:00Z")
    create(client, expression="cron(0 * * * ? *)", ScheduleExpressionTimezone="America/New_York")
    emu.clock.move_to("2026-11-01T08:00:00Z")
    # 00:00 EDT = 04:00Z, 01:00 EDT = 05:00Z, the second 01:00 (06:00Z) is skipped,
    # 02:00 EST = 07:00Z, 03:00 EST = 08:00Z.
    assert [t.hour for t in times(emu)] == [4, 5, 7, 8]


def test_rate_day_keeps_24_hours_across_dst(emu: Emulator, client: Any) -> None:
    create(
        client,
        expression="rate(1 day)",
        ScheduleExpressionTimezone="America/New_York",
        StartDate=datetime(2026, 3, 7, 12, tzinfo=timezone.utc),
    )
    emu.clock.move_to("2026-03-09T12:00:00Z")
    assert [t.day for t in times(emu)] == [7, 8, 9]
    assert {t.hour for t in times(emu)} == {12}


def test_at_fires_once_at_its_local_time(emu: Emulator, client: Any) -> None:
    create(
        client,
        expression="at(2026-03-05T09:15:00)",
        ScheduleExpressionTimezone="Europe/Paris",
    )
    emu.clock.advance(days=30)
    assert times(emu) == [datetime(2026, 3, 5, 8, 15, tzinfo=timezone.utc)]


def test_at_ignores_start_and_end_dates(emu: Emulator, client: Any) -> None:
    create(
        client,
        expression="at(2026-03-05T00:00:00)",
        StartDate=T0 + timedelta(days=10),
        EndDate=T0 + timedelta(days=11),
    )
    emu.clock.advance(days=5)
    assert times(emu) == [datetime(2026, 3, 5, tzinfo=timezone.utc)]


def test_past_at_fires_on_the_next_tick(emu: Emulator, client: Any) -> None:
    create(client, expression="at(2022-12-31T23:59:59)")
    attempts = emu.clock.tick()
    assert len(attempts) == 1
    assert attempts[0].scheduled_time == datetime(2022, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
    assert attempts[0].attempted_at == T0
    assert emu.clock.advance(days=1) == []


def test_past_at_can_be_skipped() -> None:
    with Emulator(start="2026-03-01T10:00:00Z", past_at="skip", transport="inprocess") as emu:
        create(emu.client(), expression="at(2022-12-31T23:59:59)")
        assert emu.clock.advance(days=1) == []


def test_disabled_schedule_never_fires_and_is_not_caught_up(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)", State="DISABLED")
    emu.clock.advance(hours=5, minutes=30)
    assert emu.attempts() == []
    client.update_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": "arn:aws:iam::123456789012:role/scheduler"},
    )
    emu.clock.advance(hours=1)
    # The grid stays anchored at creation; only nominal times after re-enabling fire.
    assert times(emu) == [T0 + timedelta(hours=6)]


def test_update_replans_future_occurrences(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")
    emu.clock.advance(minutes=90)
    client.update_schedule(
        Name="s1",
        ScheduleExpression="cron(0/20 * * * ? *)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": "arn:aws:iam::123456789012:role/scheduler"},
    )
    emu.clock.advance(minutes=30)
    assert times(emu) == [
        T0,
        T0 + timedelta(hours=1),
        T0 + timedelta(minutes=100),
        T0 + timedelta(minutes=120),
    ]


def test_update_to_description_only_does_not_refire_an_at(emu: Emulator, client: Any) -> None:
    create(client, expression="at(2026-03-01T11:00:00)")
    emu.clock.advance(hours=2)
    client.update_schedule(
        Name="s1",
        ScheduleExpression="at(2026-03-01T11:00:00)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": "arn:aws:iam::123456789012:role/scheduler"},
        Description="edited",
    )
    emu.clock.advance(hours=2)
    assert len(emu.attempts()) == 1


def test_recreated_at_schedule_fires_again(emu: Emulator, client: Any) -> None:
    create(client, expression="at(2026-03-01T11:00:00)")
    emu.clock.advance(hours=2)
    client.delete_schedule(Name="s1")
    create(client, expression="at(2026-03-01T11:00:00)")
    emu.clock.tick()
    assert times(emu) == [T0 + timedelta(hours=1), T0 + timedelta(hours=1)]


def test_deleted_schedule_stops_firing(emu: Emulator, client: Any) -> None:
    create(client, expression="rate(1 hour)")
    emu.clock.advance(hours=1)
    client.delete_schedule(Name="s1")
    emu.clock.advance(hours=5)
    assert len(emu.attempts()) == 2


def test_group_deletion_stops_its_schedules(emu: Emulator, client: Any) -> None:
    client.create_schedule_group(Name="g")
    create(client, expression="rate(1 hour)", GroupName="g")
    emu.clock.tick()
    client.delete_schedule_group(Name="g")
    emu.clock.advance(hours=3)
    assert len(emu.attempts()) == 1


def test_delayed_group_deletion_keeps_firing_until_removal() -> None:
    with Emulator(
        start="2026-03-01T10:00:00Z", group_deletion_delay=7200, transport="inprocess"
    ) as emu:
        client = emu.client()
        client.create_schedule_group(Name="g")
        create(client, expression="rate(1 hour)", GroupName="g")
        client.delete_schedule_group(Name="g")
        emu.clock.advance(hours=5)
        # 10:00 and 11:00 fire; at 12:00 the removal (sorted after every other item of that
        # instant) comes after the 12:00 occurrence.
        assert len(emu.attempts()) == 3
        assert [a.kind for a in emu.activity("group_removed")] == ["group_removed"]
        assert client.list_schedule_groups()["ScheduleGroups"][-1]["Name"] == "default"


def test_schedules_fire_in_time_then_creation_order(emu: Emulator, client: Any) -> None:
    create(client, "late", expression="rate(1 hour)")
    create(client, "early", expression="rate(30 minutes)")
    emu.clock.advance(hours=1)
    order = [(a.scheduled_time, a.schedule_name) for a in emu.attempts()]
    assert order == [
        (T0, "late"),
        (T0, "early"),
        (T0 + timedelta(minutes=30), "early"),
        (T0 + timedelta(hours=1), "late"),
        (T0 + timedelta(hours=1), "early"),
    ]


def create_reference_vector(client: Any) -> None:
    """The reference's flexible-window test vector: its first attempt is due at 00:11:45."""
    create(
        client,
        expression="at(2030-01-01T00:00:00)",
        window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
    )


def test_flexible_window_offset_is_deterministic_and_inside_the_window(
    emu: Emulator, client: Any
) -> None:
    create_reference_vector(client)
    emu.clock.move_to("2030-01-02T00:00:00Z")
    (attempt,) = emu.attempts()
    # The reference's test vector: seed 0, this ARN and time, 15 minutes -> 705 s.
    assert attempt.scheduled_time == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert attempt.attempted_at == datetime(2030, 1, 1, 0, 11, 45, tzinfo=timezone.utc)


def test_occurrence_waiting_out_its_window_is_not_yet_an_execution(
    emu: Emulator, client: Any
) -> None:
    create_reference_vector(client)
    emu.clock.move_to("2030-01-01T00:11:44Z")  # the attempt is due at 00:11:45
    assert emu.executions("s1") == []
    emu.clock.advance(seconds=1)
    assert [e.status for e in emu.executions("s1")] == ["success"]


def test_occurrence_cancelled_in_its_window_is_a_cancelled_execution(
    emu: Emulator, client: Any
) -> None:
    create_reference_vector(client)
    emu.clock.move_to("2030-01-01T00:05:00Z")
    client.delete_schedule(Name="s1")
    (execution,) = emu.executions("s1")
    assert (execution.status, execution.attempts) == ("cancelled", ())


def test_flexible_offsets_can_be_switched_off() -> None:
    with Emulator(
        start="2026-03-01T10:00:00Z", flexible_offsets="zero", transport="inprocess"
    ) as emu:
        create(
            emu.client(),
            expression="rate(1 hour)",
            window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15},
        )
        (attempt,) = emu.clock.tick()
        assert attempt.attempted_at == attempt.scheduled_time


def test_seed_changes_flexible_offsets_only() -> None:
    def run(seed: int) -> list[Any]:
        with Emulator(start="2026-03-01T10:00:00Z", seed=seed, transport="inprocess") as emu:
            create(
                emu.client(),
                expression="rate(1 hour)",
                window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 30},
            )
            emu.clock.advance(hours=5)
            return [(a.scheduled_time, a.attempted_at, a.event_id) for a in emu.attempts()]

    zero, one = run(0), run(1)
    assert [z[0] for z in zero] == [o[0] for o in one]
    assert [z[2] for z in zero] == [o[2] for o in one]
    assert [z[1] for z in zero] != [o[1] for o in one]
