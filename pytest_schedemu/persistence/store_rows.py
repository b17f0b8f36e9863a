"""Writing what the store holds: groups, schedules, rules and tokens, as they stand now.

The journal gathers the store's keys each unit of work touched (``StoreChanges``) and, at
its commit, writes each as the store now holds it, or deletes its row when the store no
longer does. A schedule's row and a rule's carry where their plans stand, read from the
dispatcher's state interface; a scheduled rule's targets each have a ``rule_plans`` row.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from pytest_schedemu.dispatch.state import DispatchState
from pytest_schedemu.model.rules import rule_arn
from pytest_schedemu.persistence import codec, rule_rows
from pytest_schedemu.persistence.tables import FORGET_TOKEN
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.idempotency import TokenKey
from pytest_schedemu.state.store import Store

#: How the row of a plan that moved on (a schedule's or a rule target's) is brought up to
#: date; the row is the one of its incarnation, in one table or the other.
UPDATE_PLAN = {
    "schedules": "UPDATE schedules SET last_dispatched = ?, fires = ? WHERE incarnation = ?",
    "rule_plans": "UPDATE rule_plans SET last_dispatched = ?, fires = ? WHERE incarnation = ?",
}


class StoreChanges:
    """The store's keys touched since the last commit."""

    def __init__(self) -> None:
        self.groups: set[tuple[str, str, str]] = set()
        self.schedules: set[tuple[str, str, str, str]] = set()
        #: (account, region, event bus, name)
        self.rules: set[tuple[str, str, str, str]] = set()
        self.tokens: set[TokenKey] = set()

    def __bool__(self) -> bool:
        return bool(self.groups or self.schedules or self.rules or self.tokens)

    def clear(self) -> None:
        self.groups.clear()
        self.schedules.clear()
        self.rules.clear()
        self.tokens.clear()


def write_store(
    connection: sqlite3.Connection,
    changes: StoreChanges,
    *,
    store: Store,
    state: DispatchState,
    settings: LiveSettings,
) -> set[int]:
    """Write every touched key as it stands; return the incarnations (schedules' and rule
    targets') a change may have cancelled work of, whose occurrences are written again."""
    for account, region, name in changes.groups:
        group = store.find_group(account, region, name)
        if group is None:
            connection.execute(
                "DELETE FROM groups WHERE account = ? AND region = ? AND name = ?",
                (account, region, name),
            )
            continue
        due = None
        if group.state == "DELETING":
            due = group.last_modification_date + timedelta(
                seconds=settings.current.group_deletion_delay
            )
        connection.execute(
            "INSERT OR REPLACE INTO groups VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            codec.group_row(group, due),
        )
    changed: set[int] = set()
    for key in changes.schedules:
        changed |= _write_schedule(connection, key, store, state)
    for key in changes.rules:
        changed |= _write_rule(connection, key, store, state)
    for token in changes.tokens:
        response = store.stored_response(*token)
        if response is None:  # forgotten: only the newest max_idempotency_tokens are kept
            connection.execute(FORGET_TOKEN, token)
        else:
            connection.execute(
                "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*token, response.fingerprint, response.status, response.body),
            )
    return changed


def write_plans(
    connection: sqlite3.Connection, state: DispatchState, incarnations: set[int]
) -> None:
    """Bring the rows of plans that moved on (generated, caught up, fired) up to date."""
    for incarnation in incarnations:
        progress = state.plan_progress(incarnation)
        if progress is None:
            continue  # gone: its row went with its schedule's or rule's
        values = (progress.last_dispatched, progress.fires, incarnation)
        for statement in UPDATE_PLAN.values():
            connection.execute(statement, values)


def _write_schedule(
    connection: sqlite3.Connection,
    key: tuple[str, str, str, str],
    store: Store,
    state: DispatchState,
) -> set[int]:
    where = "account = ? AND region = ? AND grp = ? AND name = ?"
    before = connection.execute(f"SELECT incarnation FROM schedules WHERE {where}", key)
    incarnations = {row[0] for row in before}
    schedule = store.find_schedule(*key)
    if schedule is None:
        connection.execute(f"DELETE FROM schedules WHERE {where}", key)
        return incarnations
    incarnations.add(schedule.incarnation)
    progress = state.plan_progress(schedule.incarnation)
    connection.execute(
        "INSERT OR REPLACE INTO schedules VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            *key,
            schedule.incarnation,
            codec.schedule_definition(schedule),
            None if progress is None else progress.last_dispatched,
            0 if progress is None else progress.fires,
        ),
    )
    return incarnations


def _write_rule(
    connection: sqlite3.Connection,
    key: tuple[str, str, str, str],
    store: Store,
    state: DispatchState,
) -> set[int]:
    account, region, bus, name = key
    arn = rule_arn(region, account, name, bus)
    before = connection.execute("SELECT incarnation FROM rule_plans WHERE rule_arn = ?", (arn,))
    incarnations = {row[0] for row in before}
    rule = store.rules.find_rule(account, region, bus, name)
    if rule is None:
        connection.execute(
            "DELETE FROM rules WHERE account = ? AND region = ? AND bus = ? AND name = ?", key
        )
        connection.execute("DELETE FROM rule_plans WHERE rule_arn = ?", (arn,))
        return incarnations
    connection.execute(
        "INSERT OR REPLACE INTO rules VALUES (?, ?, ?, ?, ?, ?)", rule_rows.rule_row(rule)
    )
    targets = {target.incarnation: target.id for target in rule.targets}
    incarnations |= set(targets)
    for incarnation in incarnations:
        progress = state.plan_progress(incarnation)
        if progress is None or incarnation not in targets:
            connection.execute("DELETE FROM rule_plans WHERE incarnation = ?", (incarnation,))
        else:
            connection.execute(
                "INSERT OR REPLACE INTO rule_plans VALUES (?, ?, ?, ?, ?, ?)",
                rule_rows.plan_row(incarnation, rule, targets[incarnation], progress),
            )
    return incarnations
