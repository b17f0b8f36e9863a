"""One (account, region) partition of the store, its keyset paging, and group tags.

Groups and schedules are kept in dicts for lookups and in sorted key lists for listing:
a page starts after the last key of the previous one, so paging stays correct while
other calls create and delete, and costs a bisection rather than a scan. Schedules are
kept by group, then by name: a (group, name) key per schedule would cost each as much as
its name. Only the methods
below change them, each keeping the dict and its key list in step; the store decides
whether a change is allowed and calls them under its lock.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from datetime import datetime

from pytest_schedemu.model.resources import Schedule, ScheduleGroup, default_group

ScheduleKey = tuple[str, str]  # (group, name)


class RegionState:
    """The groups and schedules of one account in one region."""

    def __init__(self, account_id: str, region: str, created_at: datetime) -> None:
        self.account_id = account_id
        self.region = region
        self._groups: dict[str, ScheduleGroup] = {}
        self._group_names: list[str] = []  # sorted, for keyset paging
        #: group -> name -> schedule, and group -> its schedules' names, sorted for keyset
        #: paging; a group is there while it holds a schedule.
        self._schedules: dict[str, dict[str, Schedule]] = {}
        self._schedule_names: dict[str, list[str]] = {}
        self._schedule_count = 0
        # The default group exists in every partition from the moment the state was
        # created or last reset, whether or not anyone looked at it.
        self.add_group(default_group(account_id, region, created_at))

    # -- reads ---------------------------------------------------------------------------

    def group(self, name: str) -> ScheduleGroup | None:
        return self._groups.get(name)

    def schedule(self, group: str, name: str) -> Schedule | None:
        held = self._schedules.get(group)
        return None if held is None else held.get(name)

    @property
    def group_count(self) -> int:
        return len(self._groups)

    @property
    def schedule_count(self) -> int:
        return self._schedule_count

    @property
    def untouched(self) -> bool:
        """Whether it holds only its default group, as a partition never used reads."""
        return not self._schedule_count and len(self._groups) == 1

    def groups(self) -> Iterator[ScheduleGroup]:
        """Every group, by name."""
        groups = self._groups
        return (groups[name] for name in self._group_names)

    def schedules(self) -> Iterator[Schedule]:
        """Every schedule, by (group, name)."""
        schedules, names = self._schedules, self._schedule_names
        return (schedules[group][name] for group in sorted(names) for name in names[group])

    def group_page(
        self, prefix: str | None, after: str | None, limit: int
    ) -> tuple[list[ScheduleGroup], bool]:
        """Up to ``limit`` groups named after ``after`` with ``prefix``, and whether more
        follow."""
        names = self._group_names
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
            page.append(self._groups[name])
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
        all_names = self._schedule_names
        groups = sorted(all_names) if group is None else [group] if group in all_names else []
        page: list[Schedule] = []
        for held_by in groups:
            if after is not None and held_by < after[0]:
                continue
            names = all_names[held_by]
            start = 0
            if after is not None and held_by == after[0]:
                start = bisect.bisect_right(names, after[1])
            if prefix is not None:
                # Within one group the names with the prefix are contiguous.
                start = max(start, bisect.bisect_left(names, prefix))
            held = self._schedules[held_by]
            for index in range(start, len(names)):
                name = names[index]
                if prefix is not None and not name.startswith(prefix):
                    break
                schedule = held[name]
                if state_filter is not None and schedule.state != state_filter:
                    continue
                if len(page) == limit:
                    return page, True
                page.append(schedule)
        return page, False

    # -- changes -------------------------------------------------------------------------
    # A key that is already there (or missing) here is a mistake of the caller, which
    # checks first and answers the client with the service's error.

    def add_group(self, group: ScheduleGroup) -> None:
        if group.name in self._groups:
            raise KeyError(f"group {group.name!r} is already in {self._where}")
        bisect.insort(self._group_names, group.name)
        self._groups[group.name] = group

    def replace_group(self, group: ScheduleGroup) -> ScheduleGroup:
        """Put ``group`` in place of the group of its name (its state, its tags); the
        group replaced."""
        previous = self._groups.get(group.name)
        if previous is None:
            raise KeyError(f"group {group.name!r} is not in {self._where}")
        self._groups[group.name] = group
        return previous

    def remove_group(self, name: str) -> list[Schedule]:
        """Remove the group and its schedules; the schedules removed, by name."""
        if name not in self._groups:
            raise KeyError(f"group {name!r} is not in {self._where}")
        held = self._schedules.pop(name, {})
        removed = [held[schedule] for schedule in self._schedule_names.pop(name, ())]
        self._schedule_count -= len(removed)
        del self._groups[name]
        del self._group_names[bisect.bisect_left(self._group_names, name)]
        return removed

    def add_schedule(self, schedule: Schedule) -> None:
        group, name = schedule.group_name, schedule.name
        held = self._schedules.setdefault(group, {})
        if name in held:
            raise KeyError(f"schedule {(group, name)!r} is already in {self._where}")
        bisect.insort(self._schedule_names.setdefault(group, []), name)
        held[name] = schedule
        self._schedule_count += 1

    def replace_schedule(self, schedule: Schedule) -> Schedule:
        """Put ``schedule`` in place of the one of its group and name; the one replaced."""
        group, name = schedule.group_name, schedule.name
        held = self._schedules.get(group)
        previous = None if held is None else held.get(name)
        if held is None or previous is None:
            raise KeyError(f"schedule {(group, name)!r} is not in {self._where}")
        held[name] = schedule
        return previous

    def remove_schedule(self, group: str, name: str) -> Schedule | None:
        """Remove a schedule; the one removed, or None when there was none."""
        held = self._schedules.get(group)
        removed = None if held is None else held.pop(name, None)
        if held is None or removed is None:
            return None
        self._schedule_count -= 1
        names = self._schedule_names[group]
        del names[bisect.bisect_left(names, name)]
        if not names:
            del self._schedules[group], self._schedule_names[group]
        return removed

    @property
    def _where(self) -> str:
        return f"the partition of account {self.account_id} in {self.region}"


def merge_tags(
    existing: tuple[tuple[str, str], ...], new: Iterable[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    # An existing key keeps its position; a new key is appended; within one request the
    # last value of a repeated key wins.
    merged = dict(existing)
    for key, value in new:
        merged[key] = value
    return tuple(merged.items())
