"""Whether a new group or schedule may be stored: the checks CreateScheduleGroup and
CreateSchedule make against the state, in the reference's order.

They are written once, here, for two callers: the store's own creates, which check one
resource against what is stored, and an all-or-nothing batch of the command layer (a
stack's load), which checks all of its resources (its rules too: ``RuleStore.admit``)
before it stores any (``Store.admit``), each against what is stored and the ones before it
(``Pending``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_schedemu.errors import (
    ServiceQuotaExceededException,
    default_group_refused,
    group_being_deleted,
    group_exists,
    group_not_found,
    schedule_exists,
    too_many_tags,
)
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.partition import RegionState, merge_tags

MAX_TAGS_PER_GROUP = 200


@dataclass
class Pending:
    """What a batch will have created in one partition by the time it reaches an item."""

    groups: set[str] = field(default_factory=set)
    schedules: set[tuple[str, str]] = field(default_factory=set)
    #: (event bus, name) of its rules.
    rules: set[tuple[str, str]] = field(default_factory=set)


NOTHING_PENDING = Pending()


def active_group(state: RegionState, name: str) -> ScheduleGroup:
    """The group a schedule is put in: it must exist and not be being deleted."""
    group = state.group(name)
    if group is None:
        raise group_not_found(name)
    if group.state == "DELETING":
        raise group_being_deleted(name)
    return group


def admit_group(
    state: RegionState,
    name: str,
    tags: Iterable[tuple[str, str]],
    quota: int,
    pending: Pending = NOTHING_PENDING,
) -> tuple[tuple[str, str], ...]:
    """The group's tags, merged, once the group may be created; raises why it may not."""
    if name == DEFAULT_GROUP:
        raise default_group_refused(DEFAULT_GROUP)
    if state.group(name) is not None or name in pending.groups:
        raise group_exists(name)
    if state.group_count + len(pending.groups) >= quota:
        raise ServiceQuotaExceededException(
            f"Maximum number of schedule groups ({quota}) exceeded."
        )
    merged = merge_tags((), tags)
    if len(merged) > MAX_TAGS_PER_GROUP:
        raise too_many_tags()
    return merged


def admit_schedule(
    state: RegionState, schedule: Schedule, quota: int, pending: Pending = NOTHING_PENDING
) -> None:
    """Return when ``schedule`` may be created; raise why it may not."""
    group, name = schedule.group_name, schedule.name
    if group not in pending.groups:
        active_group(state, group)
    if state.schedule(group, name) is not None or (group, name) in pending.schedules:
        raise schedule_exists(name)
    if state.schedule_count + len(pending.schedules) >= quota:
        raise ServiceQuotaExceededException(f"Maximum number of schedules ({quota}) exceeded.")


def admit_into(
    state: RegionState, item: ScheduleGroup | Schedule, limits: Settings, pending: Pending
) -> None:
    """Return when ``item`` of a batch may be created, and count it in ``pending``; raise
    why it may not."""
    if isinstance(item, ScheduleGroup):
        admit_group(state, item.name, item.tags, limits.max_schedule_groups, pending)
        pending.groups.add(item.name)
    else:
        admit_schedule(state, item, limits.max_schedules, pending)
        pending.schedules.add((item.group_name, item.name))
