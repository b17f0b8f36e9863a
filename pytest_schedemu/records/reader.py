"""The read side: queries over what happened.

``Records`` answers every question a test, the control API or the timeline asks: which
attempts were made, which were deliveries, which dead letters were sent, what happened to
each occurrence, what comes next. It reads the history, the store's schedules and the
dispatcher's plans through the narrow protocols below, and changes nothing; it only keeps
note of the drops a test asserted (``AssertedDrops``).

Every query takes a ``RecordFilter``, which matches the records (``records.filters``); what
the read side adds is strictness: a filter must be able to match, so a schedule, a group or
a rule that nothing in the emulator ever had is a LookupError naming those there were,
whether the filter names it alone or with others (``check``).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager, suppress
from datetime import datetime
from typing import Any, Callable, Protocol

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.listing import closest_first, listing
from pytest_schedemu.model.arns import ScheduleArn, schedule_arn, scheduler_arn
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.model.rules import parse_rule_arn
from pytest_schedemu.records.drops import DROP_KINDS, AssertedDrops
from pytest_schedemu.records.filters import RecordFilter
from pytest_schedemu.records.history import DroppedRecords, History
from pytest_schedemu.records.invocations import FunctionInvocation
from pytest_schedemu.records.types import PENDING, Activity, Attempt, DeadLetter, Execution

# A bad name or filter is reported at the caller's line: the frames of the lookup say nothing
# the message does not (pytest reads this for every frame of this module).
__tracebackhide__ = raised_for_the_caller


class ScheduleSource(Protocol):
    """What the read side needs of the store."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def all_schedules(self) -> list[Schedule]: ...

    def all_groups(self) -> list[ScheduleGroup]: ...


class PlanSource(Protocol):
    """What the read side needs of the dispatcher."""

    def next_occurrence(self, schedule_arn: str) -> datetime | None: ...


class Identity(Protocol):
    """The emulator's default account and region, which a bare schedule name lives in."""

    @property
    def region(self) -> str: ...

    @property
    def account_id(self) -> str: ...


#: The filter that keeps every record.
EVERY_RECORD = RecordFilter()


class Records:
    """Every query over the emulator's records."""

    def __init__(
        self,
        *,
        history: History,
        schedules: ScheduleSource,
        plans: PlanSource,
        identity: Callable[[], Identity],
        origin: Callable[[str], tuple[str, str] | None] = lambda arn: None,
    ) -> None:
        self._history = history
        self._origin = origin
        self._schedules = schedules
        self._plans = plans
        self._identity = identity
        self._asserted_drops = AssertedDrops()

    # -- finding schedules ---------------------------------------------------------------

    def origin_of(self, schedule_arn: str) -> tuple[str, str] | None:
        """(stack name, logical id) of the stack resource that defined the schedule, or
        None for one the API created."""
        return self._origin(schedule_arn)

    def origins_of(self, schedule_arns: Iterable[str]) -> dict[str, str]:
        """``stack · logical id`` of each of these schedules a stack defined."""
        found = ((arn, self._origin(arn)) for arn in schedule_arns)
        return {arn: f"{origin[0]} · {origin[1]}" for arn, origin in found if origin is not None}

    def schedule_arns(self, schedule: str, group: str | None = None) -> list[str]:
        """The ARNs of the schedule a name (and group) or an ARN names, strictly.

        LookupError when no schedule of this emulator ever had that name (in that group);
        ValueError when ``group`` is None and the name is held by several groups.
        """
        if schedule.startswith("arn:"):
            parts = scheduler_arn(schedule)
            name = parts.name if isinstance(parts, ScheduleArn) else ""
            found, _, complete = self._history.known_schedules(name)
            if schedule not in found and complete:
                raise LookupError(
                    f"No schedule {schedule} ever existed in this emulator"
                    + self._known_names(name)
                )
            return [schedule]
        found, names, complete = self._history.known_schedules(schedule)
        if group is not None:
            self.check_group(group)
            in_group = [arn for arn, g in found.items() if g == group]
            if not in_group and complete:
                if found:
                    groups = sorted(set(found.values()))
                    raise LookupError(
                        f"No schedule {schedule!r} ever existed in group {group!r}; a "
                        f"schedule of that name is in group(s) {listing(groups)}"
                    )
                raise LookupError(
                    f"No schedule {schedule!r} ever existed in this emulator"
                    + self._known_names(schedule, names)
                )
            return sorted(in_group)
        if not found:
            if complete:
                raise LookupError(
                    f"No schedule {schedule!r} ever existed in this emulator"
                    + self._known_names(schedule, names)
                )
            return []
        groups = sorted(set(found.values()))
        if len(groups) > 1:
            raise ValueError(
                f"Schedule name {schedule!r} is held by several groups: {listing(groups)}; "
                "pass group= to choose one"
            )
        return sorted(found)

    def check(self, which: RecordFilter) -> None:
        """LookupError when the filter names a rule, a group, or a schedule (in that group)
        that never existed. A name that several groups hold is a fine filter: it matches
        them all."""
        if which.rule is not None:
            self.rule_arns(which.rule)
        if which.group is not None:
            self.check_group(which.group)
        schedule = which.schedule
        if schedule is not None:
            with suppress(ValueError):
                self.schedule_arns(schedule, None if schedule.startswith("arn:") else which.group)

    def check_group(self, group: str) -> None:
        """LookupError, naming the groups there were, when no group ``group`` exists and
        none of that name ever held a schedule."""
        held, complete = self._history.known_groups()
        groups = {DEFAULT_GROUP, *held, *(g.name for g in self._schedules.all_groups())}
        if group not in groups and complete:
            raise LookupError(
                f"No schedule group {group!r} ever existed in this emulator with a schedule "
                f"in it, and none exists now; the groups there were, closest first: "
                f"{listing(closest_first(group, groups))}"
            )

    def _known_names(self, name: str, names: list[str] | None = None) -> str:
        if names is None:
            _, names, _ = self._history.known_schedules(name)
        if not names:
            return "; it has no schedules"
        return f"; known schedules, closest first: {listing(closest_first(name, names))}"

    def known_targets(self) -> tuple[list[str], list[str], bool]:
        """(target ARNs, dead-letter queue ARNs) any schedule used since the last reset, and
        whether none was forgotten (``max_records``)."""
        return self._history.known_targets()

    def rule_arns(self, rule: str) -> list[str]:
        """The ARNs of the rules ``rule`` (a name or an ARN) names, strictly: LookupError
        when no scheduled rule with a target ever had it (unless some were forgotten)."""
        known, complete = self._history.known_rules()
        if rule.startswith("arn:"):
            parts = parse_rule_arn(rule)
            if parts is None:
                raise ValueError(
                    f"Not a rule ARN: {rule!r}; expected arn:<partition>:events:<region>:"
                    "<account>:rule/<name>"
                )
            found = [rule] if rule in known.get(parts.name, ()) else []
        else:
            found = list(known.get(rule, ()))
        if not found and complete:
            there = (
                f"; the rules there were, closest first: {listing(closest_first(rule, known))}"
                if known
                else "; it has no scheduled rule with a target"
            )
            raise LookupError(
                f"No scheduled rule {rule!r} with a target ever existed in this emulator{there}"
            )
        return found if found else [rule]

    def rule_target_keys(self, rule: str) -> list[str]:
        """The keys of the targets of the rule ``rule`` (a name or an ARN) names, strictly,
        in the order first seen."""
        arns = set(self.rule_arns(rule))
        return [key for key, arn in self._history.known_rule_targets().items() if arn in arns]

    # -- queries: each checks its filter, then keeps the records it matches ------------------

    def attempts(self, which: RecordFilter = EVERY_RECORD) -> list[Attempt]:
        """Every attempt made that the filter keeps, failed ones too, in delivery order."""
        found = self._history.attempts()
        if which == EVERY_RECORD:
            return found
        self.check(which)
        return [a for a in found if which.keeps_attempt(a)]

    def attempts_at(self, key: str) -> list[Attempt]:
        """Every attempt at a target ARN, or at a universal target's ``service:action``."""
        return self.attempts(RecordFilter(target_arn=key))

    def invocations(self) -> list[FunctionInvocation]:
        """Every run of a stack's own function, oldest first."""
        return self._history.invocations()

    def dead_letters(self, which: RecordFilter = EVERY_RECORD) -> list[DeadLetter]:
        """The messages sent to dead-letter queues that the filter keeps, in the order they
        were sent."""
        letters = self._history.dead_letters()
        if which == EVERY_RECORD:
            return letters
        self.check(which)
        return [d for d in letters if which.keeps_dead_letter(d)]

    def activity(self, kind: str | None = None) -> list[Activity]:
        """Drops, cancellations, dead-letter sends, automatic deletes, group removals."""
        return self._history.activity(None if kind is None else (kind,))

    def drops(self, which: RecordFilter = EVERY_RECORD) -> list[Activity]:
        """The occurrences lost that the filter keeps, oldest first: those that ended failed
        without a dead-letter queue (``dropped``) and those whose dead letter could not be
        sent (``dlq_failed``)."""
        self.check(which)
        return [d for d in self._history.activity(DROP_KINDS) if which.keeps_activity(d)]

    def note_asserted_drops(self, drops: Iterable[Activity]) -> None:
        """Keep note that the test asserted ``drops``: they are no longer unasserted."""
        self._asserted_drops.add(self._history.generation, drops)

    def unasserted_drops(self) -> list[Activity]:
        """The drops since the last reset that no passing ``assert_dropped`` matched, but
        those a handler's bug (``HandlerError``) caused: that error is reported already."""
        return self._asserted_drops.unasserted(self._history.generation, self.drops())

    def page(
        self, kind: str, keep: Callable[[Any], bool] | None, start: int, limit: int
    ) -> tuple[list[Any], int | None]:
        """A page of ``kind`` records (attempts, dead_letters, activity) from ``start``, the
        position a previous page returned (0 for the first), and the next page's start."""
        return self._history.page(kind, start, limit, keep)

    def page_backwards(
        self, kind: str, keep: Callable[[Any], bool] | None, end: int | None, limit: int
    ) -> tuple[list[Any], int | None]:
        """A page of ``kind`` records, newest first, from before ``end`` (None: the newest),
        and where the next, older page ends."""
        return self._history.page_backwards(kind, end, limit, keep)

    def written(self) -> dict[str, int]:
        """How many records of each kind were ever written since the last reset."""
        return self._history.written()

    def executions(self, which: RecordFilter) -> list[Execution]:
        """One record per occurrence of the schedule the filter names, in the order they
        were generated; or, with ``rule``, of each of the rule's targets in turn.

        ``group`` None finds the schedule in whichever group holds it (see
        ``schedule_arns`` for the errors).
        """
        if which.rule is not None:
            return self.executions_of(self.rule_target_keys(which.rule))
        if which.schedule is None:
            raise TypeError("executions() needs a schedule (a name or an ARN) or a rule=")
        return self.executions_of(self.schedule_arns(which.schedule, which.group))

    def executions_of(self, arns: Iterable[str]) -> list[Execution]:
        """The executions of each schedule ARN, in generation order per ARN."""
        # Occurrences change under the store's lock as attempts settle; holding it makes
        # every snapshot whole.
        with self._schedules.lock:
            return [
                source.snapshot()
                for source in self._history.execution_sources(arns)
                # One still waiting out its flexible window has no history yet.
                if source.status != PENDING
            ]

    def last_execution(self, key: str) -> Execution | None:
        """The newest occurrence of a schedule's ARN or a rule target's key that has a
        history (``executions`` keeps it), if any."""
        with self._schedules.lock:
            source = self._history.last_execution_source(key)
            return None if source is None or source.status == PENDING else source.snapshot()

    def next_occurrence(self, schedule: str, group: str | None = None) -> datetime | None:
        """The next nominal time of a schedule (by name, or ARN), or None if none remains."""
        arn = self.one_schedule_arn(schedule, group)
        return None if arn is None else self._plans.next_occurrence(arn)

    def one_schedule_arn(self, schedule: str, group: str | None = None) -> str | None:
        """The ARN of the one schedule a name (and group) or an ARN names, found as
        ``schedule_arns`` finds them; a name held in several accounts or regions is the
        default one's. None when the name was forgotten (``max_records``)."""
        arns = self.schedule_arns(schedule, group)
        if len(arns) > 1:
            # One name in one group of several accounts or regions: the default one, if any.
            identity = self._identity()
            first = ScheduleArn.parse(arns[0])
            own = schedule_arn(identity.region, identity.account_id, first.group, first.name)
            if own not in arns:
                raise ValueError(
                    f"Schedule {schedule!r} exists in several accounts or regions: "
                    f"{listing(arns)}; pass its ARN"
                )
            arns = [own]
        return arns[0] if arns else None

    def next_occurrence_of(self, schedule_arn: str) -> datetime | None:
        """The next nominal time of a stored schedule's ARN; None for any other ARN."""
        return self._plans.next_occurrence(schedule_arn)

    def schedules(self) -> list[Schedule]:
        """Every stored schedule, in every account and region."""
        return self._schedules.all_schedules()

    def groups(self) -> list[ScheduleGroup]:
        """Every schedule group, in every account and region."""
        return self._schedules.all_groups()

    def known_rule_targets(self) -> dict[str, str]:
        """(rule target key -> its rule's ARN) since the last reset, first seen first."""
        return self._history.known_rule_targets()

    def known_schedule_arns(self) -> dict[str, str]:
        """(ARN -> name) of every schedule since the last reset that is still remembered
        (``max_records`` bounds them), in the order first seen."""
        return self._history.known_schedule_arns()

    def last_definitions(self, schedule_arns: Iterable[str]) -> dict[str, Schedule]:
        """The last definition of each ARN, deleted schedules included, where one is kept."""
        return self._history.last_definitions(schedule_arns)

    @property
    def dropped_records(self) -> DroppedRecords:
        return self._history.dropped_records
