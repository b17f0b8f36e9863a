"""The API's checks, for schedules, groups and rules that arrive by another door (a state
import).

A schedule is put through CreateSchedule's shape validation and semantic checks as the
UpdateSchedule that copies GetSchedule's answer would be: its StartDate, already accepted
once, stays valid after it has passed, and an ``at()`` whose time has passed is simply
done. A group goes through CreateScheduleGroup's. A rule is put, and its targets, by the
very PutRule and PutTargets handlers a request reaches, into a scratch store of their own:
whatever they refuse (or fail in ``FailedEntries``) is refused, and the targets they store
must be the imported ones. Each check raises an ``ApiError``, whose message names the field.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.events_api.app import events_validator
from pytest_schedemu.events_api.operations import RuleOperations
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.scheduler_api.app import service_validator
from pytest_schedemu.scheduler_api.operations import Operations, render_schedule
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import DEFAULTS
from pytest_schedemu.state.store import Store

#: What GetSchedule answers that CreateSchedule does not take.
_OUTPUT_ONLY = ("Arn", "CreationDate", "LastModificationDate")
_GROUP_STATES = ("ACTIVE", "DELETING")


class Vetting:
    """The API's checks of a schedule and a group, from outside a request."""

    def __init__(self) -> None:
        self._validator = service_validator()
        settings = LiveSettings(DEFAULTS.changed({"past_at": "fire"}))
        self._operations = Operations(Store(EPOCH, settings), settings)
        self._rules = Store(EPOCH, settings)
        self._rule_operations = RuleOperations(self._rules).handlers

    def schedule(self, schedule: Schedule) -> None:
        params = {k: v for k, v in render_schedule(schedule).items() if k not in _OUTPUT_ONLY}
        cleaned = self._validator["CreateSchedule"].validate(params)
        call = Call(schedule.account_id, schedule.region, schedule.last_modification_date)
        self._operations.build_schedule(call, cleaned, current=schedule)

    def group(self, group: ScheduleGroup) -> None:
        params = {"Name": group.name, "Tags": [{"Key": k, "Value": v} for k, v in group.tags]}
        self._validator["CreateScheduleGroup"].validate(params)
        if group.state not in _GROUP_STATES:
            raise ValidationException(
                f"Value '{group.state}' at 'state' failed to satisfy constraint: Member must "
                f"satisfy enum value set: [{', '.join(_GROUP_STATES)}]"
            )

    def rule(self, rule: Rule) -> None:
        validator = events_validator()
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
        self._rules.reset(EPOCH)
        self._rule_operations["PutRule"](call, validator["PutRule"].validate(request))
        if not rule.targets:
            return
        targets = {
            "Rule": rule.name,
            "EventBusName": rule.event_bus_name,
            "Targets": [dict(target.raw) for target in rule.targets],
        }
        answer = self._rule_operations["PutTargets"](
            call, validator["PutTargets"].validate(targets)
        )
        if answer["FailedEntries"]:
            failed = answer["FailedEntries"][0]
            raise ValidationException(f"target {failed['TargetId']}: {failed['ErrorMessage']}")
        stored = self._rules.rules.get_rule(
            rule.account_id, rule.region, rule.event_bus_name, rule.name
        )
        # What firing reads must be what PutTargets makes of the target as it was sent.
        made = [dataclasses.replace(target, incarnation=0) for target in stored.targets]
        given = [dataclasses.replace(target, incarnation=0) for target in rule.targets]
        if made != given:
            raise ValidationException(
                "the rule's targets are not what PutTargets makes of them as sent (raw): "
                "each target's fields must follow from its raw entry, with distinct ids"
            )
