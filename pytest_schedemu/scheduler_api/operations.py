"""The twelve Scheduler operations: semantic checks, store calls and response rendering.

Each handler receives the shape-validated request (model member names, timestamps as
datetimes) and returns the response document. Shape validation and idempotency have
already happened in ``app``; the checks here run in the order of the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import ValidationException, group_not_found
from pytest_schedemu.expressions import (
    InvalidScheduleExpression,
    InvalidTimezone,
    parse_expression,
    resolve_timezone,
    timeline,
)
from pytest_schedemu.formats.times import epoch_number, floor_epoch
from pytest_schedemu.model.arns import GroupArn
from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.resources import (
    DEFAULT_GROUP,
    PARAMETER_BLOCKS,
    START_DATE_GRACE,
    FlexibleTimeWindow,
    RetryPolicy,
    Schedule,
    ScheduleGroup,
    Target,
)
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store
from pytest_schedemu.targets import check_target

# A recurring schedule may not start more than five minutes before it is created.
DEFAULT_PAGE_SIZE = 100

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


def render_schedule_summary(schedule: Schedule) -> Document:
    return {
        "Arn": schedule.arn,
        "CreationDate": epoch_number(schedule.creation_date),
        "GroupName": schedule.group_name,
        "LastModificationDate": epoch_number(schedule.last_modification_date),
        "Name": schedule.name,
        "State": schedule.state,
        "Target": {"Arn": schedule.target.arn},
    }


def render_group(group: ScheduleGroup) -> Document:
    return {
        "Arn": group.arn,
        "CreationDate": epoch_number(group.creation_date),
        "LastModificationDate": epoch_number(group.last_modification_date),
        "Name": group.name,
        "State": group.state,
    }


def build_target(raw: Mapping[str, Any]) -> Target:
    return Target(
        arn=raw["Arn"],
        role_arn=raw["RoleArn"],
        input=raw.get("Input"),
        retry_policy=RetryPolicy.from_request(raw.get("RetryPolicy")),
        dead_letter_config=raw.get("DeadLetterConfig"),
        parameters={block: raw[block] for block in PARAMETER_BLOCKS if block in raw},
    )


class Operations:
    def __init__(self, store: Store, settings: LiveSettings) -> None:
        self.store = store
        self.settings = settings
        self.handlers: dict[str, Callable[[Call, Document], Document]] = {
            "CreateSchedule": self.create_schedule,
            "GetSchedule": self.get_schedule,
            "UpdateSchedule": self.update_schedule,
            "DeleteSchedule": self.delete_schedule,
            "ListSchedules": self.list_schedules,
            "CreateScheduleGroup": self.create_schedule_group,
            "GetScheduleGroup": self.get_schedule_group,
            "DeleteScheduleGroup": self.delete_schedule_group,
            "ListScheduleGroups": self.list_schedule_groups,
            "TagResource": self.tag_resource,
            "UntagResource": self.untag_resource,
            "ListTagsForResource": self.list_tags_for_resource,
        }

    # -- schedules -------------------------------------------------------------------------

    def build_schedule(
        self, call: Call, params: Document, current: Schedule | None = None
    ) -> Schedule:
        """The schedule a Create or Update describes, after the semantic checks 3-8.

        ``current`` is the schedule an Update replaces, when it exists.
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
                "MaximumWindowInMinutes must be provided when FlexibleTimeWindowMode is set "
                "to FLEXIBLE"
            )
        if window["Mode"] == "OFF" and minutes is not None:
            raise ValidationException(
                "MaximumWindowInMinutes must not be provided when FlexibleTimeWindowMode is "
                "set to OFF."
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
            raise ValidationException(
                "The StartDate you specify cannot be earlier than 5 minutes ago."
            )
        if expression.kind == "at" and self.settings.current.past_at == "reject":
            # In epoch seconds: a local time late on 9999-12-31 may lie past what a
            # datetime can hold, and such an instant is simply in the future.
            nominal = timeline(expression, timezone=zone, created_at=call.now).next_after_epoch(-1)
            if nominal is None or nominal < floor_epoch(call.now):
                raise ValidationException(f"Invalid Schedule Expression {text}.")
        target = build_target(params["Target"])
        problem = check_target(target, region=call.region)
        if problem is not None:
            raise ValidationException(problem)
        return Schedule(
            account_id=call.account_id,
            region=call.region,
            group_name=params.get("GroupName", DEFAULT_GROUP),
            name=params["Name"],
            schedule_expression=text,
            flexible_time_window=FlexibleTimeWindow(window["Mode"], minutes),
            target=target,
            creation_date=call.now,
            last_modification_date=call.now,
            incarnation=0,
            timezone=zone,
            state=params.get("State", "ENABLED"),
            action_after_completion=params.get("ActionAfterCompletion", "NONE"),
            description=params.get("Description"),
            start_date=start,
            end_date=end,
            kms_key_arn=params.get("KmsKeyArn"),
        )

    def create_schedule(self, call: Call, params: Document) -> Document:
        schedule = self.store.create_schedule(self.build_schedule(call, params))
        return {"ScheduleArn": schedule.arn}

    def update_schedule(self, call: Call, params: Document) -> Document:
        current = self.store.find_schedule(
            call.account_id, call.region, params.get("GroupName", DEFAULT_GROUP), params["Name"]
        )
        schedule = self.store.update_schedule(self.build_schedule(call, params, current))
        return {"ScheduleArn": schedule.arn}

    def get_schedule(self, call: Call, params: Document) -> Document:
        group = params.get("GroupName", DEFAULT_GROUP)
        schedule = self.store.get_schedule(call.account_id, call.region, group, params["Name"])
        return render_schedule(schedule)

    def delete_schedule(self, call: Call, params: Document) -> Document:
        group = params.get("GroupName", DEFAULT_GROUP)
        self.store.delete_schedule(call.account_id, call.region, group, params["Name"])
        return {}

    def list_schedules(self, call: Call, params: Document) -> Document:
        group = params.get("GroupName")
        prefix = params.get("NamePrefix")
        state = params.get("State")
        filters = {"ScheduleGroup": group, "NamePrefix": prefix, "State": state}
        token = params.get("NextToken")
        try:
            after = None if token is None else decode_token(token, filters_fingerprint(filters), 2)
        except ValidationException:
            if group is not None:
                # An unknown group is reported before a bad token.
                self.store.get_group(call.account_id, call.region, group)
            raise
        schedules, more = self.store.list_schedules(
            call.account_id,
            call.region,
            group=group,
            prefix=prefix,
            state_filter=state,
            after=None if after is None else (after[0], after[1]),
            limit=params.get("MaxResults", DEFAULT_PAGE_SIZE),
        )
        document: Document = {"Schedules": [render_schedule_summary(s) for s in schedules]}
        if more:
            last = schedules[-1]
            document["NextToken"] = encode_token(
                (last.group_name, last.name), filters_fingerprint(filters)
            )
        return document

    # -- groups ----------------------------------------------------------------------------

    def create_schedule_group(self, call: Call, params: Document) -> Document:
        tags = [(tag["Key"], tag["Value"]) for tag in params.get("Tags", ())]
        group = self.store.create_group(
            call.account_id, call.region, params["Name"], tags, call.now
        )
        return {"ScheduleGroupArn": group.arn}

    def get_schedule_group(self, call: Call, params: Document) -> Document:
        return render_group(self.store.get_group(call.account_id, call.region, params["Name"]))

    def delete_schedule_group(self, call: Call, params: Document) -> Document:
        self.store.delete_group(call.account_id, call.region, params["Name"], call.now)
        return {}

    def list_schedule_groups(self, call: Call, params: Document) -> Document:
        prefix = params.get("NamePrefix")
        fingerprint = filters_fingerprint({"NamePrefix": prefix})
        after = decode_token(params.get("NextToken"), fingerprint, 1)
        groups, more = self.store.list_groups(
            call.account_id,
            call.region,
            prefix,
            None if after is None else after[0],
            params.get("MaxResults", DEFAULT_PAGE_SIZE),
        )
        document: Document = {"ScheduleGroups": [render_group(g) for g in groups]}
        if more:
            document["NextToken"] = encode_token((groups[-1].name,), fingerprint)
        return document

    # -- tags ------------------------------------------------------------------------------

    def _tagged_group_name(self, call: Call, arn: str) -> str:
        # Shape validation admitted only group ARNs; one of another partition, account or
        # region names a group that does not exist here.
        parsed = GroupArn.parse(arn)
        if (parsed.partition, parsed.account, parsed.region) != (
            partition_for_region(call.region),
            call.account_id,
            call.region,
        ):
            raise group_not_found(parsed.group)
        return parsed.group

    def tag_resource(self, call: Call, params: Document) -> Document:
        name = self._tagged_group_name(call, params["ResourceArn"])
        tags = [(tag["Key"], tag["Value"]) for tag in params["Tags"]]
        self.store.tag_group(call.account_id, call.region, name, tags)
        return {}

    def untag_resource(self, call: Call, params: Document) -> Document:
        name = self._tagged_group_name(call, params["ResourceArn"])
        self.store.untag_group(call.account_id, call.region, name, params["TagKeys"])
        return {}

    def list_tags_for_resource(self, call: Call, params: Document) -> Document:
        name = self._tagged_group_name(call, params["ResourceArn"])
        group = self.store.get_group(call.account_id, call.region, name)
        tags: list[Document] = [{"Key": key, "Value": value} for key, value in group.tags]
        return {"Tags": tags}
