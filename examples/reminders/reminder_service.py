"""A small reminders service built on EventBridge Scheduler.

- one-time reminders per user, at a wall-clock time in the user's own time zone, that
  delete themselves once delivered;
- a nightly digest to an SQS queue;
- invoice retries through a Lambda function, with a retry policy and a dead-letter queue;
- users can pause their reminders.

The service only knows boto3: it builds its client the ordinary way, so in tests it talks
to whatever ``AWS_ENDPOINT_URL_SCHEDULER`` points at.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import boto3

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/reminders-scheduler"
GROUP = "reminders"


@dataclass(frozen=True)
class Config:
    region: str = "us-east-1"
    digest_queue_arn: str = f"arn:aws:sqs:us-east-1:{ACCOUNT}:digests"
    invoice_function_arn: str = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:charge-invoice"
    dead_letter_queue_arn: str = f"arn:aws:sqs:us-east-1:{ACCOUNT}:reminders-dlq"


class ReminderService:
    def __init__(self, config: Config | None = None, client: Any = None) -> None:
        self.config = config or Config()
        self.client = client or boto3.client("scheduler", region_name=self.config.region)

    def setup(self) -> None:
        """Create the service's schedule group (once per account and region)."""
        with contextlib.suppress(self.client.exceptions.ConflictException):
            self.client.create_schedule_group(
                Name=GROUP, Tags=[{"Key": "service", "Value": "reminders"}]
            )

    def remind(self, user: str, text: str, at_local: datetime, timezone: str) -> str:
        """Remind ``user`` once, at ``at_local`` on the wall clock of ``timezone``."""
        name = f"remind-{user}-{at_local:%Y%m%d%H%M}"
        response = self.client.create_schedule(
            Name=name,
            GroupName=GROUP,
            ScheduleExpression=f"at({at_local:%Y-%m-%dT%H:%M:%S})",
            ScheduleExpressionTimezone=timezone,
            FlexibleTimeWindow={"Mode": "OFF"},
            ActionAfterCompletion="DELETE",
            Target={
                "Arn": self.config.digest_queue_arn,
                "RoleArn": ROLE,
                "Input": json.dumps(
                    {
                        "user": user,
                        "text": text,
                        "scheduledFor": "<aws.scheduler.scheduled-time>",
                    }
                ),
            },
        )
        return str(response["ScheduleArn"])

    def schedule_nightly_digest(self, timezone: str = "America/New_York") -> None:
        """Every night at 02:30 local time, send a digest request to the queue."""
        self.client.create_schedule(
            Name="nightly-digest",
            GroupName=GROUP,
            ScheduleExpression="cron(30 2 * * ? *)",
            ScheduleExpressionTimezone=timezone,
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": self.config.digest_queue_arn, "RoleArn": ROLE},
        )

    def schedule_invoice_run(self) -> None:
        """Charge invoices hourly through Lambda, three retries, then the dead-letter queue."""
        self.client.create_schedule(
            Name="invoice-run",
            GroupName=GROUP,
            ScheduleExpression="rate(1 hour)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={
                "Arn": self.config.invoice_function_arn,
                "RoleArn": ROLE,
                "Input": json.dumps({"run": "<aws.scheduler.execution-id>"}),
                "RetryPolicy": {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 3600},
                "DeadLetterConfig": {"Arn": self.config.dead_letter_queue_arn},
            },
        )

    def pause(self, name: str) -> None:
        """Disable a schedule, keeping everything else about it."""
        current = self.client.get_schedule(Name=name, GroupName=GROUP)
        keep = {
            key: current[key]
            for key in (
                "ScheduleExpression",
                "ScheduleExpressionTimezone",
                "FlexibleTimeWindow",
                "Target",
                "ActionAfterCompletion",
            )
            if key in current
        }
        self.client.update_schedule(Name=name, GroupName=GROUP, State="DISABLED", **keep)

    def pending_reminders(self) -> list[str]:
        pages = self.client.get_paginator("list_schedules").paginate(
            GroupName=GROUP, NamePrefix="remind-"
        )
        return [s["Name"] for page in pages for s in page["Schedules"]]
