"""One filter for every question about what happened.

A ``RecordFilter`` is what the queries (``Emulator.attempts``, ``deliveries``…), the
assertions (``assert_delivered``…), the timeline and the control API's record routes
build from what they were given, and what decides, record by record, which ones they
keep: one matching method per kind of record, here and nowhere else.

Its fields are the filter parameters, named as every signature and query string names
them and declared in the one order every signature lists them (``FILTERS``): where they
come from (``schedule``, ``group``, ``rule``), where they went (``target_arn``,
``queue_arn``), how they ended (``outcome``), and when (``since``, ``until``). A method may
take one of them as its first positional parameter (``deliveries(target_arn)``); all the
others are keyword-only. Their descriptions are one table (``FILTER_DOCS``), from which
each public method's docstring gets its section on the filters it takes
(``documents_filters``).

A record says where it came from by itself: a schedule's records by their schedule ARN,
group and name, a rule target's by ``rule_arn`` and ``rule_name`` (``producer_key``). A
schedule filter never matches a rule target's records, nor a rule filter a schedule's,
and a rule's identity is never read out of ``schedule_arn``. Whether a name ever existed
is not the filter's business: the read side checks that (``Records.check``).
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Protocol, TypeVar

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.times import to_utc
from pytest_schedemu.model.arns import ScheduleFilter
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.types import Activity, Attempt, DeadLetter
from pytest_schedemu.targets import target_kind

# A filter that cannot match is reported at the caller's line.
__tracebackhide__ = raised_for_the_caller

#: What ``outcome`` may be, and whether an attempt of it succeeded (None: either).
OUTCOMES: dict[str, bool | None] = {"all": None, "succeeded": True, "failed": False}

#: How each filter parameter is documented, in the order signatures declare them.
FILTER_DOCS = {
    "schedule": "where the records came from: a schedule's name, or its ARN. Without "
    "``group`` a name is found in whichever groups held it; a schedule that never existed "
    "(in that group) raises LookupError naming those that did.",
    "group": "the schedule group they came from; one that never held a schedule raises "
    "LookupError naming those that did.",
    "rule": "a scheduled EventBridge rule's name, or its ARN: what belongs to its targets. "
    "One that never had a target raises LookupError naming those that did; with "
    "``schedule`` or ``group`` it raises ValueError, as a rule's records name no schedule.",
    "target_arn": "where they went: a target's ARN, or ``service:action`` for a universal target.",
    "queue_arn": "the dead-letter queue's ARN.",
    "outcome": "``succeeded``, ``failed`` (each failed try, retried or not), or ``all``.",
    "since": "the start of the span shown: an aware datetime or an ISO 8601 string.",
    "until": "its end, after ``since``; past the clock's instant a lane shows its next "
    "occurrences.",
}
#: The filter parameters, in their one order.
FILTERS = tuple(FILTER_DOCS)


class SourcedRecord(Protocol):
    """What every record says of where it came from."""

    @property
    def schedule_arn(self) -> str | None: ...

    @property
    def rule_arn(self) -> str | None: ...

    @property
    def rule_name(self) -> str | None: ...

    @property
    def target_id(self) -> str | None: ...


def target_matches(target_arn: str, key: str) -> bool:
    """Whether an attempt at ``target_arn`` is one at ``key``: a target ARN, or the
    ``service:action`` of a universal target (in any partition)."""
    if key.startswith("arn:"):
        return target_arn == key
    return target_kind(target_arn).universal_key == key


@dataclass(frozen=True)
class RecordFilter:
    """Which records a question is about; a field left None narrows nothing.

    Made, it is coherent: ``rule`` with ``schedule`` or ``group``, an unknown ``outcome``
    and ``since`` not before ``until`` are ValueErrors (``outcome`` ``all`` is kept as
    None).
    """

    schedule: str | None = None
    group: str | None = None
    rule: str | None = None
    target_arn: str | None = None
    queue_arn: str | None = None
    outcome: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    _named: ScheduleFilter = field(init=False, repr=False, compare=False)
    _sourced: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rule is not None and (self.schedule is not None or self.group is not None):
            given = "schedule=" if self.schedule is not None else "group="
            raise ValueError(
                f"rule={self.rule!r} and {given} together can match nothing: a rule's "
                "records name no schedule and no group. Pass one or the other."
            )
        if self.outcome is not None and self.outcome not in OUTCOMES:
            raise ValueError(f"Invalid outcome {self.outcome!r}: expected all, succeeded or failed")
        if self.outcome == "all":
            object.__setattr__(self, "outcome", None)
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError(
                f"since must come before until, got since={self.since.isoformat()} and "
                f"until={self.until.isoformat()}"
            )
        object.__setattr__(self, "_named", ScheduleFilter(self.schedule, self.group))
        sourced = self.schedule is not None or self.group is not None or self.rule is not None
        object.__setattr__(self, "_sourced", sourced)

    @classmethod
    def of(cls, given: Mapping[str, Any], names: Iterable[str] = FILTERS) -> RecordFilter:
        """The filter of the parameters ``names`` in ``given`` (a query string, say), with
        ``since`` and ``until`` read as instants; anything else in ``given`` is ignored."""
        # An empty parameter is one not given, as a form sends a blank field.
        values = {name: given.get(name) or None for name in names}
        for name in ("since", "until"):
            value = values.get(name)
            if value is not None:
                values[name] = to_utc(value, what=name)
        return cls(**values)

    @property
    def given(self) -> dict[str, Any]:
        """The fields given, by name, in the canonical order."""
        return {name: v for name in FILTERS if (v := getattr(self, name)) is not None}

    # -- matching, one kind of record each ------------------------------------------------

    # Most filters name no source (an assertion's target alone): then no field of where a
    # record came from is read, which a lazily made record would have to work out.

    def keeps_attempt(self, attempt: Attempt) -> bool:
        return (
            (self.target_arn is None or target_matches(attempt.target_arn, self.target_arn))
            and (self.outcome is None or attempt.succeeded == OUTCOMES[self.outcome])
            and (
                not self._sourced or self._from(attempt, attempt.group_name, attempt.schedule_name)
            )
        )

    def keeps_dead_letter(self, letter: DeadLetter) -> bool:
        return self.queue_arn in (None, letter.queue_arn) and (
            not self._sourced or self._from(letter)
        )

    def keeps_activity(self, activity: Activity) -> bool:
        """Whether an activity record is kept: a group's removal names the group, so it is
        one of each of the group's schedules while no single schedule is named."""
        return not self._sourced or self._from(activity)

    def keeps_definition(self, schedule: Schedule) -> bool:
        """Whether a schedule, or a rule target, as last defined, is one whose records the
        filter keeps (aimed at ``target_arn``, with ``queue_arn`` for its dead letters)."""
        target = schedule.target
        if self.target_arn is not None and not target_matches(target.arn, self.target_arn):
            return False
        if self.queue_arn is not None and target.dead_letter_arn != self.queue_arn:
            return False
        rule = schedule.of_rule
        if rule is not None:
            return self._of_rule(*rule)
        return self.rule is None and self._named.matches(
            schedule.arn, schedule.group_name, schedule.name
        )

    def keeps_schedule_arn(self, arn: str) -> bool:
        """Whether the records of the schedule ``arn`` are kept, by where they came from."""
        return self.rule is None and self._named.matches_arn(arn)

    def _from(
        self, record: SourcedRecord, group: str | None = None, name: str | None = None
    ) -> bool:
        """Whether ``record`` came from what the filter names: a rule target's record by
        its rule fields, a schedule's by its group and name when given, else by its ARN."""
        if record.rule_arn is not None:
            return self._of_rule(record.rule_arn, record.rule_name)
        if self.rule is not None:
            return False
        arn = record.schedule_arn or ""
        if group is None or name is None:
            return self._named.matches_arn(arn)
        return self._named.matches(arn, group, name)

    def _of_rule(self, rule_arn: str, rule_name: str | None) -> bool:
        if self.rule is None:
            return self.schedule is None and self.group is None
        return (rule_arn if self.rule.startswith("arn:") else rule_name) == self.rule


_Method = TypeVar("_Method", bound=Callable[..., Any])


def documents_filters(method: _Method) -> _Method:
    """Append to ``method``'s docstring the description of each filter parameter it takes,
    in the order it takes them, from the one table (``FILTER_DOCS``)."""
    taken = [name for name in inspect.signature(method).parameters if name in FILTER_DOCS]
    lines = "\n".join(
        textwrap.fill(f"- ``{name}``: {FILTER_DOCS[name]}", width=88, subsequent_indent="  ")
        for name in taken
    )
    doc = inspect.cleandoc(method.__doc__ or "")
    method.__doc__ = f"{doc}\n\nFilters, each one given narrowing it down:\n\n{lines}"
    return method
