"""EventBridge rules and their targets, as stored: the second producer of occurrences.

An EventBridge rule (``events:PutRule``) with a ``ScheduleExpression`` fires on the clock
like a schedule, and each of its targets (``events:PutTargets``, at most five) receives an
invocation of its own. A rule with only an ``EventPattern`` is stored and answered, and
never fires on the clock. Records use snake_case, except the raw request blocks echoed
back verbatim (a target as it was sent, in AWS spelling).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.resources import (
    FlexibleTimeWindow,
    RetryPolicy,
    Schedule,
    Target,
    dead_letter_arn,
)
from pytest_schedemu.model.slots import slotted

DEFAULT_EVENT_BUS = "default"

#: The rule states that fire: a rule with ``ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS``
#: is enabled too.
ENABLED_STATES = frozenset({"ENABLED", "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS"})


#: A target's parameter blocks (``PutTargets``), by their AWS names.
TARGET_PARAMETER_BLOCKS: tuple[str, ...] = (
    "AppSyncParameters",
    "BatchParameters",
    "EcsParameters",
    "HttpParameters",
    "KinesisParameters",
    "RedshiftDataParameters",
    "RunCommandParameters",
    "SageMakerPipelineParameters",
    "SqsParameters",
)

#: The placeholders an ``InputTemplate`` may use without naming them in its
#: ``InputPathsMap`` (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html).
PREDEFINED_PLACEHOLDERS = frozenset(
    {
        "aws.events.rule-arn",
        "aws.events.rule-name",
        "aws.events.event.ingestion-time",
        "aws.events.event",
        "aws.events.event.json",
    }
)
#: A placeholder in an ``InputTemplate``: ``<name>``, the name as an ``InputPathsMap`` key
#: (letters, digits, ``_`` and ``-``) or a predefined one (dots too). Other text between
#: angle brackets (``a < b > c``) is the template's own.
TEMPLATE_PLACEHOLDER = re.compile(r"<([A-Za-z0-9_.\-]+)>")

_RULE_ARN = re.compile(
    r"arn:(?P<partition>aws[\w-]*):events:(?P<region>[^:]+):(?P<account>[0-9]{12}):"
    r"rule/(?:(?P<bus>.+)/)?(?P<name>[^/]+)"
)
_EVENT_BUS_ARN = re.compile(
    r"arn:(?P<partition>aws[\w-]*):events:(?P<region>[^:]+):(?P<account>[0-9]{12}):"
    r"event-bus/(?P<name>.+)"
)


@dataclass(frozen=True)
class EventsArn:
    """A rule's or an event bus's ARN, read: ``name`` is the rule's or the bus's."""

    partition: str
    region: str
    account: str
    #: ``rule`` or ``event-bus``.
    kind: str
    name: str
    #: The rule's event bus; the bus's own name for an event bus.
    event_bus: str

    @classmethod
    def parse(cls, arn: str) -> EventsArn | None:
        """The ARN of a rule or of an event bus, read; None for anything else."""
        found = _RULE_ARN.fullmatch(arn)
        if found is not None:
            bus = found["bus"] or DEFAULT_EVENT_BUS
            parts = found["partition"], found["region"], found["account"]
            return cls(*parts, "rule", found["name"], bus)
        found = _EVENT_BUS_ARN.fullmatch(arn)
        if found is not None:
            parts = found["partition"], found["region"], found["account"]
            return cls(*parts, "event-bus", found["name"], found["name"])
        return None


def rule_arn(region: str, account: str, name: str, event_bus: str = DEFAULT_EVENT_BUS) -> str:
    """A rule's ARN: ``rule/<name>`` on the default bus, ``rule/<bus>/<name>`` elsewhere."""
    partition = partition_for_region(region)
    path = name if event_bus == DEFAULT_EVENT_BUS else f"{event_bus}/{name}"
    return f"arn:{partition}:events:{region}:{account}:rule/{path}"


@dataclass(frozen=True)
class RuleTarget:
    """One target of a rule, as stored.

    ``raw`` is the target exactly as PutTargets sent it (AWS member names): ListTargetsByRule
    echoes it. The other fields are what firing reads.
    """

    id: str
    arn: str
    raw: Mapping[str, Any]
    #: The target's own incarnation number, from the counter schedules and rules share,
    #: set by the store when the id is first put on the rule (a PutTargets that replaces
    #: the target keeps it): the dispatcher's plan of the target, its occurrences and their
    #: ids are keyed by it, as a schedule's are by the schedule's incarnation.
    incarnation: int = 0
    role_arn: str | None = None
    input: str | None = None
    input_path: str | None = None
    #: ``{"InputPathsMap": {...}, "InputTemplate": "..."}`` as sent, or None.
    input_transformer: Mapping[str, Any] | None = None
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    dead_letter_config: Mapping[str, Any] | None = None
    #: The target's parameter blocks as sent (``SqsParameters``, ``KinesisParameters``,
    #: ``EcsParameters``, ``HttpParameters``…), by their AWS names.
    parameters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def dead_letter_arn(self) -> str | None:
        return dead_letter_arn(self.dead_letter_config)


@dataclass(frozen=True)
class Rule:
    """One stored rule (one incarnation: deleting it and putting it again makes another)."""

    account_id: str
    region: str
    name: str
    creation_date: datetime
    #: When the rule's ``rate()`` count starts: its creation, or the latest PutRule that
    #: changed its expression or EnableRule that re-enabled it.
    activated_at: datetime
    incarnation: int
    event_bus_name: str = DEFAULT_EVENT_BUS
    schedule_expression: str | None = None
    event_pattern: str | None = None
    state: str = "ENABLED"
    description: str | None = None
    role_arn: str | None = None
    managed_by: str | None = None
    created_by: str | None = None
    targets: tuple[RuleTarget, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()

    @property
    def arn(self) -> str:
        return rule_arn(self.region, self.account_id, self.name, self.event_bus_name)

    @property
    def enabled(self) -> bool:
        return self.state in ENABLED_STATES

    @property
    def fires(self) -> bool:
        """Whether the clock fires it: enabled, with a ScheduleExpression."""
        return self.enabled and self.schedule_expression is not None

    def target(self, target_id: str) -> RuleTarget | None:
        for target in self.targets:
            if target.id == target_id:
                return target
        return None


def rule_target_key(rule_arn: str, target_id: str) -> str:
    """The key of one rule target in the dispatcher: ``<rule ARN>#<id>``.

    Each target of a rule is planned, retried and drawn on its own (one lane each), under
    this key; its records name no schedule (``schedule_arn`` None) but ``rule_arn``,
    ``rule_name`` and ``target_id``, whose key this is again (``MadeBy.producer_key``).
    """
    return f"{rule_arn}#{target_id}"


@lru_cache(maxsize=4096)
def parse_rule_arn(text: str) -> EventsArn | None:
    """The parts of a rule's ARN (``EventsArn.parse``, cached: a filter reads the same few
    over and over); None for any other text, an event bus's included."""
    parts = EventsArn.parse(text)
    return parts if parts is not None and parts.kind == "rule" else None


class RuleTargetKey(NamedTuple):
    """The parts of a rule target's key (``rule_target_key``)."""

    rule_arn: str
    rule_name: str
    target_id: str


@lru_cache(maxsize=4096)
def parse_rule_target_key(key: str) -> RuleTargetKey | None:
    """The rule ARN, rule name and target id of a rule target's key; None for any other
    text (a schedule's ARN never holds ``#``, so the test is cheap for the common case)."""
    rule, hash_mark, target_id = key.rpartition("#")
    if not hash_mark:
        return None
    parts = parse_rule_arn(rule)
    if parts is None or not target_id:
        return None
    return RuleTargetKey(rule, parts.name, target_id)


def rule_target_label(key: str) -> str | None:
    """How a rule target is named to a person, ``rule <name> → <target id>``; None for a
    key that is not a rule target's."""
    parts = parse_rule_target_key(key)
    return None if parts is None else f"rule {parts.rule_name} → {parts.target_id}"


@slotted
@dataclass(frozen=True)
class RuleTargetSchedule(Schedule):
    """One target of a rule as the clock plays it: the schedule the dispatcher plans, the
    read side remembers and a timeline lane draws for it.

    A rule target is one more producer of occurrences (``dispatch.producers``), whose
    definition the planner plays as it plays a schedule's: a UTC schedule of the rule's
    expression, with no flexible window, no start or end and nothing after completion,
    aimed at the target. ``arn`` is the target's key; group and name are empty (the records
    of a rule name no schedule), and ``rule_arn``, ``rule_name`` and ``target_id`` say
    whose it is.
    """

    rule_arn: str = ""
    rule_name: str = ""
    target_id: str = ""

    @property
    def arn(self) -> str:
        return rule_target_key(self.rule_arn, self.target_id)

    @property
    def label(self) -> str:
        return f"rule {self.rule_name} → {self.target_id}"

    @property
    def eligible_from(self) -> int:
        """A rule target fires strictly after it was defined: at that instant the rule, or
        the target, was not there yet to fire (docs/eventbridge-rules.md §5.2)."""
        return floor_epoch(self.last_modification_date) + 1

    @property
    def of_rule(self) -> tuple[str, str] | None:
        return (self.rule_arn, self.rule_name)


def rule_target_schedule(
    rule: Rule, target: RuleTarget, changed_at: datetime
) -> RuleTargetSchedule:
    """The schedule ``target`` of ``rule`` keeps, as defined at ``changed_at`` (when the rule or
    the target last changed what it fires). ``rate()`` counts from the rule's activation,
    whenever the target joined it: a target added later keeps the rule's phase."""
    return RuleTargetSchedule(
        account_id=rule.account_id,
        region=rule.region,
        group_name="",
        name="",
        schedule_expression=rule.schedule_expression or "",
        flexible_time_window=FlexibleTimeWindow(),
        target=Target(
            arn=target.arn,
            role_arn=target.role_arn or "",
            input=target.input,
            retry_policy=target.retry_policy,
            dead_letter_config=target.dead_letter_config,
            parameters=target.parameters,
        ),
        creation_date=rule.activated_at,
        last_modification_date=changed_at,
        incarnation=target.incarnation,
        state="ENABLED" if rule.fires else "DISABLED",
        rule_arn=rule.arn,
        rule_name=rule.name,
        target_id=target.id,
    )
