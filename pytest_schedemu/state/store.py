"""Thread-safe state: schedule groups, schedules, tags and idempotency tokens.

State is partitioned by (account, region). The store enforces the rules that need the
state (a group exists, a name is free, a quota is not reached) and tells its observer what
changed, so the dispatcher can re-plan without the API knowing that a dispatcher exists.
Each partition keeps its own records and their order (``RegionState``); the store changes
them only through its methods, and everything outside reads them through the store's
reads (``find_group``, ``all_schedules``...), each taken under the lock. EventBridge rules
have an owner of their own, ``rules`` (``state/rules.py``), under the same lock.

Locks, and the order they are taken in (a thread holding one may only take those below
it, never one above):

1. the clock's operation lock (``VirtualClock.operation_lock``): one clock move, or a
   reset, at a time;
2. the store's lock (``Store.lock``, re-entrant): the one lock of the emulator's state.
   It guards the store and everything the dispatcher plans from it (plans, the work
   queue, occurrences), and the state file's connection (``persistence``). The API takes
   it for each operation, the dispatcher for each work item; deliveries run without it;
3. leaf locks, each owned by one structure that takes it for every read and write and
   calls nothing while holding it: the history's, the target controls', the API's
   injected errors', the recorded server errors'.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from pytest_schedemu.errors import (
    default_group_refused,
    group_not_found,
    schedule_not_found,
    too_many_tags,
)
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import DEFAULTS
from pytest_schedemu.state.admission import (
    MAX_TAGS_PER_GROUP,
    Pending,
    active_group,
    admit_group,
    admit_into,
    admit_schedule,
)
from pytest_schedemu.state.iam import IamKnowledge
from pytest_schedemu.state.idempotency import StoredResponse, TokenKey, TokenStore
from pytest_schedemu.state.listeners import StoreJournal, StoreObserver
from pytest_schedemu.state.partition import RegionState, ScheduleKey, merge_tags
from pytest_schedemu.state.rules import RuleStore

RegionKey = tuple[str, str]  # (account, region)


class Store:
    def __init__(self, now: datetime, settings: LiveSettings | None = None) -> None:
        self.lock = threading.RLock()
        self.settings = settings if settings is not None else LiveSettings(DEFAULTS)
        self.observer: StoreObserver | None = None
        #: None keeps the state in memory only: then no change costs more than this check.
        self.journal: StoreJournal | None = None
        # Answers of requests with a ClientToken; used under ``lock``.
        self._tokens = TokenStore(lambda: self.settings.current.max_idempotency_tokens)
        self._regions: dict[RegionKey, RegionState] = {}
        self._created_at = now
        self._incarnations = 0
        self.rules = RuleStore(self)
        #: What IAM the stacks and the user declared; its own lock, and kept by a reset of
        #: the schedules (the emulator's reset clears it, and loads the stacks again).
        self.iam = IamKnowledge()

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def counters(self) -> tuple[datetime, int]:
        """When the state was created (the default groups' date), and incarnations made."""
        return self._created_at, self._incarnations

    def load(
        self,
        created_at: datetime,
        incarnations: int,
        groups: Iterable[ScheduleGroup],
        schedules: Iterable[Schedule],
        tokens: Iterable[tuple[TokenKey, StoredResponse]],
    ) -> None:
        """Put back a saved state, telling nobody: the caller rebuilds the plans."""
        with self.lock:
            self.reset(created_at)
            self._incarnations = incarnations
            for group in groups:
                state = self._partition(group.account_id, group.region)
                # A state may hold the default group, which every partition starts with.
                if state.group(group.name) is None:
                    state.add_group(group)
                else:
                    state.replace_group(group)
            for schedule in schedules:
                self._partition(schedule.account_id, schedule.region).add_schedule(schedule)
            for key, response in tokens:
                self._tokens.put(key, response)

    def commit(self, *, batch: bool = False) -> None:
        """End a unit of work: what changed becomes durable (with a journal). ``batch`` lets
        the journal wait until it has gathered enough to be worth a write."""
        journal = self.journal
        # A batch not yet worth a write is the common case in a long move: no lock for it.
        if journal is not None and not (batch and journal.gathering):
            with self.lock:
                journal.commit()

    def next_incarnation(self) -> int:
        """A new incarnation number (schedules and rules share the counter); under the lock."""
        self._incarnations += 1
        return self._incarnations

    def _touched(self, account_id: str, region: str, group: str, name: str | None = None) -> None:
        if self.journal is not None:
            self.journal.touched(account_id, region, group, name)

    def reset(self, now: datetime) -> None:
        with self.lock:
            self._regions.clear()
            self.rules.reset()
            self._tokens.clear()
            self._created_at = now
            self._incarnations = 0

    def _partition(self, account_id: str, region: str) -> RegionState:
        """The partition, made (with its default group) on first use."""
        key = (account_id, region)
        state = self._regions.get(key)
        if state is None:
            state = self._regions[key] = RegionState(account_id, region, self._created_at)
        return state

    def snapshot(self) -> tuple[Any, ...]:
        """Everything stored, comparable: equal snapshots mean nothing observable changed.

        A partition that holds only its default group is left out: it is created on first
        use, but reads the same as one never touched.
        """
        with self.lock:
            regions = tuple(
                (key, tuple(state.groups()), tuple(state.schedules()))
                for key, state in sorted(self._regions.items())
                if not state.untouched
            )
            return regions, self.rules.snapshot(), self._tokens.snapshot()

    # -- reads for every other part --------------------------------------------------------

    def all_schedules(self) -> list[Schedule]:
        """Every stored schedule, by (account, region, group, name)."""
        with self.lock:
            return [s for _, state in sorted(self._regions.items()) for s in state.schedules()]

    def all_groups(self) -> list[ScheduleGroup]:
        """Every schedule group, by (account, region, name)."""
        with self.lock:
            return [g for _, state in sorted(self._regions.items()) for g in state.groups()]

    def find_group(self, account_id: str, region: str, name: str) -> ScheduleGroup | None:
        """The group, or None when it (or the partition) does not exist."""
        with self.lock:
            state = self._regions.get((account_id, region))
            return None if state is None else state.group(name)

    def find_schedule(self, account_id: str, region: str, group: str, name: str) -> Schedule | None:
        """The schedule, or None when it (or its group, or the partition) does not exist."""
        with self.lock:
            state = self._regions.get((account_id, region))
            return None if state is None else state.schedule(group, name)

    # -- idempotency tokens ----------------------------------------------------------------

    def stored_response(
        self, account_id: str, region: str, operation: str, token: str
    ) -> StoredResponse | None:
        with self.lock:
            return self._tokens.get((account_id, region, operation, token))

    def store_response(
        self, account_id: str, region: str, operation: str, token: str, response: StoredResponse
    ) -> None:
        with self.lock:
            key = (account_id, region, operation, token)
            forgotten = self._tokens.put(key, response)
            if self.journal is not None:
                for changed in (key, *forgotten):
                    self.journal.token_stored(changed)

    # -- groups ----------------------------------------------------------------------------

    def get_group(self, account_id: str, region: str, name: str) -> ScheduleGroup:
        with self.lock:
            group = self._partition(account_id, region).group(name)
            if group is None:
                raise group_not_found(name)
            return group

    def create_group(self, group: ScheduleGroup) -> ScheduleGroup:
        """Store a new group (its tags merged, a repeated key's last value winning)."""
        with self.lock:
            state = self._partition(group.account_id, group.region)
            quota = self.settings.current.max_schedule_groups
            merged = admit_group(state, group.name, group.tags, quota)
            stored = dataclasses.replace(group, tags=merged)
            state.add_group(stored)
            self._touched(group.account_id, group.region, group.name)
            return stored

    def delete_group(self, account_id: str, region: str, name: str, now: datetime) -> None:
        with self.lock:
            if name == DEFAULT_GROUP:
                raise default_group_refused(DEFAULT_GROUP)
            state = self._partition(account_id, region)
            group = state.group(name)
            if group is None:
                raise group_not_found(name)
            if group.state == "DELETING":
                return
            if self.settings.current.group_deletion_delay <= 0 or self.observer is None:
                self._remove_group(state, name)
                return
            deleting = dataclasses.replace(group, state="DELETING", last_modification_date=now)
            state.replace_group(deleting)
            self._touched(account_id, region, name)
            due = now + timedelta(seconds=self.settings.current.group_deletion_delay)
            self.observer.group_removal_scheduled(deleting, due)

    def remove_group(self, account_id: str, region: str, name: str) -> None:
        """Finish a delayed group deletion: the group, its schedules and its tags go."""
        with self.lock:
            state = self._regions.get((account_id, region))
            if state is not None and state.group(name) is not None:
                self._remove_group(state, name)

    def _remove_group(self, state: RegionState, name: str) -> None:
        for removed in state.remove_group(name):
            self._touched(state.account_id, state.region, name, removed.name)
            if self.observer is not None:
                self.observer.schedule_removed(removed, "group_deleted")
        self._touched(state.account_id, state.region, name)

    def list_groups(
        self, account_id: str, region: str, prefix: str | None, after: str | None, limit: int
    ) -> tuple[list[ScheduleGroup], bool]:
        with self.lock:
            return self._partition(account_id, region).group_page(prefix, after, limit)

    def tag_group(
        self, account_id: str, region: str, name: str, tags: Iterable[tuple[str, str]]
    ) -> None:
        with self.lock:
            state, group = self._taggable_group(account_id, region, name)
            merged = merge_tags(group.tags, tags)
            if len(merged) > MAX_TAGS_PER_GROUP:
                raise too_many_tags()
            state.replace_group(dataclasses.replace(group, tags=merged))
            self._touched(account_id, region, name)

    def untag_group(self, account_id: str, region: str, name: str, keys: Iterable[str]) -> None:
        with self.lock:
            state, group = self._taggable_group(account_id, region, name)
            dropped = set(keys)
            kept = tuple((k, v) for k, v in group.tags if k not in dropped)
            state.replace_group(dataclasses.replace(group, tags=kept))
            self._touched(account_id, region, name)

    def _taggable_group(
        self, account_id: str, region: str, name: str
    ) -> tuple[RegionState, ScheduleGroup]:
        if name == DEFAULT_GROUP:
            raise default_group_refused(DEFAULT_GROUP)
        state = self._partition(account_id, region)
        return state, active_group(state, name)

    # -- schedules -------------------------------------------------------------------------

    def get_schedule(self, account_id: str, region: str, group: str, name: str) -> Schedule:
        with self.lock:
            state = self._partition(account_id, region)
            if state.group(group) is None:
                raise group_not_found(group)
            schedule = state.schedule(group, name)
            if schedule is None:
                raise schedule_not_found(name)
            return schedule

    def create_schedule(self, schedule: Schedule) -> Schedule:
        """Store a new incarnation; ``schedule.incarnation`` is assigned here."""
        with self.lock:
            state = self._partition(schedule.account_id, schedule.region)
            admit_schedule(state, schedule, self.settings.current.max_schedules)
            stored = dataclasses.replace(schedule, incarnation=self.next_incarnation())
            state.add_schedule(stored)
            self._touched(schedule.account_id, schedule.region, schedule.group_name, schedule.name)
            if self.observer is not None:
                self.observer.schedule_saved(stored, None)
            return stored

    def admit(self, item: ScheduleGroup | Schedule | Rule, pending: Pending) -> None:
        """Return when ``item`` of an all-or-nothing batch may be created, against the state
        and what the batch holds before it (``pending``, which counts it); raise why not."""
        with self.lock:
            if isinstance(item, Rule):
                self.rules.admit(item, pending)
            else:
                state = self._partition(item.account_id, item.region)
                admit_into(state, item, self.settings.current, pending)

    def update_schedule(self, schedule: Schedule) -> Schedule:
        """Replace a schedule; the incarnation and the creation date carry over."""
        with self.lock:
            state = self._partition(schedule.account_id, schedule.region)
            if state.group(schedule.group_name) is None:
                raise group_not_found(schedule.group_name)
            previous = state.schedule(schedule.group_name, schedule.name)
            if previous is None:
                raise schedule_not_found(schedule.name)
            active_group(state, schedule.group_name)
            stored = dataclasses.replace(
                schedule, incarnation=previous.incarnation, creation_date=previous.creation_date
            )
            state.replace_schedule(stored)
            self._touched(schedule.account_id, schedule.region, schedule.group_name, schedule.name)
            if self.observer is not None:
                self.observer.schedule_saved(stored, previous)
            return stored

    def delete_schedule(
        self, account_id: str, region: str, group: str, name: str, *, reason: str = "deleted"
    ) -> Schedule:
        with self.lock:
            state = self._partition(account_id, region)
            if state.group(group) is None:
                raise group_not_found(group)
            removed = state.remove_schedule(group, name)
            if removed is None:
                raise schedule_not_found(name)
            self._touched(account_id, region, group, name)
            if self.observer is not None:
                self.observer.schedule_removed(removed, reason)
            return removed

    def list_schedules(
        self,
        account_id: str,
        region: str,
        *,
        group: str | None,
        prefix: str | None,
        state_filter: str | None,
        after: ScheduleKey | None,
        limit: int,
    ) -> tuple[list[Schedule], bool]:
        with self.lock:
            state = self._partition(account_id, region)
            if group is not None and state.group(group) is None:
                raise group_not_found(group)
            return state.schedule_page(
                group=group, prefix=prefix, state_filter=state_filter, after=after, limit=limit
            )
