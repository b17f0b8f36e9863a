"""Assertions about deliveries, dead letters and drops, whose failures say what happened
instead.

Each assertion is given the ``RecordFilter`` of the records it is about. Every assertion
can fail (``opportunity``): an ARN, schedule, group or rule that nothing had, a payload key
or attribute name that nothing could have, and a negative assertion made before anything in
its scope could have fired are refused. A failure is short (``failures``).
Without ``count``, a positive assertion means "at least one".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from pytest_schedemu.errors import DeliveryAssertionError, raised_for_the_caller
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.failures import (
    configure,
    counted,
    describe_attempts,
    describe_drops,
    described,
    drop_line,
    elided,
    failure,
    letter_line,
    with_runs,
)
from pytest_schedemu.records.filters import RecordFilter
from pytest_schedemu.records.opportunity import (
    require_attribute_names,
    require_chance_passed,
    require_payload_keys,
    require_queue,
    require_some_queue,
    require_target,
)
from pytest_schedemu.records.reader import Records
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
) -> bool:
    """Whether ``found`` is what was expected: at least one, or exactly ``count``. A
    ``count`` of 0 is a negative assertion, which needs the clock to have passed an instant
    at which something in scope would have fired (``in_scope``; ``none_verdict`` is what it
    expected, ``happened`` what could not have happened)."""
    __tracebackhide__ = True
    if (not found) if count is None else len(found) != count:
        return False
    if count == 0:
        require_chance_passed(records, clock, none_verdict, happened, in_scope)
    return True


def _wanted(count: int | None, noun: str) -> str:
    return f"at least one {noun}" if count is None else counted(count, noun)


# -- deliveries --------------------------------------------------------------------------------


def _deliveries(
    records: Records, which: RecordFilter, payload: Any, payload_contains: Any
) -> list[Attempt]:
    scope = records.attempts(which)
    where = f"the attempts at {which.target_arn}"
    require_payload_keys(payload_contains, [a.payload for a in scope], where)
    return [a for a in scope if a.succeeded and _payload_matches(a, payload, payload_contains)]


def assert_delivered(
    records: Records,
    clock: Clock,
    which: RecordFilter,
    count: int | None = None,
    payload: Any = None,
    payload_contains: Any = None,
) -> list[Attempt]:
    """Deliveries to ``which.target_arn`` from what ``which`` names happened: at least one,
    or exactly ``count``.

    ``payload`` is an exact match: a string compares with the delivered text, anything
    else with the parsed JSON payload. ``payload_contains`` is a dict that must be a
    recursive subset of the parsed payload. Returns the matching deliveries.
    """
    __tracebackhide__ = True
    target_arn = _required(which.target_arn)
    require_target(records, target_arn)
    matching = _deliveries(records, which, payload, payload_contains)
    what = described(which, payload=payload, payload_contains=payload_contains)
    if _as_expected(
        records,
        clock,
        count,
        matching,
        f"Expected no delivery to {target_arn}{what}",
        "delivered",
        which.keeps_definition,
    ):
        return matching
    # With no attempt anywhere, the counts already say so.
    shown = (
        elided(
            f"attempts at {target_arn}",
            records.attempts_at(target_arn),
            with_runs(records.invocations()),
        )
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
    which: RecordFilter,
    payload: Any = None,
    payload_contains: Any = None,
) -> None:
    """No delivery (matching the filters, if given) reached ``which.target_arn``, and the
    clock passed an instant at which a schedule aimed at it would have fired since its last
    change."""
    __tracebackhide__ = True
    target_arn = _required(which.target_arn)
    require_target(records, target_arn)
    matching = _deliveries(records, which, payload, payload_contains)
    what = described(which, payload=payload, payload_contains=payload_contains)
    verdict = f"Expected no delivery to {target_arn}{what}"
    if matching:
        raise failure(
            f"{verdict}, found {len(matching)}.",
            records,
            clock,
            target_arn,
            elided("the deliveries", matching, with_runs(records.invocations())),
        )
    require_chance_passed(records, clock, verdict, "delivered", which.keeps_definition)


# -- dead letters ------------------------------------------------------------------------------


def _letters(
    records: Records,
    which: RecordFilter,
    attributes: Mapping[str, str] | None,
    payload_contains: Any,
) -> list[DeadLetter]:
    require_attribute_names(attributes)
    scope = records.dead_letters(which)
    where = "the dead letters" + ("" if which.queue_arn is None else f" in {which.queue_arn}")
    require_payload_keys(payload_contains, [d.payload for d in scope], where)
    return [
        d
        for d in scope
        if all(d.attributes.get(k) == v for k, v in (attributes or {}).items())
        and (payload_contains is None or contains(d.payload, payload_contains))
    ]


def _could_dead_letter(which: RecordFilter) -> Callable[[Schedule], bool]:
    """Whether a schedule in scope had a dead-letter queue (``which.queue_arn``, if given)."""
    return lambda s: s.target.dead_letter_arn is not None and which.keeps_definition(s)


def assert_dead_lettered(
    records: Records,
    clock: Clock,
    which: RecordFilter,
    count: int | None = None,
    attributes: Mapping[str, str] | None = None,
    payload_contains: Any = None,
) -> list[DeadLetter]:
    """Dead letters reached ``which.queue_arn`` from what ``which`` names: at least one, or
    exactly ``count``.

    ``attributes`` (a subset of the message attributes) and ``payload_contains`` (a
    recursive subset of the parsed body) narrow the letters. Returns the matching ones.
    """
    __tracebackhide__ = True
    queue_arn = _required(which.queue_arn)
    require_queue(records, queue_arn)
    letters = _letters(records, which, attributes, payload_contains)
    what = described(which, payload_contains=payload_contains, attributes=attributes)
    if _as_expected(
        records,
        clock,
        count,
        letters,
        f"Expected no dead letter in {queue_arn}{what}",
        "dead-lettered",
        _could_dead_letter(which),
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
    which: RecordFilter,
    attributes: Mapping[str, str] | None = None,
    payload_contains: Any = None,
) -> None:
    """No dead letter (matching the filters) reached ``which.queue_arn``, or any queue if
    None; some schedule had such a queue, and the clock passed an instant at which one of
    them would have fired since its last change."""
    __tracebackhide__ = True
    queue_arn = which.queue_arn
    if queue_arn is not None:
        require_queue(records, queue_arn)
    letters = _letters(records, which, attributes, payload_contains)
    where = "any dead-letter queue" if queue_arn is None else queue_arn
    what = described(which, payload_contains=payload_contains, attributes=attributes)
    verdict = f"Expected no dead letter in {where}{what}"
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
    require_chance_passed(records, clock, verdict, "dead-lettered", _could_dead_letter(which))


# -- drops -------------------------------------------------------------------------------------


def assert_dropped(
    records: Records, clock: Clock, which: RecordFilter, count: int | None = None
) -> list[Activity]:
    """Occurrences were lost (``Records.drops``) from what ``which`` names: at least one,
    or exactly ``count``. Returns them, and from then on they count as asserted: the
    pytest plugin reports only the others at teardown."""
    __tracebackhide__ = True
    drops = records.drops(which)
    what = described(which)
    if _as_expected(
        records, clock, count, drops, f"Expected no drop{what}", "dropped", which.keeps_definition
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


def _required(arn: str | None) -> str:
    if arn is None:
        raise TypeError("this assertion needs the ARN it is about")
    return arn
