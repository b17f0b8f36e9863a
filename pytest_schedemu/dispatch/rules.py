"""Planning scheduled EventBridge rules: each target of a rule is one more producer.

The store tells the planner of every change to a rule (``rule_saved``) and of its removal
(``rule_removed``). Each target of a rule with a ``ScheduleExpression`` gets a plan of its
own, keyed ``<rule ARN>#<target id>`` (``rule_target_key``) inside the dispatcher, with the
target's incarnation and a ``RuleTargetProducer`` for each of its definitions: its
occurrences, attempts, retries, dead letters and timeline lane are its own, on the queue,
settlement and bulk play every schedule uses. What a rule adds is EventBridge's
(docs/eventbridge-rules.md):

- UTC only; no flexible window, no start or end, nothing after completion.
- A rule fires at its expression's instants strictly after it was activated (created, given
  a new expression, or enabled again): ``rate()`` counts from the activation, its first
  occurrence one period later ("A rate expression starts when you create the scheduled
  event rule", AWS's rate expressions reference); ``cron()`` from the first match after it.
- A target added to a firing rule keeps the rule's phase, from the next instant after it
  was added; a target whose definition changes keeps the phase too.
- DisableRule stops new occurrences at once: a disabled rule "won't self-trigger" (AWS's
  DisableRule reference; the change taking effect "after a short period" is taken as at
  once). Retries of an event it already sent go on: that event is being delivered, not
  triggered [choice]. So do they after a change to a target: what was sent keeps the
  definition it was sent with.
- RemoveTargets and DeleteRule (and a PutRule that drops the expression) stop the target
  at once (AWS: removed targets "might continue to be invoked" for "a short period", taken
  as none) and cancel its pending retries, recorded as ``cancelled``: the target, its
  retry policy and its dead-letter queue are gone with it [choice].
- The targets of one occurrence share its event, so its id: every target receives the
  same event, as on AWS; their execution ids differ.
- Retries follow EventBridge's ladder (``retries.eventbridge_next_attempt``).
- A test may fire a rule by hand (``firing``): the targets one fire reaches share its
  event, so the fire number is the rule's (``next_fire``), kept past removed targets.

The producer (``producers.rule_targets``) says how a definition fires, retries and
dead-letters; this module decides when a target gets a new definition, and when it goes.

Everything here runs under the store's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Optional

from pytest_schedemu.dispatch.occurrences import Plan
from pytest_schedemu.dispatch.producers import RuleTargetProducer
from pytest_schedemu.model.rules import (
    Rule,
    RuleTarget,
    RuleTargetSchedule,
    rule_target_schedule,
)

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.planner import Planner

#: What a target's plan was made from: the rule's expression, whether it fires, when it
#: was activated, and the target. A change to any re-plans the target. (``Optional``: an
#: alias is evaluated when the module loads, and ``str | None`` needs Python 3.10.)
_MadeFrom = tuple[Optional[str], bool, datetime, RuleTarget]


class RulePlanning:
    """The live plans of every scheduled rule's targets."""

    def __init__(self, planner: Planner, *, now: Callable[[], datetime]) -> None:
        self._planner = planner
        self._now = now
        #: rule ARN -> target id -> (its live plan, what it was made from)
        self._plans: dict[str, dict[str, tuple[Plan, _MadeFrom]]] = {}
        #: rule ARN -> the number of its latest fire by hand, kept past its targets' plans:
        #: a target removed since took its own count with it.
        self._fires: dict[str, int] = {}

    def saved(self, rule: Rule) -> None:
        """Plan the targets of ``rule`` as it now stands."""
        live = self._plans.setdefault(rule.arn, {})
        wanted = {target.id: target for target in rule.targets}
        if rule.schedule_expression is None:
            wanted = {}  # an EventPattern-only rule never fires on the clock
        for target_id, (plan, _) in list(live.items()):
            target = wanted.get(target_id)
            if target is None or target.incarnation != plan.seq:
                del live[target_id]
                reason = "no_schedule" if rule.schedule_expression is None else "target_removed"
                self._retire(plan, reason)
        now = self._now()
        for target in wanted.values():
            source = _made_from(rule, target)
            found = live.get(target.id)
            definition = rule_target_schedule(rule, target, now)
            if found is None:
                plan = self._define(Plan(definition), definition, rule, target)
                self._planner.adopt(plan)
                live[target.id] = (plan, source)
                self._planner.plan_first(plan)
                self._activity("created", plan)
            elif found[1] != source:
                plan = found[0]
                self._planner.superseded(plan)
                self._define(plan, definition, rule, target)
                # What was already sent keeps its definition and its retries: the
                # occurrences move on to the new version of the plan.
                for occurrence in plan.pending:
                    occurrence.version = plan.version
                live[target.id] = (plan, source)
                self._planner.plan_first(plan)
                self._activity("updated", plan)
        if live:
            # In the order of the targets' incarnations, as a restart plans them: what
            # is done to every target of a rule at once is recorded in that order.
            self._plans[rule.arn] = dict(sorted(live.items(), key=lambda item: item[1][0].seq))
        else:
            del self._plans[rule.arn]

    def restore(
        self, rule: Rule, plans: Mapping[int, tuple[datetime, int | None, int]]
    ) -> list[RuleTargetSchedule]:
        """Plan the targets of a saved ``rule`` again, as they stood: ``plans`` holds, by
        target incarnation, when each target's plan was last defined, the last nominal time
        it generated and how many of its occurrences were fired. Their work is queued by
        ``Planner.plan_first`` once the rest is restored; return the definitions planned."""
        if rule.schedule_expression is None or not rule.targets:
            return []  # an EventPattern-only rule is never planned
        live = self._plans.setdefault(rule.arn, {})
        definitions = []
        for target in sorted(rule.targets, key=lambda target: target.incarnation):
            where = plans.get(target.incarnation)
            if where is None:
                raise ValueError(
                    f"the target {target.id!r} (incarnation {target.incarnation}) of the "
                    f"scheduled rule {rule.arn} has no plan"
                )
            defined_at, last_dispatched, fires = where
            definition = rule_target_schedule(rule, target, defined_at)
            plan = self._define(Plan(definition), definition, rule, target)
            plan.last_dispatched = last_dispatched
            plan.fires = fires
            self._planner.adopt(plan)
            live[target.id] = (plan, _made_from(rule, target))
            definitions.append(definition)
        return definitions

    def removed(self, rule: Rule, reason: str) -> None:
        """The rule is gone: its targets' plans go, their pending retries cancelled."""
        self._fires.pop(rule.arn, None)
        for plan, _ in self._plans.pop(rule.arn, {}).values():
            self._retire(plan, reason)

    def reset(self) -> None:
        self._plans.clear()
        self._fires.clear()

    def live_plans(self, rule_arn: str) -> dict[str, Plan]:
        """The live plan of each target of the stored rule ``rule_arn``, by target id."""
        return {target_id: plan for target_id, (plan, _) in self._plans.get(rule_arn, {}).items()}

    def next_fire(self, rule_arn: str) -> int:
        """Take the number of the rule's next fire by hand: past every earlier fire of any
        of its targets, so that the targets one fire reaches share its event id (made of the
        rule's ARN, incarnation, instant and this number) and no two fires share one."""
        counts = [plan.fires for plan, _ in self._plans.get(rule_arn, {}).values()]
        number = max([self._fires.get(rule_arn, 0), *counts]) + 1
        self._fires[rule_arn] = number
        return number

    def _define(
        self, plan: Plan, definition: RuleTargetSchedule, rule: Rule, target: RuleTarget
    ) -> Plan:
        planner = self._planner
        template = planner.settings.current.sqs_queue_url_template
        planner.define(
            plan, RuleTargetProducer(definition, rule, target, queue_url_template=template)
        )
        planner.history.note_rule_target(definition)
        return plan

    def _retire(self, plan: Plan, reason: str) -> None:
        self._activity("deleted", plan, reason)
        self._planner.retire(plan, reason)

    def _activity(self, kind: str, plan: Plan, detail: str | None = None) -> None:
        shown = plan.schedule.state if detail is None else detail
        self._planner.history.add_activity(plan.producer.activity(kind, self._now(), None, shown))


def _made_from(rule: Rule, target: RuleTarget) -> _MadeFrom:
    return (rule.schedule_expression, rule.fires, rule.activated_at, target)
