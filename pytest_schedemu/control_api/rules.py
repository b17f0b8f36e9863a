"""The control API's view of the stored EventBridge rules, across every account and region,
in pages, each with its targets.

``GET rules?account_id=&region=&event_bus=&prefix=&state=&schedule=&limit=&next_token=``
answers ``{"rules": [...], "next_token": ..., "total": <matches>}``, ordered by account,
region, event bus and name, as the schedules' list is. ``state`` is a rule state
(``ENABLED``, ``DISABLED``, ``ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS``);
``schedule=true`` keeps the rules with a ``ScheduleExpression``, ``false`` those without
(which never fire on the clock). Each rule says whether the clock fires it (``fires``),
its next occurrence (``next_occurrence``, the earliest of its targets'; null when the clock
will not fire it), and the stack and logical id of the resource that defined it (``stack``,
``logical_id``; null for a rule the API made). Each target says its own next occurrence and
its newest occurrence that has a history (``last_execution``: ``scheduled_time``,
``status``, ``fired``, ``attempt_count``; null before its first).

``POST rules/{name}/fire`` (``app.py``) fires a rule by hand.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Protocol

from pytest_schedemu.control_api.records import Handler, limit_of
from pytest_schedemu.control_api.schedules import page_after
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.rules import Rule, RuleTarget, rule_target_key
from pytest_schedemu.protocol.paging import filters_fingerprint
from pytest_schedemu.records import Execution

_STATES = ("ENABLED", "DISABLED", "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS")
_FILTERS = ("account_id", "region", "event_bus", "prefix", "state", "schedule")


class RuleRecords(Protocol):
    """What the list reads of the records besides the rules: where each came from, and
    each target's next and newest occurrence, by its key (``rule_target_key``)."""

    def origin_of(self, schedule_arn: str) -> tuple[str, str] | None: ...

    def next_occurrence_of(self, schedule_arn: str) -> datetime | None: ...

    def last_execution(self, key: str) -> Execution | None: ...


def execution_json(execution: Execution | None) -> dict[str, Any] | None:
    """An occurrence as a target's row shows it: when, how it stands, fired or not."""
    if execution is None:
        return None
    return {
        "scheduled_time": ztime(execution.scheduled_time),
        "status": execution.status,
        "fired": execution.fired,
        "attempt_count": len(execution.attempts),
        "event_id": execution.event_id,
    }


def target_json(
    target: RuleTarget,
    next_occurrence: datetime | None = None,
    last_execution: Execution | None = None,
) -> dict[str, Any]:
    """A rule's target as the list shows it: what firing reads, the target as sent, and
    its next and newest occurrence."""
    return {
        "id": target.id,
        "arn": target.arn,
        "role_arn": target.role_arn,
        "input": target.input,
        "input_path": target.input_path,
        "input_transformer": target.input_transformer,
        "dead_letter_arn": target.dead_letter_arn,
        "maximum_retry_attempts": target.retry_policy.maximum_retry_attempts,
        "maximum_event_age_in_seconds": target.retry_policy.maximum_event_age_in_seconds,
        "parameters": dict(target.parameters),
        "raw": dict(target.raw),
        "next_occurrence": None if next_occurrence is None else ztime(next_occurrence),
        "last_execution": execution_json(last_execution),
    }


def rule_json(rule: Rule, records: RuleRecords) -> dict[str, Any]:
    """A rule as the list shows it, with its targets."""
    origin = records.origin_of(rule.arn)
    targets = []
    for target in rule.targets:
        key = rule_target_key(rule.arn, target.id)
        next_time = records.next_occurrence_of(key)
        targets.append((target, next_time, records.last_execution(key)))
    upcoming = [next_time for _, next_time, _ in targets if next_time is not None]
    return {
        "arn": rule.arn,
        "name": rule.name,
        "event_bus_name": rule.event_bus_name,
        "account_id": rule.account_id,
        "region": rule.region,
        "state": rule.state,
        "schedule_expression": rule.schedule_expression,
        "event_pattern": rule.event_pattern,
        "description": rule.description,
        "role_arn": rule.role_arn,
        "managed_by": rule.managed_by,
        "fires": rule.fires,
        "stack": None if origin is None else origin[0],
        "logical_id": None if origin is None else origin[1],
        "creation_date": ztime(rule.creation_date),
        "activated_at": ztime(rule.activated_at),
        "tags": {key: value for key, value in rule.tags},
        "next_occurrence": ztime(min(upcoming)) if upcoming else None,
        "targets": [target_json(*target) for target in targets],
    }


def _scheduled(rule: Rule) -> bool:
    return rule.schedule_expression is not None


def _key(rule: Rule) -> tuple[str, str, str, str]:
    return (rule.account_id, rule.region, rule.event_bus_name, rule.name)


class RuleRoutes:
    def __init__(self, rules: Callable[[], list[Rule]], records: RuleRecords) -> None:
        self._rules = rules
        self._records = records

    def routes(self) -> dict[tuple[str, str], Handler]:
        return {("GET", "rules"): self.rules}

    def rules(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        filters = {name: query.get(name) or None for name in _FILTERS}
        state, scheduled = filters["state"], filters["schedule"]
        if state is not None and state not in _STATES:
            raise ValidationException(f"Invalid state {state!r}: expected one of {list(_STATES)}")
        if scheduled not in (None, "true", "false"):
            raise ValidationException(f"Invalid schedule {scheduled!r}: expected true or false")
        account, region, bus, prefix = (
            filters[name] for name in ("account_id", "region", "event_bus", "prefix")
        )
        matching = [
            rule
            for rule in sorted(self._rules(), key=_key)
            if (account is None or rule.account_id == account)
            and (region is None or rule.region == region)
            and (bus is None or rule.event_bus_name == bus)
            and (prefix is None or rule.name.startswith(prefix))
            and (state is None or rule.state == state)
            and (
                scheduled is None or (rule.schedule_expression is not None) == (scheduled == "true")
            )
        ]
        keys = [_key(rule) for rule in matching]
        fingerprint = filters_fingerprint({"list": "rules", **filters})
        first, end, following = page_after(
            keys, 4, query.get("next_token"), fingerprint, limit_of(query)
        )
        page = [rule_json(rule, self._records) for rule in matching[first:end]]
        return {"rules": page, "next_token": following, "total": len(matching)}
