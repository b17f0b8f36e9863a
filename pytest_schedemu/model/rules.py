"""EventBridge rules and their targets, as stored: the second producer of occurrences.

An EventBridge rule (``events:PutRule``) with a ``ScheduleExpression`` fires on the clock
like a schedule, and each of its targets (``events:PutTargets``, at most five) receives an
invocation of its own. A rule with only an ``EventPattern`` is stored and answered, and
never fires on the clock. Records use snake_case, except the raw request blocks echoed
back verbatim (a target as it was sent, in AWS spelling).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.resources import RetryPolicy

DEFAULT_EVENT_BUS = "default"

#: The rule states that fire: a rule with ``ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS``
#: is enabled too.
ENABLED_STATES = frozenset({"ENABLED", "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS"})


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
        if self.dead_letter_config is None:
            return None
        arn = self.dead_letter_config.get("Arn")
        return arn if isinstance(arn, str) else None


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
    """The key of one rule target in the dispatcher and the records: ``<rule ARN>#<id>``.

    Each target of a rule is planned, retried and drawn on its own (one lane each), so the
    records' ``schedule_arn`` of a rule's attempt holds this key; ``rule_arn``, ``rule_name``
    and ``target_id`` hold its parts.
    """
    return f"{rule_arn}#{target_id}"
