"""Handler calls: what one attempt costs when a test's handler is its target.

A per-minute schedule is advanced a day item by item (1,441 attempts) three ways: no
handler (another target is steered, so the move goes item by item as it does with a
handler, and each attempt is recorded as delivered), a sync handler that returns at once,
and a coroutine handler that returns at once, each by a sync and an async move. What is
printed is microseconds per attempt; a handler's line less the no-handler line is what one
handler call costs.

Run: python benchmarks/bench_handlers.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import datetime, timezone
from typing import Any, Callable

from pytest_schedemu import Emulator

START = datetime(2026, 3, 1, tzinfo=timezone.utc)
QUEUE = "arn:aws:sqs:us-east-1:123456789012:jobs"
OTHER = "arn:aws:sqs:us-east-1:123456789012:elsewhere"
ROLE = "arn:aws:iam::123456789012:role/r"
ATTEMPTS = 1440


def sync_handler(attempt: Any) -> None:
    return None


async def coroutine_handler(attempt: Any) -> None:
    return None


def one_day(handler: Callable[[Any], Any] | None, asynchronous: bool) -> float:
    with Emulator(start=START) as emu:
        emu.client().create_schedule(
            Name="minutes",
            ScheduleExpression="rate(1 minute)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
        if handler is None:
            emu.target(OTHER).fail()
        else:
            emu.target(QUEUE).handle(handler)
        started = time.perf_counter()
        if asynchronous:
            made = asyncio.run(emu.clock.advance_async(hours=24))
        else:
            made = emu.clock.advance(hours=24)
        elapsed = time.perf_counter() - started
        assert len(made) == ATTEMPTS + 1, len(made)
        return elapsed / len(made) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    cases = (("no handler", None), ("sync handler", sync_handler), ("async def", coroutine_handler))
    for asynchronous in (False, True):
        for name, handler in cases:
            runs = [one_day(handler, asynchronous) for _ in range(repeats)]
            move = "async move" if asynchronous else "sync move"
            print(f"{move:10} {name:12} {min(runs):7.1f} µs per attempt")


if __name__ == "__main__":
    main()
