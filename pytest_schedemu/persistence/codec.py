"""How each thing the state holds is written in the state file's rows, and read back.

Instants are ISO 8601 text (exact to the microsecond) where they may carry a fraction, and
whole epoch seconds where the dispatcher counts in them (nominal times, attempt times).
Schedule definitions and other nested values are JSON with every non-ASCII character
escaped, so that any text a request may carry (a lone surrogate in an Input included)
survives the round trip; plain text columns fall back to UTF-8 bytes for such text.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pytest_schedemu.dispatch.state import SETTLING, Progress
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import floor_epoch, from_epoch, to_utc
from pytest_schedemu.model.resources import (
    FlexibleTimeWindow,
    RetryPolicy,
    Schedule,
    ScheduleGroup,
    Target,
)
from pytest_schedemu.records import PENDING, RETRYING, Activity, Attempt, DeadLetter, Execution
from pytest_schedemu.records.types import producer_fields

Row = tuple[Any, ...]


def instant_text(instant: datetime) -> str:
    return instant.isoformat()


def instant(text: str) -> datetime:
    return to_utc(text, what="stored instant")


def optional_instant(text: str | None) -> datetime | None:
    return None if text is None else instant(text)


def optional_instant_text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def column(text: str | None) -> str | bytes | None:
    """Text as SQLite can take it: a lone surrogate cannot be UTF-8, so such text is kept
    as the bytes Python's ``surrogatepass`` makes of it."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
    return text


def text(value: str | bytes | None) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogatepass")
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# -- schedules and groups ---------------------------------------------------------------------


def schedule_definition(schedule: Schedule) -> str:
    target = schedule.target
    window = schedule.flexible_time_window
    return dumps(
        {
            "account_id": schedule.account_id,
            "region": schedule.region,
            "group_name": schedule.group_name,
            "name": schedule.name,
            "schedule_expression": schedule.schedule_expression,
            "flexible_time_window": [window.mode, window.maximum_window_in_minutes],
            "target": {
                "arn": target.arn,
                "role_arn": target.role_arn,
                "input": target.input,
                "retry_policy": [
                    target.retry_policy.maximum_event_age_in_seconds,
                    target.retry_policy.maximum_retry_attempts,
                ],
                "dead_letter_config": target.dead_letter_config,
                "parameters": target.parameters,
            },
            "creation_date": instant_text(schedule.creation_date),
            "last_modification_date": instant_text(schedule.last_modification_date),
            "timezone": schedule.timezone,
            "state": schedule.state,
            "action_after_completion": schedule.action_after_completion,
            "description": schedule.description,
            "start_date": optional_instant_text(schedule.start_date),
            "end_date": optional_instant_text(schedule.end_date),
            "kms_key_arn": schedule.kms_key_arn,
        }
    )


def schedule_from(definition: str, incarnation: int) -> Schedule:
    data = json.loads(definition)
    target = data["target"]
    mode, minutes = data["flexible_time_window"]
    age, retries = target["retry_policy"]
    return Schedule(
        account_id=data["account_id"],
        region=data["region"],
        group_name=data["group_name"],
        name=data["name"],
        schedule_expression=data["schedule_expression"],
        flexible_time_window=FlexibleTimeWindow(mode, minutes),
        target=Target(
            arn=target["arn"],
            role_arn=target["role_arn"],
            input=target["input"],
            retry_policy=RetryPolicy(age, retries),
            dead_letter_config=target["dead_letter_config"],
            parameters=target["parameters"],
        ),
        creation_date=instant(data["creation_date"]),
        last_modification_date=instant(data["last_modification_date"]),
        incarnation=incarnation,
        timezone=data["timezone"],
        state=data["state"],
        action_after_completion=data["action_after_completion"],
        description=data["description"],
        start_date=optional_instant(data["start_date"]),
        end_date=optional_instant(data["end_date"]),
        kms_key_arn=data["kms_key_arn"],
    )


def group_row(group: ScheduleGroup, removal_due: datetime | None) -> Row:
    return (
        group.account_id,
        group.region,
        group.name,
        instant_text(group.creation_date),
        instant_text(group.last_modification_date),
        group.state,
        dumps(group.tags),
        optional_instant_text(removal_due),
    )


def group_from(row: Row) -> tuple[ScheduleGroup, datetime | None]:
    account, region, name, created, modified, state, tags, removal_due = row
    group = ScheduleGroup(
        account,
        region,
        name,
        instant(created),
        instant(modified),
        state,
        tuple((key, value) for key, value in json.loads(tags)),
    )
    return group, optional_instant(removal_due)


# -- records ----------------------------------------------------------------------------------


def attempt_row(number: int, attempt: Attempt) -> Row:
    """The row of an attempt: reading every field works out the lazy ones."""
    return (
        number,
        attempt.incarnation,
        floor_epoch(attempt.scheduled_time),
        attempt.producer_key,
        attempt.target_arn,
        floor_epoch(attempt.attempted_at),
        attempt.attempt_number,
        attempt.event_id,
        attempt.execution_id,
        column(attempt.input),
        column(attempt.request_text),
        attempt.succeeded,
        column(attempt.error_code),
        column(attempt.error_message),
        attempt.retryable,
        attempt.group_name,
        attempt.schedule_name,
        attempt.fired,
    )


class StoredAttemptFields:
    """The parsed fields of a restored attempt, parsed on first read like a live one's."""

    __slots__ = ("_input", "_request_text")

    def __init__(self, input_text: str | None, request_text: str) -> None:
        self._input = input_text
        self._request_text = request_text

    def compute(self, name: str) -> Any:
        if name == "payload":
            return jsontext.loads_or_none(self._input)
        if name == "request":
            return jsontext.loads_or_none(self._request_text)
        raise AttributeError(name)


def attempt_from(row: Row) -> Attempt:
    (
        _,
        incarnation,
        nominal,
        producer,
        target_arn,
        attempted_at,
        number,
        event_id,
        execution_id,
        input_value,
        request_value,
        succeeded,
        error_code,
        error_message,
        retryable,
        group,
        name,
        fired,
    ) = row
    input_text = text(input_value)
    request_text = text(request_value) or ""
    known = {
        **producer_fields(producer),
        "target_arn": target_arn,
        "scheduled_time": from_epoch(nominal),
        "attempted_at": from_epoch(attempted_at),
        "attempt_number": number,
        "event_id": event_id,
        "execution_id": execution_id,
        "input": input_text,
        "request_text": request_text,
        "succeeded": bool(succeeded),
        "error_code": text(error_code),
        "error_message": text(error_message),
        "retryable": None if retryable is None else bool(retryable),
        "group_name": group,
        "schedule_name": name,
        "incarnation": incarnation,
        "fired": bool(fired),
    }
    return Attempt.lazily(known, StoredAttemptFields(input_text, request_text))


def dead_letter_row(number: int, letter: DeadLetter) -> Row:
    return (
        number,
        letter.queue_arn,
        column(letter.body),
        json.dumps(letter.attributes),
        letter.producer_key,
        floor_epoch(letter.scheduled_time),
        optional_instant_text(letter.sent_at),
        letter.queue_url,
        letter.delivered,
        column(letter.input),
    )


def dead_letter_from(row: Row) -> DeadLetter:
    (
        _,
        queue_arn,
        body_value,
        attributes,
        producer,
        scheduled,
        sent_at,
        url,
        delivered,
        input_value,
    ) = row
    body = text(body_value) or ""
    return DeadLetter(
        queue_arn=queue_arn,
        body=body,
        payload=jsontext.loads_or_none(body),
        attributes=json.loads(attributes),
        scheduled_time=from_epoch(scheduled),
        sent_at=optional_instant(sent_at),
        queue_url=url,
        delivered=bool(delivered),
        input=text(input_value),
        **producer_fields(producer),
    )


def activity_row(number: int, activity: Activity) -> Row:
    scheduled = activity.scheduled_time
    return (
        number,
        activity.kind,
        instant_text(activity.at),
        activity.producer_key,
        None if scheduled is None else floor_epoch(scheduled),
        column(activity.detail),
    )


def activity_from(row: Row) -> Activity:
    _, kind, at, producer, scheduled, detail = row
    return Activity(
        kind,
        instant(at),
        scheduled_time=None if scheduled is None else from_epoch(scheduled),
        detail=text(detail) or "",
        **producer_fields(producer),
    )


#: The statuses of occurrences that still have work to do.
UNSETTLED = (PENDING, RETRYING, SETTLING)


def occurrence_row(seq: int, progress: Progress) -> Row:
    """The row of an occurrence: what it is, then where it stands (``occurrence_update``)."""
    return (
        seq,
        progress.incarnation,
        progress.nominal,
        progress.fired,
        progress.event_id,
        progress.producer,
        progress.group_name,
        progress.schedule_name,
        progress.first_due,
        *occurrence_update(progress),
    )


def occurrence_update(progress: Progress) -> Row:
    """The columns of an occurrence's row that change as it goes."""
    return (
        progress.status,
        progress.first_attempt_at,
        progress.exhausted,
        progress.next_number,
        progress.next_due,
    )


def progress_from(row: Row) -> Progress:
    _, *columns = row  # the columns after seq are Progress's fields, in order
    return Progress(*columns)


def execution_from(progress: Progress, attempts: list[Attempt]) -> Execution:
    """The record of a settled occurrence read back (``progress.status`` how it settled)."""
    return Execution(
        scheduled_time=from_epoch(progress.nominal),
        event_id=progress.event_id,
        status=progress.status,
        attempts=tuple(attempts),
        group_name=progress.group_name,
        schedule_name=progress.schedule_name,
        first_attempt_due=from_epoch(progress.first_due),
        exhausted_condition=progress.exhausted,
        fired=progress.fired > 0,
        **producer_fields(progress.producer),
    )
