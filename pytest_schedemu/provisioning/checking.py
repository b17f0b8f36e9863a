"""A loaded stack checked without moving the clock (``Stack.check()``, ``schedemu check
--stack``): for each schedule and rule target it made, the next fire times its expression
gives from an instant, and the verdict each attempt of it would meet.

The verdict is the one delivery asks (``targets.permissions``: the producer's facts, then
``attempt_verdict`` and ``dead_letter_verdict``), of the same knowledge and setting, so a
check and a delivery never disagree. The fire times are the expressions wing's timeline of
the definition the dispatcher plays: a schedule's own, a rule target's as
``rule_target_schedule`` makes it.
"""

from __future__ import annotations

from datetime import datetime

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.expressions import parse_expression, resolve_timezone, timeline
from pytest_schedemu.formats.times import floor_epoch, from_epoch
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.model.rules import Rule, rule_target_schedule
from pytest_schedemu.stacks.check import (
    FIRE_TIMES,
    RULE_TARGET,
    SCHEDULE,
    CheckedTarget,
    StackCheck,
)
from pytest_schedemu.stacks.loaded import Stack
from pytest_schedemu.targets.permissions import (
    Delivering,
    Knowledge,
    attempt_verdict,
    dead_letter_verdict,
    rule_delivering,
    scheduler_delivering,
)

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


def check_stack(stack: Stack, *, knowledge: Knowledge, mode: str, at: datetime) -> StackCheck:
    """``stack``'s check at ``at``, under what ``knowledge`` holds and the ``iam`` setting
    ``mode``."""
    origins = stack.origins()
    checked = []
    for schedule in stack.schedules:
        checked.append(
            _checked(
                SCHEDULE,
                origins[schedule.arn],
                schedule.label,
                schedule,
                scheduler_delivering(schedule),
                knowledge,
                mode,
                at,
            )
        )
    for rule in stack.rules:
        checked.extend(_rule_targets(rule, origins[rule.arn], knowledge, mode, at))
    return StackCheck(stack.name, at, tuple(checked))


def _rule_targets(
    rule: Rule, logical_id: str, knowledge: Knowledge, mode: str, at: datetime
) -> list[CheckedTarget]:
    checked = []
    for target in rule.targets:
        definition = rule_target_schedule(rule, target, rule.activated_at)
        delivering = rule_delivering(rule.arn, rule.account_id, definition.target)
        checked.append(
            _checked(
                RULE_TARGET,
                logical_id,
                definition.label.removeprefix("rule "),
                definition,
                delivering,
                knowledge,
                mode,
                at,
                # A rule with a pattern and no expression delivers what it matches, never
                # on the clock.
                None if rule.schedule_expression else "fires on matching events only",
            )
        )
    return checked


def _checked(
    kind: str,
    logical_id: str,
    name: str,
    definition: Schedule,
    delivering: Delivering,
    knowledge: Knowledge,
    mode: str,
    at: datetime,
    unscheduled: str | None = None,
) -> CheckedTarget:
    refusal = attempt_verdict(delivering, knowledge, mode)
    dead_letter = dead_letter_verdict(delivering, knowledge, mode)
    fire_times: tuple[datetime, ...] = ()
    why_none = unscheduled
    if why_none is None:
        if definition.enabled:
            fire_times = _next_fire_times(definition, at)
            why_none = None if fire_times else "no more"
        else:
            why_none = "disabled"
    return CheckedTarget(
        kind=kind,
        logical_id=logical_id,
        name=name,
        target_arn=delivering.target_arn,
        timezone=definition.timezone,
        next_fire_times=fire_times,
        no_fire_times=why_none,
        error_code=None if refusal is None else refusal.code,
        error_message=None if refusal is None else refusal.message,
        dead_letter_refusal=None if dead_letter is None else dead_letter.message,
    )


def _next_fire_times(definition: Schedule, at: datetime) -> tuple[datetime, ...]:
    """Its next fire times from ``at`` on (one due at ``at`` is still to fire), on its
    zone's clock; never before the second it may first fire at."""
    line = timeline(
        parse_expression(definition.schedule_expression),
        timezone=definition.timezone,
        start_date=definition.start_date,
        end_date=definition.end_date,
        created_at=definition.creation_date,
    )
    zone = resolve_timezone(definition.timezone)
    after = max(floor_epoch(at), definition.eligible_from) - 1
    found: list[datetime] = []
    while len(found) < FIRE_TIMES:
        nominal = line.next_after_epoch(after)
        if nominal is None:
            break
        found.append(from_epoch(nominal).astimezone(zone))
        after = nominal
    return tuple(found)
