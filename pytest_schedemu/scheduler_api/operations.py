"""The twelve Scheduler operations: what each reads or asks the command layer to change,
and the answer rendered.

Each handler receives the shape-validated request (model member names, timestamps as
datetimes) and returns the response document. Shape validation and idempotency have
already happened in ``app``; the semantic checks and every change are the command
layer's (``commands``), the same for a request and a stack's resource.
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.errors import ValidationException, group_not_found
from pytest_schedemu.formats.times import epoch_number
from pytest_schedemu.model.arns import GroupArn
from pytest_schedemu.model.documents import render_schedule
from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint

DEFAULT_PAGE_SIZE = 100

Document = dict[str, Any]


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


class Operations:
    def __init__(self, commands: Commands) -> None:
        self.commands = commands
        self.store = commands.store
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

    def create_schedule(self, call: Call, params: Document) -> Document:
        return {"ScheduleArn": self.commands.create_schedule(call, params).arn}

    def update_schedule(self, call: Call, params: Document) -> Document:
        return {"ScheduleArn": self.commands.update_schedule(call, params).arn}

    def get_schedule(self, call: Call, params: Document) -> Document:
        group = params.get("GroupName", DEFAULT_GROUP)
        schedule = self.store.get_schedule(call.account_id, call.region, group, params["Name"])
        return render_schedule(schedule)

    def delete_schedule(self, call: Call, params: Document) -> Document:
        group = params.get("GroupName", DEFAULT_GROUP)
        self.commands.delete_schedule(call, group, params["Name"])
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
        return {"ScheduleGroupArn": self.commands.create_group(call, params).arn}

    def get_schedule_group(self, call: Call, params: Document) -> Document:
        return render_group(self.store.get_group(call.account_id, call.region, params["Name"]))

    def delete_schedule_group(self, call: Call, params: Document) -> Document:
        self.commands.delete_group(call, params["Name"])
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
        self.commands.tag_group(call, name, params["Tags"])
        return {}

    def untag_resource(self, call: Call, params: Document) -> Document:
        name = self._tagged_group_name(call, params["ResourceArn"])
        self.commands.untag_group(call, name, params["TagKeys"])
        return {}

    def list_tags_for_resource(self, call: Call, params: Document) -> Document:
        name = self._tagged_group_name(call, params["ResourceArn"])
        group = self.store.get_group(call.account_id, call.region, name)
        tags: list[Document] = [{"Key": key, "Value": value} for key, value in group.tags]
        return {"Tags": tags}
