"""The command layer's checks of a group, a schedule or a rule that arrives stored rather
than requested (a state import): it must be what the operations would have made.

A schedule is put through CreateSchedule's shape validation and semantic checks as the
UpdateSchedule that copies GetSchedule's answer would be: its StartDate, already accepted
once, stays valid after it has passed, and an ``at()`` whose time has passed is simply
done. A group goes through CreateScheduleGroup's. A rule goes through PutRule's, and its
targets through PutTargets': whatever those refuse (or fail in ``FailedEntries``) is
refused, and what PutTargets makes of each target as it was sent (``raw``) must be the
imported target. Nothing is stored: the import writes the state file itself, all or
nothing. Each check raises an ``ApiError``, whose message names the field.

Shape validation is the APIs' (``protocol/validation.py``, by the service models): the
caller hands the validators in, as ``Shapes``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.rule_targets import sort_entries
from pytest_schedemu.commands.rules import check_rule_request, event_bus
from pytest_schedemu.commands.schedules import schedule_from
from pytest_schedemu.errors import ValidationException, too_many_tags
from pytest_schedemu.model.documents import render_schedule
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.state.admission import MAX_TAGS_PER_GROUP
from pytest_schedemu.state.rules import MAX_TARGETS_PER_RULE, too_many_targets

#: What GetSchedule answers that CreateSchedule does not take.
_OUTPUT_ONLY = ("Arn", "CreationDate", "LastModificationDate")
_GROUP_STATES = ("ACTIVE", "DELETING")


class OperationShape(Protocol):
    def validate(self, params: dict[str, Any]) -> Any: ...


class Shapes(Protocol):
    """A service's shape validators, by operation name."""

    def __getitem__(self, operation: str) -> OperationShape: ...


class Vetting:
    """The operations' checks of a stored schedule, group and rule."""

    def __init__(self, scheduler: Shapes, events: Shapes) -> None:
        self._scheduler = scheduler
        self._events = events

    def schedule(self, schedule: Schedule) -> None:
        params = {k: v for k, v in render_schedule(schedule).items() if k not in _OUTPUT_ONLY}
        cleaned = self._scheduler["CreateSchedule"].validate(params)
        call = Call(schedule.account_id, schedule.region, schedule.last_modification_date)
        schedule_from(call, cleaned, reject_past_at=False, current=schedule)

    def group(self, group: ScheduleGroup) -> None:
        params = {"Name": group.name, "Tags": [{"Key": k, "Value": v} for k, v in group.tags]}
        self._scheduler["CreateScheduleGroup"].validate(params)
        if group.state not in _GROUP_STATES:
            raise ValidationException(
                f"Value '{group.state}' at 'state' failed to satisfy constraint: Member must "
                f"satisfy enum value set: [{', '.join(_GROUP_STATES)}]"
            )

    def rule(self, rule: Rule) -> None:
        call = Call(rule.account_id, rule.region, rule.creation_date)
        request: dict[str, Any] = {
            "Name": rule.name,
            "EventBusName": rule.event_bus_name,
            "State": rule.state,
            "Tags": [{"Key": key, "Value": value} for key, value in rule.tags],
        }
        optional = (
            ("ScheduleExpression", rule.schedule_expression),
            ("EventPattern", rule.event_pattern),
            ("Description", rule.description),
            ("RoleArn", rule.role_arn),
        )
        request.update((member, value) for member, value in optional if value is not None)
        check_rule_request(self._events["PutRule"].validate(request))
        event_bus(call, rule.event_bus_name)
        if len(dict(rule.tags)) > MAX_TAGS_PER_GROUP:  # a repeated key counts once
            raise too_many_tags()
        if not rule.targets:
            return
        targets = {
            "Rule": rule.name,
            "EventBusName": rule.event_bus_name,
            "Targets": [dict(target.raw) for target in rule.targets],
        }
        cleaned = self._events["PutTargets"].validate(targets)
        accepted, failed = sort_entries(cleaned["Targets"], call.region)
        if len(accepted) > MAX_TARGETS_PER_RULE:
            raise too_many_targets()
        if failed:
            raise ValidationException(
                f"target {failed[0]['TargetId']}: {failed[0]['ErrorMessage']}"
            )
        # What firing reads must be what PutTargets makes of the target as it was sent.
        given = [dataclasses.replace(target, incarnation=0) for target in rule.targets]
        if accepted != given:
            raise ValidationException(
                "the rule's targets are not what PutTargets makes of them as sent (raw): "
                "each target's fields must follow from its raw entry, with distinct ids"
            )
