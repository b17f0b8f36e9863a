"""Emulators over one state file, restarted or crashed, and what a test can read of what
happened, to compare across restarts."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import START


class Lives:
    """Emulators over one state file, one after the other, as a service restarted."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current: Emulator | None = None
        self._options: dict[str, Any] = {}

    def open(self, **options: Any) -> Emulator:
        self._options = {"start": START, "transport": "inprocess", **options}
        self.current = Emulator(state=str(self.path), **self._options).start()
        return self.current

    def restart(self, **options: Any) -> Emulator:
        """Stop the emulator and start another on the same file."""
        assert self.current is not None
        self.current.stop()
        return self.open(**{**self._options, **options})

    def crash(self, **options: Any) -> Emulator:
        """Start another emulator from what the file holds now, as if the process had been
        killed at this instant (the old one is stopped, but over a copy of the file)."""
        assert self.current is not None
        survivor = crash_copy(self.path)
        self.current.stop()
        self.path = survivor
        return self.open(**{**self._options, **options})

    def close(self) -> None:
        if self.current is not None:
            self.current.stop()


def crash_copy(path: Path) -> Path:
    """A copy of what is committed in the state file now: what a crash would leave."""
    copy = path.with_name(f"{path.stem}-crashed{len(list(path.parent.iterdir()))}.db")
    source, target = sqlite3.connect(path), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return copy


def records(emu: Emulator) -> dict[str, Any]:
    """Everything a test can read of what happened, comparable across restarts."""

    def attempt(a: Any) -> tuple[Any, ...]:
        return (
            a.schedule_arn,
            a.scheduled_time,
            a.attempted_at,
            a.attempt_number,
            a.execution_id,
            a.event_id,
            a.input,
            a.payload,
            a.request,
            a.succeeded,
            a.error_code,
            a.error_message,
            a.retryable,
            a.incarnation,
            a.fired,
            a.source,
            a.rule_arn,
            a.rule_name,
            a.target_id,
        )

    def execution(e: Any) -> tuple[Any, ...]:
        return (
            e.scheduled_time,
            e.event_id,
            e.status,
            e.exhausted_condition,
            e.first_attempt_due,
            e.fired,
            e.schedule_arn,
            e.rule_arn,
            e.target_id,
            e.source,
            *(attempt(a) for a in e.attempts),
        )

    names = {(s.group_name, s.name) for s in emu.schedules()}
    names |= {(a.group_name, a.schedule_name) for a in emu.attempts() if a.rule_arn is None}
    rules = sorted({a.rule_name for a in emu.attempts() if a.rule_name is not None})
    return {
        "now": emu.clock.now(),
        "schedules": emu.schedules(),
        "attempts": [attempt(a) for a in emu.attempts()],
        "dead_letters": emu.dead_letters(),
        "activity": emu.activity(),
        "executions": {
            key: [execution(e) for e in emu.executions(key[1], group=key[0])]
            for key in sorted(names)
        },
        "rule_executions": {
            name: [execution(e) for e in emu.executions(rule=name)] for name in rules
        },
        "next": {key: emu.next_occurrence(key[1], group=key[0]) for key in sorted(names)},
        "dropped": dict(emu.dropped_records.by_kind),
    }
