"""The dashboard's first paint with 10,000 schedules, in headless Chromium.

An emulator in this process holds the schedules (created through boto3, in process) and a
virtual hour of their attempts; Debian's Chromium, driven by Playwright, opens
``/_schedemu/ui`` over HTTP in a fresh page each round. Reported, from the navigation's
start: the first contentful paint, the schedule rows rendered (the page's
``schedemu:rows`` mark), and the timeline drawn (``schedemu:timeline``).

Target: the first paint <= 1 s with 10,000 schedules (the rows are what a person waits for,
so they are held to it too).

Run: python benchmarks/bench_dashboard.py [--schedules 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from pytest_schedemu import Emulator

ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:jobs"
TARGET_SECONDS = 1.0
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def populate(emu: Emulator, count: int) -> None:
    client = emu.client()
    groups = ["billing", "reports", "sync", "notifications"]
    for name in groups:
        client.create_schedule_group(Name=name)
    for index in range(count):
        client.create_schedule(
            Name=f"job-{index:05d}",
            GroupName=groups[index % len(groups)],
            ScheduleExpression="rate(1 hour)" if index % 3 else "cron(0 9 * * ? *)",
            ScheduleExpressionTimezone="UTC" if index % 3 else "Europe/Berlin",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
            State="DISABLED" if index % 10 == 0 else "ENABLED",
        )
    emu.clock.advance(hours=1)


def measure(page: Any, url: str) -> dict[str, float]:
    page.goto(url)
    page.wait_for_function(
        "performance.getEntriesByName('schedemu:rows').length > 0 && "
        "performance.getEntriesByName('schedemu:timeline').length > 0",
        timeout=30_000,
    )
    return dict(
        page.evaluate(
            """() => ({
                paint: performance.getEntriesByName('first-contentful-paint')[0].startTime,
                rows: performance.getEntriesByName('schedemu:rows')[0].startTime,
                timeline: performance.getEntriesByName('schedemu:timeline')[0].startTime,
                rendered: document.querySelectorAll('#schedules tbody tr').length,
            })"""
        )
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    executable = os.environ.get("SCHEDEMU_CHROMIUM", "/usr/bin/chromium")
    with Emulator(start="2026-03-07T08:00:00Z", transport="inprocess") as emu:
        started = time.perf_counter()
        populate(emu, args.schedules)
        print(
            f"{args.schedules:,} schedules and {len(emu.attempts()):,} attempts made in "
            f"{time.perf_counter() - started:.1f} s"
        )
        url = f"{emu.endpoint_url}/_schedemu/ui"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=ARGS)
            results = []
            for _ in range(args.rounds + 1):
                context = browser.new_context(viewport={"width": 1440, "height": 1000})
                results.append(measure(context.new_page(), url))
                context.close()
            browser.close()
    # The first round also pays for the browser's own warm-up; it is shown, not counted.
    first, rest = results[0], results[1:]
    print(f"{'':>22} {'first round':>12} {'median':>8} {'worst':>8}")
    for key, label in (
        ("paint", "first contentful paint"),
        ("rows", "schedule rows"),
        ("timeline", "timeline drawn"),
    ):
        values = [r[key] for r in rest]
        print(
            f"{label:>22} {first[key]:>9.0f} ms {statistics.median(values):>5.0f} ms "
            f"{max(values):>5.0f} ms"
        )
    paint = statistics.median(r["paint"] for r in rest) / 1000
    rows = statistics.median(r["rows"] for r in rest) / 1000
    print(
        f"rows rendered: {int(first['rendered'])}; first paint {paint / TARGET_SECONDS:.2f}x "
        f"and rows {rows / TARGET_SECONDS:.2f}x of the {TARGET_SECONDS:.0f} s target"
    )


if __name__ == "__main__":
    main()
