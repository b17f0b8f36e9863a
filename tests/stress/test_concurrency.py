"""Eight threads hammer the API while a ninth moves virtual time through a week.

Afterwards, from a log of what the store applied and when (virtual time), every
incarnation is checked: no occurrence delivered twice, none delivered while it was deleted
or disabled, and none missing from the time it was enabled.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.model.resources import Schedule
from tests.constants import QUEUE, ROLE, T0
from tests.stress.pacing import Call, run_in_step

# Past WITHIN a stalled run stops and fails with its figures, before its time runs out.
pytestmark = [pytest.mark.stress, pytest.mark.timeout(600)]

WEEK = 7 * 86400
STEP = 300
#: Wall-clock seconds after which a stalled run is stopped and fails (a quiet run takes 30).
WITHIN = 400
NAMES = [f"s{i}" for i in range(40)]
RATES = (1, 5, 15, 60)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def epoch(instant: datetime) -> float:
    return (instant - _EPOCH).total_seconds()


class Recorder:
    """Wraps the store's observer to log each change with the virtual time it took effect."""

    def __init__(self, emu: Emulator) -> None:
        self.inner = emu.debug.store_observer
        self.clock = emu.clock
        self.log: list[tuple[str, int, float, Schedule]] = []
        emu.debug.store_observer = self

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None:
        self.log.append(("saved", schedule.incarnation, epoch(self.clock.now()), schedule))
        self.inner.schedule_saved(schedule, previous)

    def schedule_removed(self, schedule: Schedule, reason: str) -> None:
        self.log.append(("removed", schedule.incarnation, epoch(self.clock.now()), schedule))
        self.inner.schedule_removed(schedule, reason)

    def group_removal_scheduled(self, group: Any, due: datetime) -> None:
        self.inner.group_removal_scheduled(group, due)


def calls_of(client: Any) -> Call:
    """One worker's call: a random change or read of a random name, through ``client``."""

    def call(rng: random.Random) -> str:
        name = rng.choice(NAMES)
        op = rng.choice(("create", "create", "update", "delete", "list", "get"))
        args = {
            "Name": name,
            "ScheduleExpression": f"rate({rng.choice(RATES)} minutes)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": QUEUE, "RoleArn": ROLE},
        }
        try:
            if op == "create":
                client.create_schedule(**args)
            elif op == "update":
                current = client.get_schedule(Name=name)
                args["ScheduleExpression"] = current["ScheduleExpression"]
                args["State"] = rng.choice(("ENABLED", "DISABLED"))
                client.update_schedule(**args)
            elif op == "delete":
                client.delete_schedule(Name=name)
            elif op == "list":
                client.list_schedules(MaxResults=10)
            else:
                client.get_schedule(Name=name)
        except (client.exceptions.ConflictException, client.exceptions.ResourceNotFoundException):
            return f"{op} refused"
        return op

    return call


def test_a_week_of_concurrent_changes_keeps_every_invariant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Emulator(start=T0, transport="http") as emu:
        recorder = Recorder(emu)
        clients = [emu.client()] + [emu.client(region_name="us-east-1") for _ in range(3)]
        emu.configure(transport="inprocess")
        clients += [emu.client(region_name="us-east-1") for _ in range(4)]
        # Eight calls cross each step of the clock, one from each worker, while it moves.
        pace = run_in_step(
            [calls_of(client) for client in clients],
            lambda: emu.clock.advance(seconds=STEP),
            steps=WEEK // STEP,
            within=WITHIN,
        )
        end = epoch(emu.clock.now())
        attempts = emu.attempts()
        assert emu.server_errors == []
    pace.check()

    # Each incarnation's history: (time, enabled, period) changes, and when it went. An
    # update may change the period too: a worker updates with the expression it read,
    # which may be another incarnation's if the name was deleted and created in between.
    changes: dict[int, list[tuple[float, bool, int]]] = defaultdict(list)
    removed: dict[int, float] = {}
    anchors: dict[int, int] = {}
    for kind, incarnation, at, schedule in recorder.log:
        if kind == "saved":
            stamped = epoch(schedule.last_modification_date)
            assert stamped == at, "a change took effect at another instant than its stamp"
            period = int(schedule.schedule_expression[5:].split()[0]) * 60
            changes[incarnation].append((at, schedule.enabled, period))
            anchors[incarnation] = int(epoch(schedule.creation_date))
        else:
            removed[incarnation] = at

    by_incarnation: dict[int, list[float]] = defaultdict(list)
    for attempt in attempts:
        by_incarnation[attempt.incarnation].append(epoch(attempt.scheduled_time))

    duplicates = late = disabled_hits = missing = checked = 0
    for incarnation, history in changes.items():
        anchor = anchors[incarnation]
        gone = removed.get(incarnation, end + 1)
        mine = sorted(by_incarnation[incarnation])
        duplicates += len(mine) - len(set(mine))
        late += sum(1 for t in mine if t > gone)
        delivered = set(mine)
        bounds = [*history, (gone, False, 0)]
        for (start, enabled, period), (stop_at, _, _) in zip(bounds, bounds[1:]):
            inside = range(
                anchor + -(-(int(start) + 2 - anchor) // period) * period,
                int(min(stop_at, end)) - 1,
                period,
            )
            for nominal in inside:
                checked += 1
                if enabled and nominal not in delivered:
                    missing += 1
                if not enabled and nominal in delivered:
                    disabled_hits += 1

    with capsys.disabled():
        print(
            f"\nconcurrency stress: {pace.figures()}; {len(changes)} incarnations, "
            f"{len(attempts)} deliveries in a virtual week; {checked} occurrence checks: "
            f"duplicates {duplicates}, after deletion {late}, while disabled {disabled_hits}, "
            f"missing {missing}; calls {dict(sorted(pace.by_label.items()))}"
        )
    assert checked > 10000
    assert (duplicates, late, disabled_hits, missing) == (0, 0, 0, 0)
