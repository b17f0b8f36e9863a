"""Scheduler ARNs: the one place that reads and writes them, and the one schedule matcher.

A schedule is ``arn:<partition>:scheduler:<region>:<account>:schedule/<group>/<name>`` and
a group ``arn:<partition>:scheduler:<region>:<account>:schedule-group/<group>``. Every part
of the package that needs the group, the name, the region or the account of an ARN asks
``scheduler_arn`` (or ``ScheduleArn.parse``, ``GroupArn.parse``), so what counts as a
schedule ARN is decided once, for every partition (``aws``, ``aws-cn``, ``aws-us-gov``,
``aws-iso``, ``aws-iso-b``, ``aws-iso-e``, ``aws-iso-f``, ``aws-eusc``, and any later
``aws-*``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from pytest_schedemu.model.partitions import partition_for_region

# The region is whatever the emulator was given (a credential scope may name any), so it
# is only kept from swallowing the account; names are what the service allows.
_NAME = r"[0-9A-Za-z_.-]+"
_SCHEDULER_ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):scheduler:(?P<region>[^:]+):(?P<account>\d{12}):"
    rf"(?:schedule/(?P<group>{_NAME})/(?P<name>{_NAME})|schedule-group/(?P<only>{_NAME}))"
)
_SCHEDULE_FORM = "arn:<partition>:scheduler:<region>:<account>:schedule/<group>/<name>"
_GROUP_FORM = "arn:<partition>:scheduler:<region>:<account>:schedule-group/<group>"


@dataclass(frozen=True)
class GroupArn:
    """The parts of a schedule group's ARN."""

    partition: str
    region: str
    account: str
    group: str

    @classmethod
    def parse(cls, text: str) -> GroupArn:
        """The parts of ``text``; ValueError, showing it, when it is not a group's ARN."""
        return _parsed(text, GroupArn, "schedule group ARN", _GROUP_FORM)

    def format(self) -> str:
        return _group_text(self.partition, self.region, self.account, self.group)


@dataclass(frozen=True)
class ScheduleArn:
    """The parts of a schedule's ARN."""

    partition: str
    region: str
    account: str
    group: str
    name: str

    @classmethod
    def parse(cls, text: str) -> ScheduleArn:
        """The parts of ``text``; ValueError, showing it, when it is not a schedule's ARN."""
        return _parsed(text, ScheduleArn, "schedule ARN", _SCHEDULE_FORM)

    def format(self) -> str:
        return _schedule_text(self.partition, self.region, self.account, self.group, self.name)

    @property
    def group_arn(self) -> GroupArn:
        """The ARN of the group that holds this schedule."""
        return GroupArn(self.partition, self.region, self.account, self.group)


# The same few ARNs are read over and over (a filter runs over every record of a
# schedule); the parts are frozen, so one parse can serve every reader.
@lru_cache(maxsize=4096)
def scheduler_arn(text: str) -> ScheduleArn | GroupArn | None:
    """The parts of a schedule's or a group's ARN; None for any other text."""
    match = _SCHEDULER_ARN.fullmatch(text)
    if match is None:
        return None
    partition, region, account, group, name, only = match.groups()
    if only is not None:
        return GroupArn(partition, region, account, only)
    return ScheduleArn(partition, region, account, group, name)


_Parts = TypeVar("_Parts", ScheduleArn, GroupArn)


def _parsed(text: str, kind: type[_Parts], what: str, form: str) -> _Parts:
    found = scheduler_arn(text)
    if not isinstance(found, kind):
        raise ValueError(f"Not a {what}: {text!r}; expected {form}")
    return found


def schedule_arn(region: str, account: str, group: str, name: str) -> str:
    """The ARN of a schedule of this emulator: in the partition its region belongs to."""
    return _schedule_text(partition_for_region(region), region, account, group, name)


def schedule_group_arn(region: str, account: str, group: str) -> str:
    """The ARN of a schedule group of this emulator."""
    return _group_text(partition_for_region(region), region, account, group)


# The texts are written here only. Schedule.arn is read per schedule listed or drawn, so
# the emulator's own ARNs are written without building their parts first.
def _schedule_text(partition: str, region: str, account: str, group: str, name: str) -> str:
    return f"arn:{partition}:scheduler:{region}:{account}:schedule/{group}/{name}"


def _group_text(partition: str, region: str, account: str, group: str) -> str:
    return f"arn:{partition}:scheduler:{region}:{account}:schedule-group/{group}"


class ScheduleFilter:
    """The schedules a filter names: ``schedule`` a schedule name or a whole schedule ARN,
    ``group`` a group name; None names any. With an ARN the group is not consulted: the
    ARN names one schedule already.

    Every query over schedules and their records (attempts, dead letters, executions,
    timeline lanes) matches through this one class.
    """

    __slots__ = ("arn", "group", "name")

    def __init__(self, schedule: str | None = None, group: str | None = None) -> None:
        by_arn = schedule is not None and schedule.startswith("arn:")
        self.arn = schedule if by_arn else None
        self.name = None if by_arn else schedule
        self.group = None if by_arn else group

    def matches(self, arn: str, group: str, name: str) -> bool:
        """Whether the schedule ``arn`` (of ``group``, named ``name``) is one named."""
        return (
            (self.arn is None or arn == self.arn)
            and (self.name is None or name == self.name)
            and (self.group is None or group == self.group)
        )

    def matches_arn(self, arn: str) -> bool:
        """Whether a record that names ``arn`` belongs to a schedule named.

        A group's ARN (a group's removal) belongs to each of its schedules: it matches
        while no single schedule is named. Any other text matches only a filter that names
        nothing.
        """
        if self.arn is not None:
            return arn == self.arn
        if self.name is None and self.group is None:
            return True
        found = scheduler_arn(arn)
        if isinstance(found, ScheduleArn):
            return self.matches(arn, found.group, found.name)
        if isinstance(found, GroupArn):
            return self.name is None and found.group == self.group
        return False
