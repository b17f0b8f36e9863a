"""Writes the example timeline shown in docs/timeline.png, with ``emu.timeline()``.

Three days of virtual time across the start of US daylight saving time (8 March 2026):
a 09:00 New York cron, a Lambda that fails with throttling (retries, one occurrence
dead-lettered), a rate schedule with a flexible window, a one-time schedule that deletes
itself, a schedule deleted by the application, and one disabled. docs/dashboard_example.py
plays the same story into the dashboard.

Run: python docs/timeline_example.py /tmp/timeline.html [--png docs/timeline.png]
(the picture is taken with Debian's Chromium through Playwright).
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator

START = datetime(2026, 3, 7, 0, 0, tzinfo=timezone.utc)
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:reports"
DLQ = "arn:aws:sqs:us-east-1:123456789012:invoices-dlq"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:charge-invoices"
TITLE = "reminders service, 7-10 March 2026"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def play(emu: Emulator) -> None:
    """The story: schedules created through boto3, then three days of virtual time."""
    client = emu.client()

    def create(name: str, expression: str, target: dict[str, Any], **extra: Any) -> None:
        client.create_schedule(
            Name=name,
            ScheduleExpression=expression,
            FlexibleTimeWindow=extra.pop("window", {"Mode": "OFF"}),
            Target={"RoleArn": ROLE, **target},
            **extra,
        )

    create(
        "morning-report",
        "cron(0 9 * * ? *)",
        {"Arn": QUEUE, "Input": '{"report": "daily", "format": "pdf"}'},
        ScheduleExpressionTimezone="America/New_York",
        Description="The daily report, at 09:00 in New York",
    )
    create(
        "charge-invoices",
        "cron(0 6,18 * * ? *)",
        {
            "Arn": FUNCTION,
            "Input": '{"batch": "<aws.scheduler.scheduled-time>", "dry_run": false}',
            "RetryPolicy": {"MaximumRetryAttempts": 185, "MaximumEventAgeInSeconds": 21600},
            "DeadLetterConfig": {"Arn": DLQ},
        },
    )
    create(
        "sync-inventory",
        "rate(3 hours)",
        {"Arn": QUEUE, "Input": '{"sync": "inventory"}'},
        window={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 45},
    )
    client.create_schedule_group(Name="maintenance")
    create("legacy-cleanup", "cron(30 */4 * * ? *)", {"Arn": QUEUE}, GroupName="maintenance")
    create(
        "trial-expiry",
        "at(2026-03-08T15:00:00)",
        {"Arn": QUEUE, "Input": '{"user": "ada", "plan": "trial"}'},
        ScheduleExpressionTimezone="Europe/London",
        ActionAfterCompletion="DELETE",
    )
    create(
        "weekly-digest",
        "cron(0 8 ? * MON *)",
        {"Arn": QUEUE},
        ScheduleExpressionTimezone="Europe/Berlin",
    )

    emu.target(FUNCTION).fail(times=12, error_code="ThrottlingException")
    emu.clock.advance(hours=20)
    client.update_schedule(
        Name="weekly-digest",
        ScheduleExpression="cron(0 8 ? * MON *)",
        ScheduleExpressionTimezone="Europe/Berlin",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
        State="DISABLED",
    )
    emu.clock.advance(hours=22)
    client.delete_schedule(Name="legacy-cleanup", GroupName="maintenance")
    emu.target(QUEUE).fail(times=2, error_code="ServiceUnavailable")
    emu.clock.advance(hours=26)
    emu.target(QUEUE).missing()
    emu.clock.advance(hours=2, minutes=10)
    emu.target(QUEUE).recover()
    emu.clock.advance(minutes=20)


def screenshot(page_path: Path, png: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1250, "height": 600})
        page.goto(page_path.resolve().as_uri())
        page.screenshot(path=str(png), full_page=True)
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="timeline.html")
    parser.add_argument("--png", help="also take a picture of the page, as a PNG file")
    args = parser.parse_args()
    with Emulator(start=START, transport="inprocess") as emu:
        play(emu)
        path = emu.timeline(args.path, title=TITLE)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    if args.png:
        screenshot(path, Path(args.png))
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
