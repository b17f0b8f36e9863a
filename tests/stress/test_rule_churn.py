"""Six threads change EventBridge rules and their targets while a seventh moves virtual time
through two days.

Afterwards, from a log of what the store applied and when (virtual time), every rule
target is checked: no occurrence delivered twice, none while its rule was disabled or
after the target (or the rule) went, each on its rule's rate() grid counted from the
rule's activation, and none missing while the rule was enabled and the target there.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.model.rules import Rule
from tests.constants import QUEUE, T0

pytestmark = pytest.mark.stress

SPAN = 2 * 86400
STEP = 300
OPERATIONS_PER_STEP = 6
NAMES = [f"r{i}" for i in range(12)]
TARGET_IDS = ("a", "b", "c")
RATES = (1, 5, 15)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def epoch(instant: datetime) -> int:
    return int((instant - _EPOCH).total_seconds())


class Recorder:
    """Wraps the store's observer to log each change to a rule with the virtual time."""

    def __init__(self, emu: Emulator) -> None:
        self.inner = emu.debug.store_observer
        self.clock = emu.clock
        self.log: list[tuple[int, Rule | None, str]] = []
        emu.debug.store_observer = self

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def rule_saved(self, rule: Rule, previous: Rule | None) -> None:
        self.log.append((epoch(self.clock.now()), rule, rule.name))
        self.inner.rule_saved(rule, previous)

    def rule_removed(self, rule: Rule, reason: str) -> None:
        self.log.append((epoch(self.clock.now()), None, rule.name))
        self.inner.rule_removed(rule, reason)


def worker(events: Any, seed: int, stop: threading.Event, counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    while not stop.is_set():
        name = rng.choice(NAMES)
        op = rng.choice(("put", "put", "targets", "targets", "untarget", "state", "delete"))
        try:
            if op == "put":
                rate = rng.choice(RATES)
                unit = "minute" if rate == 1 else "minutes"
                events.put_rule(Name=name, ScheduleExpression=f"rate({rate} {unit})")
            elif op == "targets":
                chosen = rng.sample(TARGET_IDS, rng.randint(1, 2))
                events.put_targets(Rule=name, Targets=[{"Id": i, "Arn": QUEUE} for i in chosen])
            elif op == "untarget":
                events.remove_targets(Rule=name, Ids=[rng.choice(TARGET_IDS)])
            elif op == "state":
                (events.enable_rule if rng.random() < 0.5 else events.disable_rule)(Name=name)
            else:
                events.delete_rule(Name=name, Force=True)
        except events.exceptions.ResourceNotFoundException:
            counts["expected_errors"] += 1
        counts[op] += 1


def test_two_days_of_concurrent_rule_changes_keep_every_invariant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Emulator(start=T0, transport="http") as emu:
        recorder = Recorder(emu)
        clients = [emu.client("events") for _ in range(3)]
        emu.use_transport("inprocess")
        clients += [emu.client("events") for _ in range(3)]
        stop = threading.Event()
        counts: list[dict[str, int]] = [defaultdict(int) for _ in clients]
        threads = [
            threading.Thread(target=worker, args=(client, seed, stop, counts[seed]))
            for seed, client in enumerate(clients)
        ]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        deadline = began + 300
        for step in range(SPAN // STEP):
            emu.clock.advance(seconds=STEP)
            while (
                sum(sum(list(c.values())) for c in counts) < (step + 1) * OPERATIONS_PER_STEP
                and time.perf_counter() < deadline
            ):
                time.sleep(0.001)
        stop.set()
        for thread in threads:
            thread.join()
        end = epoch(emu.clock.now())
        attempts = emu.attempts()
        assert emu.server_errors == []

    # What each rule target was, from each change on: (from, period or None when it does
    # not fire, the rule's activation). A target is known by its incarnation.
    spans: dict[int, list[tuple[int, int | None, int]]] = defaultdict(list)
    live: dict[str, set[int]] = defaultdict(set)
    for at, rule, name in recorder.log:
        present = set()
        if rule is not None:
            expression = rule.schedule_expression or ""
            period = int(expression[5:].split()[0]) * 60 if rule.fires else None
            for target in rule.targets:
                present.add(target.incarnation)
                spans[target.incarnation].append((at, period, epoch(rule.activated_at)))
        for gone in live[name] - present:
            spans[gone].append((at, None, 0))
        live[name] = present

    delivered: dict[int, list[int]] = defaultdict(list)
    for attempt in attempts:
        assert attempt.rule_name is not None and attempt.attempt_number == 1
        delivered[attempt.incarnation].append(epoch(attempt.scheduled_time))

    duplicates = stray = missing = checked = 0
    for incarnation, history in spans.items():
        mine = delivered[incarnation]
        duplicates += len(mine) - len(set(mine))
        expected: set[int] = set()
        bounds = [*history, (end + 1, None, 0)]
        for (start, period, anchor), (until, _, _) in zip(bounds, bounds[1:]):
            if period is None:
                continue
            # Strictly after the change, up to (not at) the next one, and not past the end.
            first = anchor + ((max(start, anchor) - anchor) // period + 1) * period
            expected.update(range(first, min(until, end + 1), period))
        # At the instant of a change, an occurrence may have played before it or after it
        # (a move plays an instant's items one by one, and calls land between them): those
        # instants are not judged.
        judged = set(mine) - {at for at, _, _ in history}
        expected -= {at for at, _, _ in history}
        checked += len(expected)
        stray += len(judged - expected)
        missing += len(expected - judged)

    totals: dict[str, int] = defaultdict(int)
    for per_thread in counts:
        for op, count in per_thread.items():
            totals[op] += count
    with capsys.disabled():
        print(
            f"\nrule churn stress: {sum(totals.values())} calls over {len(spans)} rule "
            f"targets, {len(attempts)} deliveries in two virtual days; {checked} occurrence "
            f"checks: duplicates {duplicates}, stray {stray}, missing {missing}; {dict(totals)}"
        )
    assert sum(totals.values()) > 600
    assert checked > 1000
    assert (duplicates, stray, missing) == (0, 0, 0)
