"""The control API's view of the stored EventBridge rules, across every account and region,
in pages, each with its targets.

``GET rules?account_id=&region=&event_bus=&prefix=&state=&schedule=&limit=&next_token=``
answers ``{"rules": [...], "next_token": ..., "total": <matches>}``, ordered by account,
region, event bus and name, as the schedules' list is. ``state`` is a rule state
(``ENABLED``, ``DISABLED``, ``ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS``);
``schedule=true`` keeps the rules with a ``ScheduleExpression``, ``false`` those without
(which never fire on the clock). Each rule says whether the clock fires it (``fires``),
and the stack and logical id of the resource that defined it (``stack``, ``logical_id``;
null for a rule the API made).
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_schedemu.control_api.records import Handler, limit_of
from pytest_schedemu.control_api.schedules import page_after
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.rules import Rule, RuleTarget
from pytest_schedemu.protocol.paging import filters_fingerprint

_STATES = ("ENABLED", "DISABLED", "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS")
_FILTERS = ("account_id", "region", "event_bus", "prefix", "state", "schedule")


def target_json(target: RuleTarget) -> dict[str, Any]:
    """A rule's target as the list shows it: what firing reads, and the target as sent."""
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
    }


def rule_json(rule: Rule, origin: tuple[str, str] | None = None) -> dict[str, Any]:
    """A rule as the list shows it; ``origin`` the stack and logical id of the resource
    that defined it."""
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
        "targets": [target_json(target) for target in rule.targets],
    }


def _scheduled(rule: Rule) -> bool:
    return rule.schedule_expression is not None


def _key(rule: Rule) -> tuple[str, str, str, str]:
    return (rule.account_id, rule.region, rule.event_bus_name, rule.name)


class RuleRoutes:
    def __init__(
        self,
        rules: Callable[[], list[Rule]],
        origin: Callable[[str], tuple[str, str] | None] = lambda arn: None,
    ) -> None:
        self._rules = rules
        self._origin = origin

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
        page = [rule_json(rule, self._origin(rule.arn)) for rule in matching[first:end]]
        return {"rules": page, "next_token": following, "total": len(matching)}
