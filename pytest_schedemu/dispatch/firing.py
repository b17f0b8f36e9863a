"""Firing by hand: one occurrence now, out of its schedule ("run now"), of a schedule or
of a scheduled EventBridge rule.

A fired occurrence is an ordinary occurrence of the current definition whose scheduled time
is the clock's current second: its Input's context attributes (a rule's event ``time``) name
that instant, its first attempt is made at once (a flexible window does not put off what a
test asked for now), and what follows an outcome (retries on the clock, the dead letter, the
drop) is settlement's, as for any other. The producer's own occurrences are untouched: the
clock does not move and the plan's queued work stays as it was. Its ids are its own
(``events.event_id`` counts the fires of each incarnation), so it never shares them with an
occurrence scheduled at the same instant, nor with another fired one.

A rule is fired for every target, or the one named: the targets one fire reaches share its
event, as AWS sends one event to every target of a rule, so they take one fire number
(``RulePlanning.next_fire``) and the event id made of it; their attempts are made in the
order of the rule's targets. A rule with only an ``EventPattern`` has no event of its own to
fire.

A disabled schedule or rule can be fired too: firing is the test's explicit request, and AWS
has no "run now" whose rules it could follow. Only a virtual clock fires, in the caller's
thread like a move, so that the first attempts are there to return.

With a state file (``state=``) a fired occurrence is kept like any other: the file keys an
occurrence by its incarnation, scheduled time and fire number, and keeps how many fires each
plan made, so that a fire after a restart takes the next number, and ids of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pytest_schedemu.delivery.backends import OK
from pytest_schedemu.delivery.handlers import failed_attempt
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.errors import ClockError, HandlerError, raised_for_the_caller
from pytest_schedemu.formats.listing import closest_first, listing
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.rules import Rule, RuleTarget, parse_rule_arn
from pytest_schedemu.records import Attempt, Records
from pytest_schedemu.timekeeping.clock import ClockWiring

_Fired = TypeVar("_Fired")

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class Firing:
    """Fires schedules and rules by hand, for ``Emulator.fire``, ``Emulator.fire_rule``
    and the control API."""

    def __init__(self, *, dispatcher: Dispatcher, records: Records, wiring: ClockWiring) -> None:
        self._dispatcher = dispatcher
        self._records = records
        self._wiring = wiring

    def fire(self, schedule: str, group: str | None = None) -> Attempt:
        """Make one occurrence of the stored schedule ``schedule`` (a name, or an ARN) at
        the current instant and its first attempt; return that attempt."""
        arn = self._records.one_schedule_arn(schedule, group)
        if arn is None:
            raise LookupError(
                f"Schedule {schedule!r} is not among the schedules this emulator still "
                "remembers (max_records forgot some): pass its ARN"
            )
        return self._by_hand("a schedule", lambda: self._fire(arn))

    def fire_rule(
        self,
        rule: str,
        target_id: str | None = None,
        *,
        account_id: str | None = None,
        region: str | None = None,
    ) -> list[Attempt]:
        """Make one occurrence of the stored scheduled rule ``rule`` (a name, or an ARN) at
        the current instant for each of its targets, or for ``target_id`` alone, and their
        first attempts; return those attempts, in the order of the rule's targets."""
        return self._by_hand("a rule", lambda: self._fire_rule(rule, target_id, account_id, region))

    def _by_hand(self, what: str, fire: Callable[[], _Fired]) -> _Fired:
        wiring = self._wiring
        if wiring.clock.real_time:
            raise ClockError(
                f"Firing {what} needs a virtual clock (Emulator(clock='virtual')): it "
                "delivers in the caller's thread, which a real-time clock leaves to its own"
            )
        wiring.guard.refuse_inside()
        with wiring.operation_lock:
            try:
                return fire()
            except HandlerError as error:
                # Raised afresh here, as a clock move does: the test's line, then the handler's.
                raise error.with_traceback(None) from error.__cause__

    def _fire(self, arn: str) -> Attempt:
        dispatcher = self._dispatcher
        with dispatcher.store.lock:
            plan = dispatcher.planner.live_plan(arn)
            if plan is None:
                raise LookupError(
                    f"Schedule {arn} does not exist now (it was deleted): only a stored "
                    "schedule can be fired"
                )
            plan.fires += 1
            job = self._first_job(plan, plan.fires)
        (attempt,) = self._deliver([job])
        return attempt

    def _fire_rule(
        self, name: str, target_id: str | None, account_id: str | None, region: str | None
    ) -> list[Attempt]:
        dispatcher = self._dispatcher
        with dispatcher.store.lock:
            rule = self._stored_rule(name, account_id, region)
            targets = _chosen_targets(rule, target_id)
            rules = dispatcher.planner.rules
            plans = rules.live_plans(rule.arn)
            missing = [target.id for target in targets if target.id not in plans]
            if missing:  # the store and the planner change under this lock together
                raise LookupError(f"Rule {rule.arn} has no plan for its targets {missing}")
            number = rules.next_fire(rule.arn)
            jobs = []
            for target in targets:
                plan = plans[target.id]
                plan.fires = number
                jobs.append(self._first_job(plan, number))
        return self._deliver(jobs)

    def _stored_rule(self, name: str, account_id: str | None, region: str | None) -> Rule:
        """The stored rule ``name`` (a name or an ARN) names, in ``account_id`` and
        ``region`` if given; a name held in several accounts or regions is the default
        one's."""
        stored = self._dispatcher.store.rules.all_rules()
        if name.startswith("arn:"):
            if parse_rule_arn(name) is None:
                raise ValueError(
                    f"Not a rule ARN: {name!r}; expected arn:<partition>:events:<region>:"
                    "<account>:rule/<name>"
                )
            found = [rule for rule in stored if rule.arn == name]
        else:
            found = [
                rule
                for rule in stored
                if rule.name == name
                and account_id in (None, rule.account_id)
                and region in (None, rule.region)
            ]
        if not found:
            where = "".join(
                f" in {label} {value}"
                for label, value in (("account", account_id), ("region", region))
                if value is not None
            )
            names = sorted({rule.name for rule in stored})
            there = (
                f"; the rules there are, closest first: {listing(closest_first(name, names))}"
                if names
                else "; it has no rules"
            )
            raise LookupError(f"No rule {name!r} is stored in this emulator{where}{there}")
        if len(found) > 1:
            settings = self._dispatcher.settings.current
            own = [
                rule
                for rule in found
                if (rule.account_id, rule.region) == (settings.account_id, settings.region)
            ]
            if len(own) != 1:
                raise ValueError(
                    f"Rule {name!r} exists in several accounts or regions: "
                    f"{listing([rule.arn for rule in found])}; pass its ARN, or account_id "
                    "and region"
                )
            found = own
        return found[0]

    def _first_job(self, plan: Plan, fired: int) -> Job:
        """A new occurrence of ``plan`` at the current second, fired by hand as the
        ``fired``-th, and its first attempt. Under the store's lock."""
        dispatcher = self._dispatcher
        now = floor_epoch(dispatcher.now())
        occurrence = Occurrence(plan, now, now, fired=fired)
        occurrence.first_attempt_at = now
        plan.pending.add(occurrence)
        dispatcher.history.add_execution(plan.arn, occurrence)
        return Job(occurrence, 1, now, dispatcher.settings.current.seed)

    def _deliver(self, jobs: Sequence[Job]) -> list[Attempt]:
        """Make each first attempt in turn and settle it. When one stops the fire (a
        handler's bug, an interrupt), the attempts not yet made wait on the queue for the
        next move, as the rest of a move stopped there would."""
        dispatcher = self._dispatcher
        settle = dispatcher.settlement.settle
        attempts = []
        try:
            for index, job in enumerate(jobs):
                try:
                    outcome = dispatcher.deliver(job) if dispatcher.calls_targets else OK
                except HandlerError as error:
                    settle(job, failed_attempt(error))
                    self._queue(jobs[index + 1 :])
                    raise
                except BaseException:
                    dispatcher.interrupted(job)
                    self._queue(jobs[index + 1 :])
                    raise
                attempts.append(settle(job, outcome))
            return attempts
        finally:
            # Durable before it returns (with a state path), as a clock move is.
            dispatcher.store.commit()

    def _queue(self, jobs: Sequence[Job]) -> None:
        dispatcher = self._dispatcher
        with dispatcher.store.lock:
            for job in jobs:
                job.occurrence.first_attempt_at = None
                dispatcher.planner.push_attempt(job.attempted_at, job.occurrence, 1)


def _chosen_targets(rule: Rule, target_id: str | None) -> tuple[RuleTarget, ...]:
    """The targets of ``rule`` a fire reaches: every one, or the one ``target_id`` names."""
    if rule.schedule_expression is None:
        raise ValueError(
            f"Rule {rule.name!r} has no ScheduleExpression: only a scheduled rule has an "
            "event of its own to fire (an EventPattern waits for events, which nothing puts "
            "into the emulator)"
        )
    if not rule.targets:
        raise LookupError(f"Rule {rule.name!r} has no targets: PutTargets gives it some to fire")
    if target_id is None:
        return rule.targets
    target = rule.target(target_id)
    if target is None:
        ids = [target.id for target in rule.targets]
        raise LookupError(
            f"Rule {rule.name!r} has no target {target_id!r}; its targets, closest first: "
            f"{listing(closest_first(target_id, ids))}"
        )
    return (target,)
