"""Writes the example timeline shown in docs/timeline.png.

Three days of virtual time across the start of US daylight saving time (8 March 2026):
a 09:00 New York cron, a Lambda that fails with throttling (retries, one occurrence
dead-lettered), a rate schedule with a flexible window, a one-time schedule that deletes
itself, a schedule deleted by the application, and one disabled.

The emulator does not record creations, updates and deletions yet, so this script adds
those activity records itself, at the instants it makes the calls.

Run: python docs/timeline_example.py /tmp/timeline.html
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from pytest_schedemu.records import Activity
from pytest_schedemu.timeline import TimelineData, render_timeline_html

START = datetime(2026, 3, 7, 0, 0, tzinfo=timezone.utc)
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:reports"
DLQ = "arn:aws:sqs:us-east-1:123456789012:invoices-dlq"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:charge-invoices"


def scenario() -> TimelineData:
    changes: list[Activity] = []
    known: dict[str, Any] = {}
    with Emulator(start=START, transport="inprocess") as emu:
        client = emu.client()

        def create(name: str, expression: str, target: dict[str, Any], **extra: Any) -> str:
            arn = str(
                client.create_schedule(
                    Name=name,
                    ScheduleExpression=expression,
                    FlexibleTimeWindow=extra.pop("window", {"Mode": "OFF"}),
                    Target={"RoleArn": ROLE, **target},
                    **extra,
                )["ScheduleArn"]
            )
            changes.append(Activity("created", emu.clock.now(), arn, None, expression))
            known.update((s.arn, s) for s in emu.schedules())
            return arn

        create(
            "morning-report",
            "cron(0 9 * * ? *)",
            {"Arn": QUEUE, "Input": '{"report": "daily", "format": "pdf"}'},
            ScheduleExpressionTimezone="America/New_York",
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
        legacy = create(
            "legacy-cleanup", "cron(30 */4 * * ? *)", {"Arn": QUEUE}, GroupName="maintenance"
        )
        create(
            "trial-expiry",
            "at(2026-03-08T15:00:00)",
            {"Arn": QUEUE, "Input": '{"user": "ada", "plan": "trial"}'},
            ScheduleExpressionTimezone="Europe/London",
            ActionAfterCompletion="DELETE",
        )
        paused = create(
            "weekly-digest",
            "cron(0 8 ? * MON *)",
            {"Arn": QUEUE},
            ScheduleExpressionTimezone="Europe/Berlin",
        )

        emu.target(FUNCTION).fail(times=12, error_code="ThrottlingException")
        emu.clock.advance(hours=20)
        known.update((s.arn, s) for s in emu.schedules())
        client.update_schedule(
            Name="weekly-digest",
            ScheduleExpression="cron(0 8 ? * MON *)",
            ScheduleExpressionTimezone="Europe/Berlin",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
            State="DISABLED",
        )
        changes.append(
            Activity("updated", emu.clock.now(), paused, None, "state ENABLED -> DISABLED")
        )
        emu.clock.advance(hours=22)
        known.update((s.arn, s) for s in emu.schedules())
        client.delete_schedule(Name="legacy-cleanup", GroupName="maintenance")
        changes.append(Activity("deleted", emu.clock.now(), legacy, None, "DeleteSchedule"))
        emu.target(QUEUE).fail(times=2, error_code="ServiceUnavailable")
        emu.clock.advance(hours=26)
        emu.target(QUEUE).missing()
        emu.clock.advance(hours=2, minutes=10)
        emu.target(QUEUE).recover()
        emu.clock.advance(minutes=20)

        arns = {a.schedule_arn for a in emu.attempts()} | {s.arn for s in emu.schedules()}
        executions = [e for arn in sorted(arns) for e in emu.executions(arn)]
        # Deleted schedules keep their last known record, so their lanes still show their
        # expression and zone (the deletion itself is in the activity).
        current = {s.arn: s for s in emu.schedules()}
        return TimelineData(
            schedules=[*current.values(), *(s for a, s in known.items() if a not in current)],
            executions=executions,
            activity=sorted([*emu.activity(), *changes], key=lambda a: a.at),
            dead_letters=emu.dead_letters(),
            now=emu.clock.now(),
        )


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "timeline.html")
    data = scenario()
    path.write_text(render_timeline_html(data, title="reminders service, 7-10 March 2026"))
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
