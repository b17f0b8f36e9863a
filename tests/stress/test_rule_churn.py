"""Six threads change EventBridge rules and their targets while a seventh moves virtual time
through two days.

Afterwards, from a log of what the store applied and when (virtual time), every rule
target is checked: no occurrence delivered twice, none while its rule was disabled or
after the target (or the rule) went, each on its rule's rate() grid counted from the
rule's activation, and none missing while the rule was enabled and the target there.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.model.rules import Rule
from tests.constants import QUEUE, T0
from tests.stress.pacing import Call, run_in_step

pytestmark = pytest.mark.stress

SPAN = 2 * 86400
STEP = 300
#: Wall-clock seconds after which a stalled run is stopped and fails (a quiet run takes 10).
WITHIN = 200
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


def calls_of(events: Any) -> Call:
    """One worker's call: a random change to a random rule or its targets, through ``events``."""

    def call(rng: random.Random) -> str:
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
                # AWS deletes no rule that has targets, Force or not: they go first.
                events.remove_targets(Rule=name, Ids=list(TARGET_IDS))
                events.delete_rule(Name=name)
        except events.exceptions.ResourceNotFoundException:
            return f"{op} refused"
        except events.exceptions.ClientError as error:
            # Another worker put targets between the two calls.
            if op != "delete" or error.response["Error"]["Code"] != "ValidationException":
                raise
            return f"{op} refused"
        return op

    return call


def test_two_days_of_concurrent_rule_changes_keep_every_invariant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Emulator(start=T0, transport="http") as emu:
        recorder = Recorder(emu)
        clients = [emu.client("events") for _ in range(3)]
        emu.configure(transport="inprocess")
        clients += [emu.client("events") for _ in range(3)]
        # Six calls cross each step of the clock, one from each worker, while it moves.
        pace = run_in_step(
            [calls_of(client) for client in clients],
            lambda: emu.clock.advance(seconds=STEP),
            steps=SPAN // STEP,
            within=WITHIN,
        )
        end = epoch(emu.clock.now())
        attempts = emu.attempts()
        assert emu.server_errors == []
    pace.check()

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

    with capsys.disabled():
        print(
            f"\nrule churn stress: {pace.figures()}; {len(spans)} rule targets, "
            f"{len(attempts)} deliveries in two virtual days; {checked} occurrence checks: "
            f"duplicates {duplicates}, stray {stray}, missing {missing}; "
            f"calls {dict(sorted(pace.by_label.items()))}"
        )
    assert checked > 1000
    assert (duplicates, stray, missing) == (0, 0, 0)
