"""The history: every record of what happened, bounded, behind one lock.

The dispatcher writes it; the read side (``records.reader``) and anything else that looks
at what happened read it. Each kind of record is kept in its own log, oldest first, and
``max_records`` (a setting, read at every write) bounds each log: beyond it the oldest
records go and are counted, so memory is bounded by the settings, not by how long a
service runs.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, TypeVar

from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.model.rules import RuleTargetSchedule
from pytest_schedemu.records.invocations import FunctionInvocation
from pytest_schedemu.records.known import Known
from pytest_schedemu.records.logs import Log, Packed, pack, same, unpack
from pytest_schedemu.records.types import Activity, Attempt, DeadLetter, ExecutionSource

T = TypeVar("T")

#: The kinds of record, as ``dropped_records`` names them.
RECORD_KINDS = ("attempts", "executions", "dead_letters", "activity")
#: Hears every record the history keeps, as ``sink(kind, records)``, in the order kept:
#: ``kind`` is one of ``RECORD_KINDS`` (executions: their sources), ``schedules`` for
#: ``note_schedule``'s (arn, group, name, target arn, dead-letter arn), or ``rule_targets``
#: for ``note_rule_target``'s (key, rule ARN, rule name, target arn, dead-letter arn, and
#: the definition).
#: Called under the history's lock, so it must only take note: never call back or take a
#: lock.
RecordSink = Callable[[str, Sequence[Any]], None]


@dataclass
class SavedHistory:
    """A history as a saved state holds it, oldest first, to be put back by ``restore``."""

    attempts: list[Attempt] = field(default_factory=list)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    activity: list[Activity] = field(default_factory=list)
    #: (schedule ARN, occurrence), in generation order.
    executions: list[tuple[str, ExecutionSource]] = field(default_factory=list)
    #: How many records of each kind were dropped before these.
    dropped: dict[str, int] = field(default_factory=dict)
    #: (schedule ARN, group, name) of every known schedule, first seen first.
    schedules: list[tuple[str, str, str]] = field(default_factory=list)
    #: (key, rule ARN, rule name) of every known rule target, first seen first.
    rule_targets: list[tuple[str, str, str]] = field(default_factory=list)
    #: The last definitions of rule targets, the newest last: their timeline lanes draw them.
    definitions: list[Schedule] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    dead_letter_queues: list[str] = field(default_factory=list)
    #: False when ``max_records`` made the registry forget some of them.
    complete: bool = True


class DroppedRecords(int):
    """How many records ``max_records`` has dropped: the total, and ``.by_kind``."""

    by_kind: dict[str, int]

    def __new__(cls, by_kind: dict[str, int]) -> DroppedRecords:
        value = super().__new__(cls, sum(by_kind.values()))
        value.by_kind = dict(by_kind)
        return value

    def __getattr__(self, name: str) -> int:
        if name in RECORD_KINDS:
            return self.by_kind[name]
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"DroppedRecords({int(self)}, {self.by_kind})"


class History:
    """The bounded logs of attempts, executions, dead letters and activity.

    Every read and write takes the history's own lock, which is a leaf: nothing else is
    locked while it is held. A write that names the ``generation`` its maker saw is
    refused once a clear came since: what a reset interrupted records nothing after it.
    """

    def __init__(self, max_records: Callable[[], int | None] = lambda: None) -> None:
        self._lock = threading.Lock()
        self._max_records = max_records
        self._attempts: Log[Attempt] = Log()
        self._dead_letters: Log[DeadLetter] = Log()
        # Not heard by the sink: a saved state keeps what the clock did, not the runs of
        # the stacks' own code, which a restarted emulator does not repeat.
        self._invocations: Log[FunctionInvocation] = Log()
        # Activity is kept packed (``_pack``): a service that sees millions of schedules come
        # and go records two changes for each, and a tuple of plain values is half the size.
        self._activity: Log[Packed] = Log()
        self._last_instant: list[Any] = [None, 0]
        # Executions are kept per schedule ARN (queries name one schedule), and in one
        # queue of ARNs in generation order, which says whose oldest execution goes first.
        self._executions: dict[str, deque[ExecutionSource]] = {}
        self._execution_order: deque[str] = deque()
        self._executions_dropped = 0
        # Replaced whole, never changed in place, so announce reads it without the lock.
        self._listeners: tuple[Callable[[Attempt], None], ...] = ()
        self._known = Known()
        self._generation = 0
        #: Where a saved state hears of new records (``persistence``); None keeps them in
        #: memory only.
        self.sink: RecordSink | None = None

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._attempts = Log()
            self._dead_letters = Log()
            self._invocations = Log()
            self._activity = Log()
            self._executions = {}
            self._execution_order = deque()
            self._executions_dropped = 0
            self._known = Known()

    def restore(self, saved: SavedHistory) -> None:
        """Replace every record with those of a saved state; ``max_records`` still applies."""
        self.clear()
        with self._lock:
            cap = self._max_records()
            for kind in ("attempts", "dead_letters", "activity"):
                log: Log[Any] = getattr(self, "_" + kind)
                log.dropped = saved.dropped.get(kind, 0)
                records = getattr(saved, kind)
                if kind == "activity":
                    records = [pack(activity, self._last_instant) for activity in records]
                log.extend(records, cap)
            for arn, source in saved.executions:
                self._executions.setdefault(arn, deque()).append(source)
                self._execution_order.append(arn)
            self._executions_dropped = saved.dropped.get("executions", 0)
            self._trim_executions()
            self._known.restore(saved)

    def add_listener(self, listener: Callable[[Attempt], None]) -> None:
        """Call ``listener(attempt)`` for every attempt recorded from now on (for logging)."""
        with self._lock:
            self._listeners = (*self._listeners, listener)

    # -- writing ---------------------------------------------------------------------------

    def note_schedule(self, schedule: Schedule, arn: str) -> None:
        """Remember that a schedule (whose ARN is ``arn``) existed, and what it aimed at:
        strict lookups and assertions refuse names and ARNs that nothing ever had. Its
        definition is kept, boundedly, so a picture of it still shows what it was once it
        is deleted."""
        with self._lock:
            self._known.note_schedule(schedule, arn, self._max_records())
            if self.sink is not None:
                target = schedule.target
                noted = (arn, schedule.group_name, schedule.name, target.arn)
                self.sink("schedules", ((*noted, target.dead_letter_arn),))

    def note_rule_target(self, definition: RuleTargetSchedule) -> None:
        """Remember that a rule's target existed (its rule's name and ARN, its target and
        dead-letter queue), and its last definition, as ``note_schedule`` does a schedule's."""
        with self._lock:
            self._known.note_rule_target(
                definition,
                definition.arn,
                definition.rule_arn,
                definition.rule_name,
                self._max_records(),
            )
            if self.sink is not None:
                target = definition.target
                noted = (definition.arn, definition.rule_arn, definition.rule_name, target.arn)
                self.sink("rule_targets", ((*noted, target.dead_letter_arn, definition),))

    def add_attempts(self, new: Sequence[Attempt]) -> None:
        with self._lock:
            self._attempts.extend(new, self._max_records())
            if self.sink is not None:
                self.sink("attempts", new)

    def announce(self, new: Sequence[Attempt]) -> None:
        """Tell the listeners of attempts just recorded. Call it holding no lock: a listener
        (``schedemu serve`` logging to a slow stream) must not hold up the API."""
        for listener in self._listeners:
            for attempt in new:
                listener(attempt)

    def add_dead_letter(self, letter: DeadLetter, generation: int | None = None) -> None:
        with self._lock:
            if generation is not None and generation != self._generation:
                return
            self._dead_letters.extend((letter,), self._max_records())
            if self.sink is not None:
                self.sink("dead_letters", (letter,))

    def add_invocation(self, run: FunctionInvocation, generation: int) -> None:
        """Keep a run of a function, unless a clear came since ``generation``."""
        with self._lock:
            if generation == self._generation:
                self._invocations.extend((run,), self._max_records())

    def invocations(self) -> list[FunctionInvocation]:
        with self._lock:
            return list(self._invocations.items)

    def add_activity(self, activity: Activity, generation: int | None = None) -> None:
        with self._lock:
            if generation is not None and generation != self._generation:
                return
            self._activity.extend((pack(activity, self._last_instant),), self._max_records())
            if self.sink is not None:
                self.sink("activity", (activity,))

    def add_execution(self, schedule_arn: str, occurrence: ExecutionSource) -> None:
        """Keep a new occurrence of ``schedule_arn`` for executions()."""
        with self._lock:
            kept = self._executions.get(schedule_arn)
            if kept is None:
                kept = self._executions[schedule_arn] = deque()
            kept.append(occurrence)
            self._execution_order.append(schedule_arn)
            self._trim_executions()
            if self.sink is not None:
                self.sink("executions", (occurrence,))

    def add_executions(self, schedule_arn: str, occurrences: Sequence[ExecutionSource]) -> None:
        """Keep new occurrences of ``schedule_arn``, in generation order, for executions()."""
        self.add_execution_runs(((schedule_arn, occurrences),))

    def add_execution_runs(self, runs: Iterable[tuple[str, Sequence[ExecutionSource]]]) -> None:
        """``add_executions`` of each (schedule ARN, occurrences) in turn, under one lock: a
        stretch played in bulk adds a run for every plan."""
        with self._lock:
            executions, order, sink = self._executions, self._execution_order, self.sink
            cap = self._max_records()
            for arn, occurrences in runs:
                kept = executions.get(arn)
                if kept is None:
                    kept = executions[arn] = deque()
                kept.extend(occurrences)
                order.extend(repeat(arn, len(occurrences)))
                if cap is not None and len(order) > cap:
                    self._trim_executions()
                if sink is not None:
                    sink("executions", occurrences)

    def _trim_executions(self) -> None:
        cap = self._max_records()
        order = self._execution_order
        if cap is None or len(order) <= cap:
            return
        for _ in range(len(order) - cap + max(1, cap // 20)):
            arn = order.popleft()
            kept = self._executions[arn]
            kept.popleft()
            if not kept:
                del self._executions[arn]
            self._executions_dropped += 1

    # -- reading ---------------------------------------------------------------------------

    def page(
        self, kind: str, start: int, limit: int, keep: Callable[[Any], bool] | None = None
    ) -> tuple[list[Any], int | None]:
        """Up to ``limit`` records of ``kind`` (attempts, dead_letters, activity) that ``keep``
        accepts, from the ``start``-th record ever written on (counting dropped ones), and
        where the next page starts (None at the end)."""
        with self._lock:
            log, read = self._log_of(kind)
            index = max(start - log.dropped, 0)
            found: list[Any] = []
            items = log.items
            while index < len(items) and len(found) < limit:
                item = read(items[index])
                if keep is None or keep(item):
                    found.append(item)
                index += 1
            return found, (index + log.dropped if index < len(items) else None)

    def page_backwards(
        self, kind: str, end: int | None, limit: int, keep: Callable[[Any], bool] | None = None
    ) -> tuple[list[Any], int | None]:
        """Up to ``limit`` records of ``kind`` that ``keep`` accepts, newest first, from
        before the ``end``-th record ever written (None: from the newest), and where the
        next, older page ends (None when nothing older is kept)."""
        with self._lock:
            log, read = self._log_of(kind)
            items = log.items
            index = len(items) if end is None else min(end - log.dropped, len(items))
            found: list[Any] = []
            while index > 0 and len(found) < limit:
                index -= 1
                item = read(items[index])
                if keep is None or keep(item):
                    found.append(item)
            return found, (index + log.dropped if index > 0 else None)

    def _log_of(self, kind: str) -> tuple[Log[Any], Callable[[Any], Any]]:
        """The log of ``kind`` and how to read its items (activity is kept packed)."""
        return getattr(self, "_" + kind), unpack if kind == "activity" else same

    def written(self) -> dict[str, int]:
        """How many records of each kind were ever written since the last clear (dropped
        ones included), and how many clears there were (``generation``): a reader polling
        for news compares these."""
        with self._lock:
            return {
                "generation": self._generation,
                "attempts": len(self._attempts.items) + self._attempts.dropped,
                "executions": len(self._execution_order) + self._executions_dropped,
                "dead_letters": len(self._dead_letters.items) + self._dead_letters.dropped,
                "activity": len(self._activity.items) + self._activity.dropped,
            }

    @property
    def generation(self) -> int:
        """How many clears there were: what a reader keeps about one test ends with it."""
        with self._lock:
            return self._generation

    def attempts(self) -> list[Attempt]:
        with self._lock:
            return list(self._attempts.items)

    def dead_letters(self) -> list[DeadLetter]:
        with self._lock:
            return list(self._dead_letters.items)

    def activity(self, kinds: Collection[str] | None = None) -> list[Activity]:
        """Every activity record, or those of ``kinds``, oldest first."""
        with self._lock:
            packed = list(self._activity.items)
        return [unpack(item) for item in packed if kinds is None or item[0] in kinds]

    def execution_sources(self, schedule_arns: Iterable[str]) -> list[ExecutionSource]:
        """The kept occurrences of each ARN, in generation order."""
        with self._lock:
            return [source for arn in schedule_arns for source in self._executions.get(arn, ())]

    def last_execution_source(self, schedule_arn: str) -> ExecutionSource | None:
        """The newest kept occurrence of ``schedule_arn`` (a rule target's key too), if any."""
        with self._lock:
            kept = self._executions.get(schedule_arn)
            return kept[-1] if kept else None

    def known_schedules(self, name: str) -> tuple[dict[str, str], list[str], bool]:
        """(schedule ARN -> group) of every schedule named ``name`` since the last clear,
        every known name, and whether nothing was forgotten."""
        with self._lock:
            known = self._known
            return known.schedules_named(name), list(known.by_name), known.complete

    def known_schedule_arns(self) -> dict[str, str]:
        """(schedule ARN -> name) of every schedule since the last clear, in the order first
        seen."""
        with self._lock:
            return dict(self._known.arns)

    def last_definitions(self, schedule_arns: Iterable[str]) -> dict[str, Schedule]:
        """The last known definition of each ARN that still has one kept."""
        with self._lock:
            definitions = self._known.definitions
            return {arn: definitions[arn] for arn in schedule_arns if arn in definitions}

    def known_rules(self) -> tuple[dict[str, list[str]], bool]:
        """(rule name -> the ARNs of the rules of that name) of every rule whose targets
        were planned since the last clear, and whether nothing was forgotten."""
        with self._lock:
            known = self._known
            return {name: list(arns) for name, arns in known.rules.items()}, known.complete

    def known_rule_targets(self) -> dict[str, str]:
        """(rule target key -> its rule's ARN) of every rule target since the last clear,
        in the order first seen."""
        with self._lock:
            return dict(self._known.rule_targets)

    def known_groups(self) -> tuple[list[str], bool]:
        """The groups that held a schedule since the last clear, and whether nothing was
        forgotten."""
        with self._lock:
            return list(self._known.groups), self._known.complete

    def known_targets(self) -> tuple[list[str], list[str], bool]:
        """(target ARNs, dead-letter queue ARNs) used since the last clear, and whether
        nothing was forgotten."""
        with self._lock:
            known = self._known
            return list(known.targets), list(known.dead_letter_queues), known.complete

    @property
    def dropped_records(self) -> DroppedRecords:
        with self._lock:
            return DroppedRecords(
                {
                    "attempts": self._attempts.dropped,
                    "executions": self._executions_dropped,
                    "dead_letters": self._dead_letters.dropped,
                    "activity": self._activity.dropped,
                }
            )
