"""Which records a query names: those of schedules (``schedule=``, ``group=``), or those of
the targets of scheduled EventBridge rules (``rule=``).

``rule=`` takes a rule's name or its ARN and matches the records of all its targets (each
target's records name the rule in ``rule_arn``, ``rule_name`` and ``target_id``). A rule is
known once one of its targets was planned: a name or ARN no scheduled rule with a target
ever had is a LookupError naming those there were, as for schedules. ``rule=`` with
``schedule=`` or ``group=`` is a ValueError: a rule's records name no schedule and no group,
so together they could match nothing. A ``schedule=`` or ``group=`` filter never matches a
rule's records.
"""

from __future__ import annotations

from collections.abc import Collection

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.arns import ScheduleFilter
from pytest_schedemu.model.rules import parse_rule_arn, parse_rule_target_key
from pytest_schedemu.records.history import History
from pytest_schedemu.records.listing import closest_first, listing

# A bad name or filter is reported at the caller's line.
__tracebackhide__ = raised_for_the_caller


def rule_arns(history: History, rule: str) -> list[str]:
    """The ARNs of the rules ``rule`` (a name or an ARN) names, strictly: LookupError when
    no scheduled rule with a target ever had it (unless the registry forgot some)."""
    known, complete = history.known_rules()
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


class Scope:
    """The records a query's ``schedule``, ``group`` and ``rule`` filters name."""

    __slots__ = ("named", "rules")

    def __init__(
        self,
        schedule: str | None = None,
        group: str | None = None,
        rules: Collection[str] | None = None,
    ) -> None:
        self.named = ScheduleFilter(schedule, group)
        #: The ARNs of the rules named, or None when no rule is.
        self.rules = None if rules is None else frozenset(rules)

    def matches(self, arn: str, group: str, name: str, rule_arn: str | None) -> bool:
        """Whether a record of ``arn`` (of ``group``, named ``name``, of the rule
        ``rule_arn`` if a rule target's) is named."""
        if self.rules is not None:
            return rule_arn in self.rules
        return self.named.matches(arn, group, name)

    def matches_arn(self, arn: str) -> bool:
        """Whether a record that names ``arn`` (a schedule's, a group's or a rule target's
        key) is named."""
        if self.rules is not None:
            parts = parse_rule_target_key(arn)
            return parts is not None and parts.rule_arn in self.rules
        return self.named.matches_arn(arn)


def check_rule_filter(rule: str | None, schedule: str | None, group: str | None) -> None:
    """ValueError for ``rule=`` together with ``schedule=`` or ``group=``."""
    if rule is not None and (schedule is not None or group is not None):
        given = "schedule=" if schedule is not None else "group="
        raise ValueError(
            f"rule={rule!r} and {given} together can match nothing: a rule's records name "
            "no schedule and no group. Pass one or the other."
        )
