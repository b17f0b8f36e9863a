"""A target of a scheduled EventBridge rule as a producer of occurrences.

Its records name its rule and its id (``rule_arn``, ``rule_name``, ``target_id``) and no
schedule; the targets of one rule share their occurrences' event ids, made of the rule's
ARN and incarnation, since every target receives the same event, and tell their attempts
apart by the target's id; it fires strictly after it was activated (at that instant the
rule, or the target, was not there yet to fire, and rate() counts its first period from
it); its failed attempts climb EventBridge's ladder (``retries.eventbridge_next_attempt``);
an input that cannot be built fails each attempt; its dead letter is EventBridge's
(``rule_letters``). See docs/eventbridge-rules.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_schedemu.delivery.backends import DeadLetterRequest, Outcome
from pytest_schedemu.dispatch.producers.base import Producer
from pytest_schedemu.dispatch.retries import eventbridge_next_attempt
from pytest_schedemu.dispatch.rule_letters import rule_dead_letter
from pytest_schedemu.expressions import parse_expression, timeline
from pytest_schedemu.model.rules import Rule, RuleTarget, RuleTargetSchedule
from pytest_schedemu.records import Attempt
from pytest_schedemu.records.types import RULE
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.targets.permissions import Delivering, rule_delivering
from pytest_schedemu.targets.rule_plan import RuleTargetPlan, plan_rule_target

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.occurrences import Occurrence


class RuleTargetProducer(Producer):
    """One definition of the target ``target`` of ``rule``: ``definition`` is how the
    planner plays it (``rule_target_schedule``)."""

    __slots__ = ("broken", "event_key", "execution_tag", "identity", "planned")

    retry = staticmethod(eventbridge_next_attempt)

    def __init__(
        self,
        definition: RuleTargetSchedule,
        rule: Rule,
        target: RuleTarget,
        *,
        queue_url_template: str,
    ) -> None:
        self.planned: RuleTargetPlan = plan_rule_target(
            definition.target,
            rule_arn=rule.arn,
            rule_name=rule.name,
            target_id=target.id,
            input_path=target.input_path,
            transformer=target.input_transformer,
            queue_url_template=queue_url_template,
        )
        broken = self.planned.broken
        self.identity = {
            "source": RULE,
            "schedule_arn": None,
            "rule_arn": rule.arn,
            "rule_name": rule.name,
            "target_id": target.id,
        }
        self.event_key = (rule.arn, rule.incarnation)
        self.execution_tag = target.id
        self.broken = None if broken is None else Outcome.failure(*broken, False)
        super().__init__(
            schedule=definition,
            timeline=timeline(
                parse_expression(definition.schedule_expression),
                timezone="UTC",
                created_at=rule.activated_at,
            ),
            target=self.planned,
        )

    @property
    def delivering(self) -> Delivering:
        return rule_delivering(
            self.planned.rule_arn, self.schedule.account_id, self.schedule.target
        )

    def dead_letter(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        condition: str,
        queue_arn: str,
        settings: Settings,
    ) -> DeadLetterRequest:
        return rule_dead_letter(
            occurrence.nominal,
            occurrence.event_id,
            self.planned,
            attempt,
            condition,
            queue_arn,
            settings.sqs_queue_url_template,
        )
