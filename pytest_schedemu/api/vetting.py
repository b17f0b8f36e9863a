"""The API's checks, for schedules and groups that arrive by another door (a state import).

A schedule is put through CreateSchedule's shape validation and semantic checks as the
UpdateSchedule that copies GetSchedule's answer would be: its StartDate, already accepted
once, stays valid after it has passed, and an ``at()`` whose time has passed is simply
done. A group goes through CreateScheduleGroup's. Each check raises the API's
``ValidationException``, whose message names the field.
"""

from __future__ import annotations

from pytest_schedemu.api.app import service_validator
from pytest_schedemu.api.operations import Call, Operations, render_schedule
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
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
