"""What a CreateSchedule, UpdateSchedule or CreateScheduleGroup request makes, after the
semantic checks the reference lists (shape validation has already happened).

The one place a schedule or a group is made from a request, whichever door it came by: an
API call, a stack's resource, or a stored schedule re-checked on import.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from sys import intern
from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import ROLE_NOT_ASSUMABLE, ValidationException
from pytest_schedemu.expressions import (
    InvalidScheduleExpression,
    InvalidTimezone,
    parse_expression,
    resolve_timezone,
    timeline,
)
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.resources import (
    DEFAULT_GROUP,
    PARAMETER_BLOCKS,
    START_DATE_GRACE,
    RetryPolicy,
    Schedule,
    ScheduleGroup,
    Target,
    flexible_time_window,
)
from pytest_schedemu.targets import check_target
from pytest_schedemu.targets.permissions import Knowledge, creation_verdict

Document = dict[str, Any]


#: The parameters of a target that has none, one mapping for all of them: nothing changes
#: a stored record's mappings.
NO_PARAMETERS: Mapping[str, Mapping[str, Any]] = {}


def target_from(raw: Mapping[str, Any]) -> Target:
    parameters = {block: raw[block] for block in PARAMETER_BLOCKS if block in raw}
    return Target(
        arn=intern(raw["Arn"]),
        role_arn=intern(raw["RoleArn"]),
        input=raw.get("Input"),
        retry_policy=RetryPolicy.from_request(raw.get("RetryPolicy")),
        dead_letter_config=raw.get("DeadLetterConfig"),
        parameters=parameters or NO_PARAMETERS,
    )


class _SharedInstant:
    """The last instant a schedule was stamped with, to stamp the next one with the same
    object when the clock has not moved: a service sees many changes at one instant."""

    last: datetime | None = None

    @classmethod
    def of(cls, instant: datetime) -> datetime:
        last = cls.last
        if last is not None and last == instant and last.tzinfo is instant.tzinfo:
            return last
        cls.last = instant
        return instant


def schedule_from(
    call: Call, params: Document, reject_past_at: bool, current: Schedule | None = None
) -> Schedule:
    """The schedule a Create or Update describes, after the semantic checks 3-8.

    ``current`` is the schedule an Update replaces, when it exists; ``reject_past_at``
    refuses an ``at()`` whose time has passed (the ``past_at`` setting's ``reject``).
    """
    text = params["ScheduleExpression"]
    try:
        expression = parse_expression(text)
    except InvalidScheduleExpression as error:
        raise ValidationException(str(error)) from None
    zone = params.get("ScheduleExpressionTimezone", "UTC")
    try:
        resolve_timezone(zone)
    except InvalidTimezone as error:
        raise ValidationException(str(error)) from None
    window = params["FlexibleTimeWindow"]
    minutes = window.get("MaximumWindowInMinutes")
    if window["Mode"] == "FLEXIBLE" and minutes is None:
        raise ValidationException(
            "MaximumWindowInMinutes must be provided when FlexibleTimeWindowMode is set to FLEXIBLE"
        )
    if window["Mode"] == "OFF" and minutes is not None:
        raise ValidationException(
            "MaximumWindowInMinutes must not be provided when FlexibleTimeWindowMode is set to OFF."
        )
    start: datetime | None = params.get("StartDate")
    end: datetime | None = params.get("EndDate")
    if start is not None and end is not None and start >= end:
        raise ValidationException("The StartDate you specify must come before the EndDate.")
    # AWS advises copying GetSchedule's answer into UpdateSchedule: an unchanged
    # StartDate stays valid after it has passed.
    unchanged = current is not None and start == current.start_date
    if (
        expression.recurring
        and start is not None
        and start < call.now - START_DATE_GRACE
        and not unchanged
    ):
        raise ValidationException("The StartDate you specify cannot be earlier than 5 minutes ago.")
    if expression.kind == "at" and reject_past_at:
        # In epoch seconds: a local time late on 9999-12-31 may lie past what a
        # datetime can hold, and such an instant is simply in the future.
        nominal = timeline(expression, timezone=zone, created_at=call.now).next_after_epoch(-1)
        if nominal is None or nominal < floor_epoch(call.now):
            raise ValidationException(f"Invalid Schedule Expression {text}.")
    target = target_from(params["Target"])
    problem = check_target(target, region=call.region)
    if problem is not None:
        raise ValidationException(problem)
    now = _SharedInstant.of(call.now)
    # Texts that many schedules hold alike are kept once (interned): the partition, the
    # group, the expression, the zone, and the target's and role's ARNs.
    return Schedule(
        account_id=intern(call.account_id),
        region=intern(call.region),
        group_name=intern(params.get("GroupName", DEFAULT_GROUP)),
        name=params["Name"],
        schedule_expression=intern(text),
        flexible_time_window=flexible_time_window(intern(window["Mode"]), minutes),
        target=target,
        creation_date=now,
        last_modification_date=now,
        incarnation=0,
        timezone=intern(zone),
        state=intern(params.get("State", "ENABLED")),
        action_after_completion=intern(params.get("ActionAfterCompletion", "NONE")),
        description=params.get("Description"),
        start_date=start,
        end_date=end,
        kms_key_arn=params.get("KmsKeyArn"),
    )


def check_role(schedule: Schedule, knowledge: Knowledge, iam: str) -> Schedule:
    """``schedule``, unless its execution role is one the emulator knows and Scheduler may
    not assume: then CreateSchedule and UpdateSchedule refuse it, as AWS's do."""
    if creation_verdict(schedule.target.role_arn, knowledge, iam) is not None:
        raise ValidationException(ROLE_NOT_ASSUMABLE)
    return schedule


def group_from(call: Call, params: Document) -> ScheduleGroup:
    """The group a CreateScheduleGroup request describes (its tags as given: the store
    merges a repeated key and counts them)."""
    tags = tuple((tag["Key"], tag["Value"]) for tag in params.get("Tags", ()))
    return ScheduleGroup(
        call.account_id, call.region, params["Name"], call.now, call.now, tags=tags
    )
