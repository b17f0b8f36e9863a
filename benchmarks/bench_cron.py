"""Cost of the cron engine's next occurrence, against croniter 7.0.0, and of a year of minutes.

Part 1: microseconds per ``next_after`` for twelve fixed expressions. Each is evaluated on
the same random instants (2026-2029, arbitrary seconds) by this engine, through both
``next_after_epoch`` and ``next_after``, and by croniter on the translated expression
(7-field form, second 0, day-of-week shifted to 0 = SUN), with ``set_current`` +
``get_next`` on one croniter object per expression so its parsing is not counted. The
three are timed in interleaved rounds in one process; the table shows the medians, the
ratio croniter / engine, and how many instants the two engines agreed on.

Part 2: seconds to enumerate every occurrence of ``cron(* * * * ? *)`` over one calendar
year with ``between_epochs``, in UTC and in America/New_York; each repeat uses a different
year, so the per-month and per-day caches start cold.

Run: python benchmarks/bench_cron.py [--rounds 15] [--instants 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import datetime, timezone
from typing import Callable
from zoneinfo import ZoneInfo

from croniter import croniter

from pytest_schedemu.expressions import Timeline, timeline

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)

# (label, AWS expression, zone, croniter translation)
EXPRESSIONS: list[tuple[str, str, str, str]] = [
    ("daily", "cron(0 9 * * ? *)", "UTC", "0 9 * * * 0 *"),
    ("every minute", "cron(* * * * ? *)", "UTC", "* * * * * 0 *"),
    ("every 15 min", "cron(0/15 * * * ? *)", "UTC", "0/15 * * * * 0 *"),
    ("weekdays", "cron(0 18 ? * MON-FRI *)", "UTC", "0 18 * * 1-5 0 *"),
    ("last day L", "cron(0 0 L * ? *)", "UTC", "0 0 L * * 0 *"),
    ("first Monday 2#1", "cron(0 10 ? * 2#1 *)", "UTC", "0 10 * * 1#1 0 *"),
    ("last Friday 6L", "cron(15 10 ? * 6L *)", "UTC", "15 10 * * L5 0 *"),
    ("weekday near 15W", "cron(0 8 15W * ? *)", "UTC", "0 8 15W * * 0 *"),
    # croniter's years end at 2099, so the year field it can be compared on is 2090.
    ("year field 2090", "cron(0 12 1 JAN ? 2090)", "UTC", "0 12 1 1 * 0 2090"),
    ("Feb 29 on a Monday", "cron(0 0 ? FEB MON#5 *)", "UTC", "0 0 * 2 1#5 0 *"),
    ("New York 01:30", "cron(30 1 * * ? *)", "America/New_York", "30 1 * * * 0 *"),
    (
        "New York office 15 min",
        "cron(0/15 9-17 ? * MON-FRI *)",
        "America/New_York",
        "0/15 9-17 * * 1-5 0 *",
    ),
]


def per_call_us(call: Callable[[], object], count: int) -> float:
    began = time.perf_counter()
    call()
    return (time.perf_counter() - began) / count * 1e6


def bench_next_after(rounds: int, instants: int) -> None:
    rng = random.Random(20260301)
    first = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp())
    last = int(datetime(2030, 1, 1, tzinfo=UTC).timestamp())
    epochs = [rng.randrange(first, last) for _ in range(instants)]
    moments = [datetime.fromtimestamp(x, UTC) for x in epochs]

    lines: dict[str, Timeline] = {}
    oracles: dict[str, croniter] = {}
    agreed: dict[str, int] = {}
    for label, expression, zone, translated in EXPRESSIONS:
        lines[label] = timeline(expression, timezone=zone, created_at=CREATED)
        start = datetime(2026, 1, 1, tzinfo=ZoneInfo(zone))
        oracles[label] = croniter(translated, start, max_years_between_matches=100)
        ours = [lines[label].next_after_epoch(x) for x in epochs]
        theirs = []
        for x in epochs:
            oracles[label].set_current(x, force=True)
            theirs.append(int(oracles[label].get_next(float)))
        agreed[label] = sum(a == b for a, b in zip(ours, theirs))

    samples: dict[str, dict[str, list[float]]] = {
        label: {"epoch": [], "datetime": [], "croniter": []} for label, *_ in EXPRESSIONS
    }
    for _ in range(rounds):
        for label, *_ in EXPRESSIONS:
            line, oracle = lines[label], oracles[label]

            def engine_epoch(line: Timeline = line) -> None:
                for x in epochs:
                    line.next_after_epoch(x)

            def engine_datetime(line: Timeline = line) -> None:
                for moment in moments:
                    line.next_after(moment)

            def with_croniter(oracle: croniter = oracle) -> None:
                for x in epochs:
                    oracle.set_current(x, force=True)
                    oracle.get_next(float)

            samples[label]["epoch"].append(per_call_us(engine_epoch, instants))
            samples[label]["datetime"].append(per_call_us(engine_datetime, instants))
            samples[label]["croniter"].append(per_call_us(with_croniter, instants))

    header = (
        f"{'expression':<24} {'zone':<17} {'epoch µs':>9} {'datetime µs':>12} "
        f"{'croniter µs':>12} {'ratio ep':>9} {'ratio dt':>9} {'agree':>8}"
    )
    print(f"next_after: median of {rounds} rounds x {instants} instants")
    print(header)
    print("-" * len(header))
    epoch_ratios, datetime_ratios = [], []
    for label, _, zone, _ in EXPRESSIONS:
        ours_epoch = statistics.median(samples[label]["epoch"])
        ours_datetime = statistics.median(samples[label]["datetime"])
        croniter_us = statistics.median(samples[label]["croniter"])
        epoch_ratios.append(croniter_us / ours_epoch)
        datetime_ratios.append(croniter_us / ours_datetime)
        print(
            f"{label:<24} {zone:<17} {ours_epoch:>9.2f} {ours_datetime:>12.2f} "
            f"{croniter_us:>12.1f} {epoch_ratios[-1]:>8.1f}x {datetime_ratios[-1]:>8.1f}x "
            f"{agreed[label]:>4}/{instants}"
        )
    print(
        f"median ratio: {statistics.median(epoch_ratios):.1f}x (next_after_epoch), "
        f"{statistics.median(datetime_ratios):.1f}x (next_after)"
    )

    far = timeline("cron(0 12 1 1 ? 2150)", created_at=CREATED)
    far_us = statistics.median(
        per_call_us(lambda: [far.next_after_epoch(x) for x in epochs], instants)
        for _ in range(rounds)
    )
    print(f"year field 2150 (beyond croniter's 2099): {far_us:.2f} µs per next_after_epoch")


def bench_year_of_minutes(repeats: int) -> None:
    print()
    print(f"every minute of one year via between_epochs, median of {repeats} (cold caches):")
    for zone in ("UTC", "America/New_York"):
        seconds, counts = [], set()
        for year in range(2027, 2027 + repeats):
            line = timeline("cron(* * * * ? *)", timezone=zone, created_at=CREATED)
            start = int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
            end = int(datetime(year + 1, 1, 1, tzinfo=UTC).timestamp())
            began = time.perf_counter()
            count = 0
            for _ in line.between_epochs(start, end):
                count += 1
            seconds.append(time.perf_counter() - began)
            counts.add(count)
        occurrences = "/".join(str(count) for count in sorted(counts))
        print(f"  {zone:<17} {statistics.median(seconds):.3f} s  ({occurrences} occurrences)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--instants", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    bench_next_after(args.rounds, args.instants)
    bench_year_of_minutes(args.repeats)


if __name__ == "__main__":
    main()
