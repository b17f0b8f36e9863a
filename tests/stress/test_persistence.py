"""``schedemu serve --state`` SIGKILLed at random moments while it is busy, again and again.

Four threads create, update, delete and read schedules (each its own names) and a fifth
moves the virtual clock, all over HTTP, until the process is killed; then it is started
again on the same file and checked:

- every acknowledged create, update and delete is reflected exactly; the one request in
  flight at the kill is wholly applied or wholly absent;
- the clock stands where the last acknowledged move left it (or, with a move in flight,
  no earlier and no further than that move's destination);

and, after the last restart, from the durable records alone (the attempts and the
lifecycle activity): no occurrence was delivered twice, none while its schedule was
deleted or disabled, and none is missing; three untouched sentinels delivered exactly
every occurrence of the whole run, and one whose target always fails made exactly its
retry ladder for each.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import botocore.exceptions
import pytest

from tests.constants import QUEUE, ROLE, START
from tests.persistence.serving import Service

# 22 kills and restarts of a service process, then every record checked: 190 s on a busy
# machine.
pytestmark = [pytest.mark.stress, pytest.mark.timeout(900)]

KILLS = 22
WORKERS = 4
NAMES_PER_WORKER = 10
RATES = (1, 5, 15, 60)
FAILING_FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:always-fails"
SENTINELS = {"sentinel-1": 1, "sentinel-7": 7, "sentinel-60": 60}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

Model = dict[str, Any]  # name -> None (absent), "ENABLED" or "DISABLED"


def epoch(text: str) -> int:
    return int((datetime.fromisoformat(text.replace("Z", "+00:00")) - _EPOCH).total_seconds())


def rate_of(name: str) -> int:
    if name in SENTINELS:
        return SENTINELS[name]
    return 60 if name == "retrier" else RATES[int(name.rsplit("-", 1)[1]) % len(RATES)]


def schedule_args(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "Name": name,
        "ScheduleExpression": f"rate({rate_of(name)} minutes)",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {"Arn": QUEUE, "RoleArn": ROLE},
        **extra,
    }


class Load:
    """The threads of one life of the service, and what they were told."""

    def __init__(self, service: Service, models: list[Model], seed: int) -> None:
        self.service = service
        self.models = models
        self.seed = seed
        self.uncertain: dict[str, tuple[Any, Any]] = {}
        self.acknowledged_now: str | None = None
        self.move_in_flight = 0  # seconds of the move under way at the kill
        self.calls = 0
        self.surprises = 0
        self.moves = 0
        self.server_errors = 0
        self.lock = threading.Lock()

    def worker(self, index: int) -> None:
        rng = random.Random(self.seed * 100 + index)
        client = self.service.client()
        model = self.models[index]
        while True:
            name = f"w{index}-{rng.randrange(NAMES_PER_WORKER)}"
            before = model[name]
            op = rng.choice(("create", "create", "update", "update", "delete", "get", "list"))
            state = rng.choice(("ENABLED", "DISABLED"))
            after = {
                "create": "ENABLED" if before is None else before,
                "update": None if before is None else state,
                "delete": None,
            }.get(op, before)
            try:
                found = self._call(client, op, name, state)
            except botocore.exceptions.BotoCoreError:
                with self.lock:
                    self.uncertain[name] = (before, after)
                return
            # Each name is one worker's, so the service must answer what it acknowledged.
            expected = {
                "create": before is None,
                "update": before is not None,
                "delete": before is not None,
                "get": before is not None,
            }.get(op, True)
            with self.lock:
                self.calls += 1
                self.surprises += found is not None and found != expected
                self.server_errors += found is None
            model[name] = after

    @staticmethod
    def _call(client: Any, op: str, name: str, state: str) -> bool | None:
        """Whether the call succeeded (False: refused as the state says), None for a 500."""
        try:
            if op == "create":
                client.create_schedule(**schedule_args(name))
            elif op == "update":
                client.update_schedule(**schedule_args(name, State=state))
            elif op == "delete":
                client.delete_schedule(Name=name)
            elif op == "get":
                client.get_schedule(Name=name)
            else:
                client.list_schedules(MaxResults=5)
        except (client.exceptions.ConflictException, client.exceptions.ResourceNotFoundException):
            return False
        except client.exceptions.InternalServerException:
            return None
        return True

    def mover(self) -> None:
        rng = random.Random(self.seed)
        while True:
            minutes = rng.randint(1, 20)
            try:
                moved = self.service.control("POST", "clock/advance?limit=0", {"minutes": minutes})
            except Exception:  # the connection died with the process
                self.move_in_flight = minutes * 60
                return
            if "now" not in moved:
                with self.lock:
                    self.server_errors += 1
                continue
            self.acknowledged_now = moved["now"]
            self.moves += 1


def check_restart(
    service: Service, models: list[Model], load: Load | None, last_now: str, seen: Counter[str]
) -> str:
    """Every acknowledged change is there; return the clock. ``seen`` counts what was found."""
    listed: dict[str, str] = {}
    client = service.client()
    for page in client.get_paginator("list_schedules").paginate():
        listed.update({s["Name"]: s["State"] for s in page["Schedules"]})
    for model in models:
        for name, expected in model.items():
            actual = listed.get(name)
            allowed = {expected}
            if load is not None and name in load.uncertain:
                before, after = load.uncertain[name]
                allowed = {before, after}
                if before != after:
                    seen["in flight, applied" if actual == after else "in flight, absent"] += 1
            assert actual in allowed, f"{name}: {actual} after the restart, expected {allowed}"
            model[name] = actual
            seen["names checked"] += 1
    for name in (*SENTINELS, "retrier"):
        assert listed.get(name) == "ENABLED"
    now = service.control("GET", "clock")["now"]
    assert epoch(now) >= epoch(last_now), "the clock moved backwards across a restart"
    if load is not None:
        assert epoch(now) <= epoch(last_now) + load.move_in_flight
        if epoch(now) == epoch(last_now) + load.move_in_flight > epoch(last_now):
            seen["moves in flight, done"] += 1
        elif epoch(now) > epoch(last_now):
            seen["moves in flight, cut short"] += 1
        else:
            seen["moves in flight, not begun"] += 1
    return now


def test_a_service_killed_at_random_moments_loses_and_repeats_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    began = time.perf_counter()
    args = ("--clock", "virtual", "--start", START, "--state", str(tmp_path / "state.db"))
    log = tmp_path / "service.log"
    models: list[Model] = [
        {f"w{w}-{i}": None for i in range(NAMES_PER_WORKER)} for w in range(WORKERS)
    ]
    service = Service(*args, log=log)
    client = service.client()
    for name in SENTINELS:
        client.create_schedule(**schedule_args(name))
    retrier = schedule_args("retrier")
    retrier["Target"] = {
        "Arn": FAILING_FUNCTION,
        "RoleArn": ROLE,
        "RetryPolicy": {"MaximumRetryAttempts": 2},
    }
    client.create_schedule(**retrier)
    rng = random.Random(2026)
    last_now = START
    calls = moves = server_errors = surprises = 0
    seen: Counter[str] = Counter()
    for life in range(KILLS):
        service.control("POST", "targets/fail", {"arn": FAILING_FUNCTION})  # rules are not durable
        load = Load(service, models, seed=life)
        threads = [threading.Thread(target=load.worker, args=(w,)) for w in range(WORKERS)]
        threads.append(threading.Thread(target=load.mover))
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.3, 1.3))
        service.kill()
        for thread in threads:
            thread.join(timeout=60)
        calls, moves = calls + load.calls, moves + load.moves
        server_errors += load.server_errors
        surprises += load.surprises
        last_now = load.acknowledged_now or last_now
        service = Service(*args, log=log)
        last_now = check_restart(service, models, load, last_now, seen)

    # What is due at the final instant, in case the last kill stopped a move halfway.
    service.control("POST", "tick?limit=0")
    end = epoch(service.control("GET", "clock")["now"])
    attempts = service.records("attempts")
    activity = service.records("activity")
    assert service.stop() == 0
    elapsed = time.perf_counter() - began

    report = analyse(attempts, activity, end)
    with capsys.disabled():
        print(
            f"\npersistence stress: {KILLS} SIGKILLs in {elapsed:.0f} s; {calls} acknowledged "
            f"API calls and {moves} clock moves; after restarts {dict(seen)}; "
            f"{len(attempts)} attempts over "
            f"{(end - epoch(START)) / 86400:.1f} virtual days; {report['checked']} occurrence "
            f"checks: duplicated {report['duplicates']}, after deletion {report['late']}, "
            f"while disabled {report['disabled']}, missing {report['missing']}; sentinels "
            f"{report['sentinel_deliveries']} deliveries, {report['sentinel_missing']} missing, "
            f"retry ladders wrong {report['ladders_wrong']} of {report['ladders']}; "
            f"server errors {server_errors}, answers contradicting acknowledged changes "
            f"{surprises}"
        )
    assert calls > 500 and moves > 50
    assert report["checked"] > 1000
    assert server_errors == surprises == 0
    assert (report["duplicates"], report["late"], report["disabled"], report["missing"]) == (
        0,
        0,
        0,
        0,
    )
    assert report["sentinel_missing"] == report["ladders_wrong"] == 0


def analyse(attempts: list[dict[str, Any]], activity: list[dict[str, Any]], end: int) -> Any:
    """Check every occurrence against the lifecycle the durable activity log records."""
    report: dict[str, int] = defaultdict(int)
    duplicates = Counter(
        (a["schedule_arn"], a["incarnation"], a["scheduled_time"], a["attempt_number"])
        for a in attempts
    )
    report["duplicates"] = sum(count - 1 for count in duplicates.values())
    delivered: dict[str, set[int]] = defaultdict(set)
    numbers: dict[tuple[str, int], list[int]] = defaultdict(list)
    for a in attempts:
        delivered[a["schedule_arn"]].add(epoch(a["scheduled_time"]))
        numbers[(a["schedule_arn"], epoch(a["scheduled_time"]))].append(a["attempt_number"])

    # Per schedule ARN, its lives: (start, stop, enabled, anchor) from the lifecycle log.
    spans: dict[str, list[tuple[int, int, bool, int]]] = defaultdict(list)
    open_span: dict[str, tuple[int, bool, int]] = {}
    for event in activity:
        arn, at, kind = event["schedule_arn"], epoch(event["at"]), event["kind"]
        if kind not in ("created", "updated", "deleted"):
            continue
        if arn in open_span:
            start, enabled, anchor = open_span.pop(arn)
            spans[arn].append((start, at, enabled, anchor))
        if kind == "created":
            open_span[arn] = (at, event["detail"] == "ENABLED", at)
        elif kind == "updated":
            anchor = spans[arn][-1][3]
            open_span[arn] = (at, event["detail"] == "ENABLED", anchor)
    for arn, (start, enabled, anchor) in open_span.items():
        spans[arn].append((start, end + 1, enabled, anchor))

    for arn, lives in spans.items():
        name = arn.rsplit("/", 1)[1]
        period = rate_of(name) * 60
        mine = delivered.get(arn, set())
        for start, stop, enabled, anchor in lives:
            # Strictly inside a span, where no change at the same instant can blur it.
            first = anchor + max(0, -(-(start + 1 - anchor) // period)) * period
            for nominal in range(first, min(stop, end + 1), period):
                if nominal in (start, stop):
                    continue
                report["checked"] += 1
                if enabled and nominal not in mine:
                    report["missing"] += 1
                if not enabled and nominal in mine:
                    report["disabled"] += 1
        covered = [(start, stop) for start, stop, enabled, _ in lives if enabled]
        report["late"] += sum(
            1 for t in mine if not any(start <= t <= stop for start, stop in covered)
        )

    for name, minutes in SENTINELS.items():
        arn = f"arn:aws:scheduler:us-east-1:123456789012:schedule/default/{name}"
        expected = set(range(epoch(START), end + 1, minutes * 60))
        report["sentinel_deliveries"] += len(delivered[arn])
        report["sentinel_missing"] += len(expected ^ delivered[arn])
    retrier = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/retrier"
    for nominal in range(epoch(START), end + 1, 3600):
        ladder = [n for n, due in ((1, 0), (2, 60), (3, 180)) if nominal + due <= end]
        report["ladders"] += 1
        report["ladders_wrong"] += sorted(numbers[(retrier, nominal)]) != ladder
    return report
