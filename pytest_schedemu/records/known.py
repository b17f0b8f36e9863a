"""What existed since the last reset: the registry strict lookups and assertions consult.

A lookup of a schedule, a group, a target or a dead-letter queue that nothing ever had is
refused; so the history remembers every name, group, target and queue it saw, boundedly,
and the last definitions of schedules (deleted ones too), so that a picture can still draw
them and an assertion can tell when each last changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_schedemu.model.arns import ScheduleArn
from pytest_schedemu.model.resources import Schedule

if TYPE_CHECKING:
    from pytest_schedemu.records.history import SavedHistory

#: How many schedules' last definitions are kept, most recently changed first: enough to
#: draw the lanes of deleted schedules, without keeping every definition a long-running
#: service ever saw.
KEPT_DEFINITIONS = 1_000

#: How many schedule names (and targets, and dead-letter queues) strict lookups remember.
KNOWN_LIMIT = 10_000


def known_cap(max_records: int | None) -> int:
    """How many names of each kind are remembered under the ``max_records`` setting."""
    return KNOWN_LIMIT if max_records is None else min(max_records, KNOWN_LIMIT)


class Known:
    """Every schedule, group, target and dead-letter queue that existed since the last clear.

    Bounded: past ``KNOWN_LIMIT`` names (or ``max_records``, if lower) the oldest are
    forgotten, and ``complete`` turns False (a lookup can then no longer call a name
    unknown). A test resets long before that; a service that sees millions of names come
    and go keeps a bounded memory. Used only under the history's lock.
    """

    def __init__(self) -> None:
        #: schedule name -> the ARN of each schedule of that name (the ARN alone when there
        #: is one, as there mostly is: a name is remembered for every schedule made), names
        #: in the order first seen.
        self.by_name: dict[str, str | tuple[str, ...]] = {}
        #: schedule ARN -> name, in the order first seen.
        self.arns: dict[str, str] = {}
        #: The groups that held a schedule, in the order first seen.
        self.groups: dict[str, None] = {}
        #: Target ARNs and dead-letter queue ARNs, in the order first seen.
        self.targets: dict[str, None] = {}
        self.dead_letter_queues: dict[str, None] = {}
        #: schedule ARN (or rule target key) -> its last definition, the most recently noted
        #: last.
        self.definitions: dict[str, Schedule] = {}
        #: rule name -> the ARNs of the rules of that name; rule target key -> its rule's
        #: ARN, each in the order first seen.
        self.rules: dict[str, dict[str, None]] = {}
        self.rule_targets: dict[str, str] = {}
        self.complete = True

    def note_schedule(self, schedule: Schedule, arn: str, cap: int | None) -> None:
        self._add(arn, schedule.group_name, schedule.name)
        self._note(schedule, arn, cap)

    def note_rule_target(
        self, definition: Schedule, key: str, rule_arn: str, rule_name: str, cap: int | None
    ) -> None:
        """A rule target's ``definition`` (of key ``key``), of the rule ``rule_arn``."""
        self.rules.setdefault(rule_name, {})[rule_arn] = None
        self.rule_targets[key] = rule_arn
        self._note(definition, key, cap)

    def _note(self, schedule: Schedule, arn: str, cap: int | None) -> None:
        self.definitions.pop(arn, None)
        self.definitions[arn] = schedule
        if len(self.definitions) > KEPT_DEFINITIONS:
            del self.definitions[next(iter(self.definitions))]
        self.targets[schedule.target.arn] = None
        if schedule.target.dead_letter_arn is not None:
            self.dead_letter_queues[schedule.target.dead_letter_arn] = None
        cap = known_cap(cap)
        while len(self.rule_targets) > cap:
            self.complete = False
            del self.rule_targets[next(iter(self.rule_targets))]
        while len(self.rules) > cap:
            self.complete = False
            del self.rules[next(iter(self.rules))]
        while len(self.arns) > cap:
            self.complete = False
            oldest = next(iter(self.arns))
            oldest_name = self.arns.pop(oldest)
            kept = tuple(arn for arn in self._arns_named(oldest_name) if arn != oldest)
            if not kept:
                del self.by_name[oldest_name]
            else:
                self.by_name[oldest_name] = kept[0] if len(kept) == 1 else kept
        for table in (self.groups, self.targets, self.dead_letter_queues):
            while len(table) > cap:
                self.complete = False
                del table[next(iter(table))]

    def restore(self, saved: SavedHistory) -> None:
        """Put back what a saved state remembered: its schedules, rule targets, targets and
        dead-letter queues, and the definitions it gives."""
        for arn, group, name in saved.schedules:
            self._add(arn, group, name)
        for key, rule_arn, rule_name in saved.rule_targets:
            self.rules.setdefault(rule_name, {})[rule_arn] = None
            self.rule_targets[key] = rule_arn
        for definition in saved.definitions[-KEPT_DEFINITIONS:]:
            self.definitions[definition.arn] = definition
        self.targets = dict.fromkeys(saved.targets)
        self.dead_letter_queues = dict.fromkeys(saved.dead_letter_queues)
        self.complete = saved.complete

    def _add(self, arn: str, group: str, name: str) -> None:
        arns = self.by_name.get(name)
        if arns is None:
            self.by_name[name] = arn
        elif arn not in self._arns_named(name):
            self.by_name[name] = (arns, arn) if isinstance(arns, str) else (*arns, arn)
        self.arns[arn] = name
        self.groups[group] = None

    def _arns_named(self, name: str) -> tuple[str, ...]:
        arns = self.by_name.get(name, ())
        return (arns,) if isinstance(arns, str) else arns

    def schedules_named(self, name: str) -> dict[str, str]:
        """(schedule ARN -> group) of every remembered schedule named ``name``."""
        return {arn: ScheduleArn.parse(arn).group for arn in self._arns_named(name)}
