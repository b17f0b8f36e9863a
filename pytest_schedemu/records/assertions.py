"""Assertions about deliveries, dead letters and drops, whose failures say what happened
instead.

Every assertion can fail (``opportunity``): an ARN, schedule or group that nothing had, a
payload key or attribute name that nothing could have, and a negative assertion made
before anything could have happened are refused. A failure is short (``failures``).
Without ``count``, a positive assertion means "at least one".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from pytest_schedemu.errors import DeliveryAssertionError, raised_for_the_caller
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.failures import (
    attempt_line,
    configure,
    counted,
    describe_attempts,
    describe_drops,
    drop_line,
    elided,
    failure,
    filters,
    letter_line,
)
from pytest_schedemu.records.opportunity import (
    require_attribute_names,
    require_payload_keys,
    require_queue,
    require_some_queue,
    require_target,
    require_time_passed,
)
from pytest_schedemu.records.reader import Records, target_matches
from pytest_schedemu.records.scope import Scope
from pytest_schedemu.records.types import Activity, Attempt, DeadLetter
from pytest_schedemu.timekeeping.clock import Clock

__all__ = [
    "DeliveryAssertionError",
    "assert_dead_lettered",
    "assert_delivered",
    "assert_dropped",
    "assert_not_dead_lettered",
    "assert_not_delivered",
    "configure",
    "describe_attempts",
    "describe_drops",
]

# A failed assertion, or a filter refused, is reported at the caller's line.
__tracebackhide__ = raised_for_the_caller


def contains(actual: Any, expected: Any) -> bool:
    """Whether ``expected`` is a recursive subset of ``actual``: every key of a dict is
    there with a matching value; any other value is equal."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items()
        )
    return bool(actual == expected)


def _payload_matches(attempt: Attempt, payload: Any, payload_contains: Any) -> bool:
    if payload is not None:
        if isinstance(payload, str):
            if attempt.input != payload:
                return False
        elif attempt.payload != payload:
            return False
    return payload_contains is None or contains(attempt.payload, payload_contains)


def _as_expected(
    records: Records,
    clock: Clock,
    count: int | None,
    found: list[Any],
    none_verdict: str,
    happened: str,
    in_scope: Callable[[Schedule], bool],
    named: Scope,
) -> bool:
    """Whether ``found`` is what was expected: at least one, or exactly ``count``. A
    ``count`` of 0 is a negative assertion, which needs the clock to have moved since the
    last change in scope (``none_verdict`` is what it expected, ``happened`` what could
    not have happened)."""
    __tracebackhide__ = True
    if (not found) if count is None else len(found) != count:
        return False
    if count == 0:
        require_time_passed(records, clock, none_verdict, happened, in_scope, named)
    return True


def _wanted(count: int | None, noun: str) -> str:
    return f"at least one {noun}" if count is None else counted(count, noun)


# -- deliveries --------------------------------------------------------------------------------


def _deliveries(
    records: Records,
    target_arn: str,
    payload: Any,
    payload_contains: Any,
    schedule: str | None,
    group: str | None,
    rule: str | None = None,
) -> list[Attempt]:
    scope = records.attempts(schedule, group, target_arn, rule)
    where = f"the attempts at {target_arn}"
    require_payload_keys(payload_contains, [a.payload for a in scope], where)
    return [a for a in scope if a.succeeded and _payload_matches(a, payload, payload_contains)]


def _aimed_at(target_arn: str) -> Callable[[Schedule], bool]:
    return lambda schedule: target_matches(schedule.target.arn, target_arn)


def assert_delivered(
    records: Records,
    clock: Clock,
    target_arn: str,
    count: int | None = None,
    payload: Any = None,
    *,
    schedule: str | None = None,
    group: str | None = None,
    payload_contains: Any = None,
    rule: str | None = None,
) -> list[Attempt]:
    """Deliveries to ``target_arn`` happened: at least one, or exactly ``count``.

    ``payload`` is an exact match: a string compares with the delivered text, anything
    else with the parsed JSON payload. ``payload_contains`` is a dict that must be a
    recursive subset of the parsed payload. ``schedule`` (a name or ARN) and ``group``
    filter by where the delivery came from. Returns the matching deliveries.
    """
    __tracebackhide__ = True
    require_target(records, target_arn)
    matching = _deliveries(records, target_arn, payload, payload_contains, schedule, group, rule)
    what = filters(payload, payload_contains, schedule, group, rule=rule)
    if _as_expected(
        records,
        clock,
        count,
        matching,
        f"Expected no delivery to {target_arn}{what}",
        "delivered",
        _aimed_at(target_arn),
        records.scope(schedule, group, rule),
    ):
        return matching
    # With no attempt anywhere, the counts already say so.
    shown = (
        elided(f"attempts at {target_arn}", records.attempts(target_arn=target_arn), attempt_line)
        if records.attempts()
        else []
    )
    raise failure(
        f"Expected {_wanted(count, 'delivery')} to {target_arn}{what}, found {len(matching)}.",
        records,
        clock,
        target_arn,
        shown,
    )


def assert_not_delivered(
    records: Records,
    clock: Clock,
    target_arn: str,
    payload: Any = None,
    *,
    schedule: str | None = None,
    group: str | None = None,
    payload_contains: Any = None,
    rule: str | None = None,
) -> None:
    """No delivery (matching the filters, if given) reached ``target_arn``, and the clock
    moved since the last change to a schedule aimed at it."""
    __tracebackhide__ = True
    require_target(records, target_arn)
    matching = _deliveries(records, target_arn, payload, payload_contains, schedule, group, rule)
    what = filters(payload, payload_contains, schedule, group, rule=rule)
    verdict = f"Expected no delivery to {target_arn}{what}"
    if matching:
        raise failure(
            f"{verdict}, found {len(matching)}.",
            records,
            clock,
            target_arn,
            elided("the deliveries", matching, attempt_line),
        )
    require_time_passed(
        records,
        clock,
        verdict,
        "delivered",
        _aimed_at(target_arn),
        records.scope(schedule, group, rule),
    )


# -- dead letters ------------------------------------------------------------------------------


def _letters(
    records: Records,
    queue_arn: str | None,
    schedule: str | None,
    group: str | None,
    attributes: Mapping[str, str] | None,
    payload_contains: Any,
    rule: str | None = None,
) -> list[DeadLetter]:
    require_attribute_names(attributes)
    scope = records.dead_letters(queue_arn, schedule, group, rule)
    where = "the dead letters" + ("" if queue_arn is None else f" in {queue_arn}")
    require_payload_keys(payload_contains, [d.payload for d in scope], where)
    return [
        d
        for d in scope
        if all(d.attributes.get(k) == v for k, v in (attributes or {}).items())
        and (payload_contains is None or contains(d.payload, payload_contains))
    ]


def _with_queue(queue_arn: str | None) -> Callable[[Schedule], bool]:
    def in_scope(schedule: Schedule) -> bool:
        queue = schedule.target.dead_letter_arn
        return queue is not None and queue_arn in (None, queue)

    return in_scope


def assert_dead_lettered(
    records: Records,
    clock: Clock,
    queue_arn: str,
    count: int | None = None,
    schedule: str | None = None,
    attributes: Mapping[str, str] | None = None,
    *,
    group: str | None = None,
    payload_contains: Any = None,
    rule: str | None = None,
) -> list[DeadLetter]:
    """Dead letters reached ``queue_arn``: at least one, or exactly ``count``.

    ``schedule`` (a name or ARN), ``group``, ``attributes`` (a subset of the message
    attributes) and ``payload_contains`` (a recursive subset of the parsed body) filter
    the letters. Returns the matching ones.
    """
    __tracebackhide__ = True
    require_queue(records, queue_arn)
    letters = _letters(records, queue_arn, schedule, group, attributes, payload_contains, rule)
    what = filters(None, payload_contains, schedule, group, attributes, rule)
    if _as_expected(
        records,
        clock,
        count,
        letters,
        f"Expected no dead letter in {queue_arn}{what}",
        "dead-lettered",
        _with_queue(queue_arn),
        records.scope(schedule, group, rule),
    ):
        return letters
    raise failure(
        f"Expected {_wanted(count, 'dead letter')} in {queue_arn}{what}, found {len(letters)}.",
        records,
        clock,
        queue_arn,
        elided("dead letters sent anywhere", records.dead_letters(), letter_line),
    )


def assert_not_dead_lettered(
    records: Records,
    clock: Clock,
    queue_arn: str | None = None,
    *,
    schedule: str | None = None,
    group: str | None = None,
    attributes: Mapping[str, str] | None = None,
    payload_contains: Any = None,
    rule: str | None = None,
) -> None:
    """No dead letter (matching the filters) reached ``queue_arn``, or any queue if None;
    some schedule had such a queue, and the clock moved since the last change to one."""
    __tracebackhide__ = True
    if queue_arn is not None:
        require_queue(records, queue_arn)
    letters = _letters(records, queue_arn, schedule, group, attributes, payload_contains, rule)
    where = "any dead-letter queue" if queue_arn is None else queue_arn
    verdict = (
        f"Expected no dead letter in {where}"
        f"{filters(None, payload_contains, schedule, group, attributes, rule)}"
    )
    if letters:
        raise failure(
            f"{verdict}, found {len(letters)}.",
            records,
            clock,
            queue_arn,
            elided("the dead letters", letters, letter_line),
        )
    if queue_arn is None:
        require_some_queue(records, verdict)
    require_time_passed(
        records,
        clock,
        verdict,
        "dead-lettered",
        _with_queue(queue_arn),
        records.scope(schedule, group, rule),
    )


# -- drops -------------------------------------------------------------------------------------


def _any(schedule: Schedule) -> bool:
    return True


def assert_dropped(
    records: Records,
    clock: Clock,
    count: int | None = None,
    *,
    schedule: str | None = None,
    group: str | None = None,
    rule: str | None = None,
) -> list[Activity]:
    """Occurrences were lost (``Records.drops``): at least one, or exactly ``count``,
    from ``schedule`` (a name or ARN) and ``group`` if given. Returns them, and from then
    on they count as asserted: the pytest plugin reports only the others at teardown."""
    __tracebackhide__ = True
    drops = records.drops(schedule, group, rule)
    what = filters(schedule=schedule, group=group, rule=rule)
    named = records.scope(schedule, group, rule)
    if _as_expected(
        records, clock, count, drops, f"Expected no drop{what}", "dropped", _any, named
    ):
        records.note_asserted_drops(drops)
        return drops
    raise failure(
        f"Expected {_wanted(count, 'drop')}{what}, found {len(drops)}.",
        records,
        clock,
        None,
        elided("drops", records.drops(), drop_line),
    )
