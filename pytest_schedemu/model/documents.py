"""A schedule as the Scheduler API spells it: what GetSchedule answers.

Written once, here, for its two readers: the API's answers, and the checks of a schedule
that arrives without a request (a state import), which turn the record back into the
request that would have made it.
"""

from __future__ import annotations

from typing import Any

from pytest_schedemu.formats.times import epoch_number
from pytest_schedemu.model.resources import Schedule, Target

Document = dict[str, Any]


def render_schedule(schedule: Schedule) -> Document:
    window: Document = {"Mode": schedule.flexible_time_window.mode}
    if schedule.flexible_time_window.maximum_window_in_minutes is not None:
        window["MaximumWindowInMinutes"] = schedule.flexible_time_window.maximum_window_in_minutes
    document: Document = {
        "ActionAfterCompletion": schedule.action_after_completion,
        "Arn": schedule.arn,
        "CreationDate": epoch_number(schedule.creation_date),
        "FlexibleTimeWindow": window,
        "GroupName": schedule.group_name,
        "LastModificationDate": epoch_number(schedule.last_modification_date),
        "Name": schedule.name,
        "ScheduleExpression": schedule.schedule_expression,
        "ScheduleExpressionTimezone": schedule.timezone,
        "State": schedule.state,
        "Target": render_target(schedule.target),
    }
    if schedule.description is not None:
        document["Description"] = schedule.description
    if schedule.start_date is not None:
        document["StartDate"] = epoch_number(schedule.start_date)
    if schedule.end_date is not None:
        document["EndDate"] = epoch_number(schedule.end_date)
    if schedule.kms_key_arn is not None:
        document["KmsKeyArn"] = schedule.kms_key_arn
    return document


def render_target(target: Target) -> Document:
    document: Document = {
        "Arn": target.arn,
        "RetryPolicy": {
            "MaximumEventAgeInSeconds": target.retry_policy.maximum_event_age_in_seconds,
            "MaximumRetryAttempts": target.retry_policy.maximum_retry_attempts,
        },
        "RoleArn": target.role_arn,
    }
    if target.input is not None:
        document["Input"] = target.input
    if target.dead_letter_config is not None:
        document["DeadLetterConfig"] = dict(target.dead_letter_config)
    for block, value in target.parameters.items():
        document[block] = value
    return document
