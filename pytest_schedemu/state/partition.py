"""One (account, region) partition of the store, its keyset paging, and group tags.

Groups and schedules are kept in dicts for lookups and in sorted key lists for listing:
a page starts after the last key of the previous one, so paging stays correct while
other calls create and delete, and costs a bisection rather than a scan.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_schedemu.model.resources import Schedule, ScheduleGroup

ScheduleKey = tuple[str, str]  # (group, name)


@dataclass
class RegionState:
    account_id: str
    region: str
    groups: dict[str, ScheduleGroup] = field(default_factory=dict)
    group_names: list[str] = field(default_factory=list)  # sorted, for keyset paging
    schedules: dict[ScheduleKey, Schedule] = field(default_factory=dict)
    schedule_keys: list[ScheduleKey] = field(default_factory=list)  # sorted, for keyset paging

    def put_group(self, group: ScheduleGroup) -> None:
        if group.name not in self.groups:
            bisect.insort(self.group_names, group.name)
        self.groups[group.name] = group

    def put_schedule(self, schedule: Schedule) -> None:
        key = (schedule.group_name, schedule.name)
        if key not in self.schedules:
            bisect.insort(self.schedule_keys, key)
        self.schedules[key] = schedule

    def group_page(
        self, prefix: str | None, after: str | None, limit: int
    ) -> tuple[list[ScheduleGroup], bool]:
        """Up to ``limit`` groups named after ``after`` with ``prefix``, and whether more
        follow."""
        names = self.group_names
        start = 0 if after is None else bisect.bisect_right(names, after)
        if prefix is not None:
            start = max(start, bisect.bisect_left(names, prefix))
        page: list[ScheduleGroup] = []
        for index in range(start, len(names)):
            name = names[index]
            if prefix is not None and not name.startswith(prefix):
                break
            if len(page) == limit:
                return page, True
            page.append(self.groups[name])
        return page, False

    def schedule_page(
        self,
        *,
        group: str | None,
        prefix: str | None,
        state_filter: str | None,
        after: ScheduleKey | None,
        limit: int,
    ) -> tuple[list[Schedule], bool]:
        """Up to ``limit`` schedules after the key ``after`` that pass the filters, and
        whether more follow."""
        keys = self.schedule_keys
        start = 0 if after is None else bisect.bisect_right(keys, after)
        if group is not None:
            start = max(start, bisect.bisect_left(keys, (group, prefix or "")))
        page: list[Schedule] = []
        for index in range(start, len(keys)):
            key = keys[index]
            if group is not None and key[0] != group:
                break
            if prefix is not None and not key[1].startswith(prefix):
                # Within one group the names with the prefix are contiguous.
                if group is not None:
                    break
                continue
            schedule = self.schedules[key]
            if state_filter is not None and schedule.state != state_filter:
                continue
            if len(page) == limit:
                return page, True
            page.append(schedule)
        return page, False


def merge_tags(
    existing: tuple[tuple[str, str], ...], new: Iterable[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    # An existing key keeps its position; a new key is appended; within one request the
    # last value of a repeated key wins.
    merged = dict(existing)
    for key, value in new:
        merged[key] = value
    return tuple(merged.items())
