"""Who listens to the store: the dispatcher, which re-plans what changed, and, with a state
path, the journal that makes the state durable. Both are told under the store's lock."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.state.idempotency import TokenKey


class StoreObserver(Protocol):
    """What the dispatcher hears from the store. Called with the store lock held."""

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None: ...

    def schedule_removed(self, schedule: Schedule, reason: str) -> None: ...

    def group_removal_scheduled(self, group: ScheduleGroup, due: datetime) -> None: ...

    def rule_saved(self, rule: Rule, previous: Rule | None) -> None:
        """A rule was created, or its definition, state or targets changed."""

    def rule_removed(self, rule: Rule, reason: str) -> None: ...


class StoreJournal(Protocol):
    """What makes the state durable (``persistence``): told which keys changed, under the
    store lock, and asked to commit at the end of each unit of work."""

    def touched(self, account_id: str, region: str, group: str, name: str | None) -> None: ...

    def rule_touched(self, account_id: str, region: str, bus: str, name: str) -> None:
        """A rule was put, changed (its state, targets or tags) or deleted."""

    def token_stored(self, key: TokenKey) -> None: ...

    @property
    def gathering(self) -> bool:
        """Whether a batch is not yet worth a write (read without the lock)."""
        ...

    def commit(self) -> None: ...
