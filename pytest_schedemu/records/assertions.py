"""Assertions about deliveries and dead letters, whose failures say what happened instead.

A failure is short by default (about 25 lines): the verdict, the counts by target and
outcome, the schedules aimed at the target, then one line per attempt (or dead letter),
elided in the middle when there are many, with payloads cut to 80 characters. With
pytest's ``-vv`` payloads are shown whole and nothing is elided.

An assertion about an ARN that no schedule of the test ever aimed at fails at once, naming
the ARNs that were used (closest first): a typo must not make a test pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Callable, TypeVar

from pytest_schedemu.errors import DeliveryAssertionError
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.arns import ScheduleArn, ScheduleFilter, scheduler_arn
from pytest_schedemu.records import Attempt, DeadLetter, Records
from pytest_schedemu.records.reader import closest_first, listing, target_matches
from pytest_schedemu.timekeeping.clock import Clock

__all__ = [
    "DeliveryAssertionError",
    "assert_dead_lettered",
    "assert_delivered",
    "assert_not_dead_lettered",
    "assert_not_delivered",
    "configure",
    "describe_attempts",
]

T = TypeVar("T")

_PAYLOAD_WIDTH = 80
_HEAD = _TAIL = 6
_verbosity = 0


def configure(*, verbosity: int) -> None:
    """How much failures show: 2 or more (pytest's ``-vv``) shows everything."""
    global _verbosity
    _verbosity = verbosity


# -- matching --------------------------------------------------------------------------------


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


def _filters(
    payload: Any = None,
    payload_contains: Any = None,
    schedule: str | None = None,
    group: str | None = None,
    attributes: Mapping[str, str] | None = None,
) -> str:
    parts = [
        f"{name} {value!r}"
        for name, value in (
            ("with payload", payload),
            ("with a payload containing", payload_contains),
            ("from schedule", schedule),
            ("in group", group),
            ("with attributes", attributes),
        )
        if value is not None
    ]
    return (" " + " ".join(parts)) if parts else ""


# -- refusing ARNs that nothing used -------------------------------------------------------------


def _require_target(records: Records, target_arn: str) -> None:
    __tracebackhide__ = True
    targets, queues, complete = records.known_targets()
    if not complete or any(target_matches(t, target_arn) for t in targets):
        return
    if target_arn in queues:
        raise DeliveryAssertionError(
            f"{target_arn} is a dead-letter queue, never a schedule's target: dead letters "
            "are not deliveries. Use assert_dead_lettered or assert_not_dead_lettered."
        )
    raise DeliveryAssertionError(
        f"{target_arn} was never the target of any schedule in this test, so nothing can be "
        f"said of its deliveries. {_did_you_mean(target_arn, targets, 'Targets')}"
    )


def _require_queue(records: Records, queue_arn: str) -> None:
    __tracebackhide__ = True
    targets, queues, complete = records.known_targets()
    if not complete or queue_arn in queues:
        return
    if any(target_matches(t, queue_arn) for t in targets):
        raise DeliveryAssertionError(
            f"{queue_arn} is a target, never a schedule's dead-letter queue. Use "
            "assert_delivered or assert_not_delivered."
        )
    raise DeliveryAssertionError(
        f"{queue_arn} was never the dead-letter queue of any schedule in this test. "
        f"{_did_you_mean(queue_arn, queues, 'Dead-letter queues')}"
    )


def _did_you_mean(arn: str, used: list[str], title: str) -> str:
    if not used:
        return f"{title} used: none."
    ordered = closest_first(arn, used)
    return f"Did you mean {ordered[0]}? {title} used, closest first: {listing(ordered)}."


# -- describing what happened ----------------------------------------------------------------


def _cut(text: str | None) -> str:
    if text is None:
        return "(no payload)"
    if _verbosity >= 2 or len(text) <= _PAYLOAD_WIDTH:
        return text
    return text[: _PAYLOAD_WIDTH - 1] + "…"


def _attempt_line(attempt: Attempt) -> str:
    if attempt.succeeded:
        outcome = "delivered"
    else:
        kind = "retryable" if attempt.retryable else "permanent"
        outcome = f"FAILED {attempt.error_code} ({kind})"
    return (
        f"  {ztime(attempt.attempted_at)} {attempt.group_name}/{attempt.schedule_name} "
        f"#{attempt.attempt_number} {outcome} {_cut(attempt.input)}"
    )


def _letter_line(letter: DeadLetter) -> str:
    attributes = letter.attributes
    sent = ztime(letter.sent_at) if letter.sent_at else "?"
    parts = scheduler_arn(letter.schedule_arn)
    schedule = (
        f"{parts.group}/{parts.name}" if isinstance(parts, ScheduleArn) else letter.schedule_arn
    )
    return (
        f"  {sent} {schedule} scheduled {ztime(letter.scheduled_time)} "
        f"{attributes.get('ERROR_CODE')} after {attributes.get('RETRY_ATTEMPTS')} retries"
    )


def _elided(title: str, items: list[T], line: Callable[[T], str]) -> list[str]:
    if not items:
        return [f"{title}: none"]
    if _verbosity >= 2 or len(items) <= _HEAD + _TAIL + 1:
        return [f"{title} ({len(items)}):", *map(line, items)]
    hidden = len(items) - _HEAD - _TAIL
    return [
        f"{title} ({len(items)}):",
        *map(line, items[:_HEAD]),
        f"  … {hidden} more …",
        *map(line, items[-_TAIL:]),
    ]


def _counts(attempts: Iterable[Attempt]) -> list[str]:
    counted = Counter(
        (a.target_arn, "delivered" if a.succeeded else f"failed {a.error_code}") for a in attempts
    )
    if not counted:
        return ["attempts: none"]
    lines = [f"  {target}: {count} {outcome}" for (target, outcome), count in counted.items()]
    shown = lines if _verbosity >= 2 else lines[:4]
    more = [f"  … {len(lines) - len(shown)} more"] if len(shown) < len(lines) else []
    return ["attempts by target and outcome:", *shown, *more]


def _schedules_aimed_at(records: Records, target_arn: str | None) -> list[str]:
    lines = []
    for s in records.schedules():
        if target_arn is not None and not (
            target_matches(s.target.arn, target_arn) or s.target.dead_letter_arn == target_arn
        ):
            continue
        following = records.next_occurrence(s.arn)
        lines.append(
            f"  {s.group_name}/{s.name} {s.schedule_expression!r} {s.state}, next occurrence "
            + (ztime(following) if following else "none")
        )
    shown = lines if _verbosity >= 2 else lines[:3]
    more = [f"  … {len(lines) - len(shown)} more"] if len(shown) < len(lines) else []
    return ["schedules aimed at it:", *shown, *more] if lines else ["schedules aimed at it: none"]


def _failure(
    verdict: str, records: Records, clock: Clock, target_arn: str, shown: list[str]
) -> DeliveryAssertionError:
    return DeliveryAssertionError(
        "\n".join(
            [
                verdict,
                f"virtual now {ztime(clock.now())}",
                *_counts(records.attempts()),
                *_schedules_aimed_at(records, target_arn),
                *shown,
            ]
        )
    )


# -- the assertions --------------------------------------------------------------------------


def _deliveries(
    records: Records,
    target_arn: str,
    payload: Any,
    payload_contains: Any,
    schedule: str | None,
    group: str | None,
) -> list[Attempt]:
    return [
        a
        for a in records.deliveries(target_arn=target_arn, schedule=schedule, group=group)
        if _payload_matches(a, payload, payload_contains)
    ]


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
) -> list[Attempt]:
    """Deliveries to ``target_arn`` happened (exactly ``count`` of them, if given).

    ``payload`` is an exact match: a string compares with the delivered text, anything
    else with the parsed JSON payload. ``payload_contains`` is a dict that must be a
    recursive subset of the parsed payload. ``schedule`` (a name or ARN) and ``group``
    filter by where the delivery came from. Returns the matching deliveries.
    """
    __tracebackhide__ = True
    _require_target(records, target_arn)
    matching = _deliveries(records, target_arn, payload, payload_contains, schedule, group)
    if (count is None and matching) or (count is not None and len(matching) == count):
        return matching
    expected = "at least one delivery" if count is None else _count(count, "delivery")
    what = _filters(payload, payload_contains, schedule, group)
    raise _failure(
        f"Expected {expected} to {target_arn}{what}, found {len(matching)}.",
        records,
        clock,
        target_arn,
        _elided(
            f"attempts at {target_arn}", records.attempts(target_arn=target_arn), _attempt_line
        ),
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
) -> None:
    """No delivery (matching the filters, if given) reached ``target_arn``."""
    __tracebackhide__ = True
    _require_target(records, target_arn)
    matching = _deliveries(records, target_arn, payload, payload_contains, schedule, group)
    if matching:
        what = _filters(payload, payload_contains, schedule, group)
        raise _failure(
            f"Expected no delivery to {target_arn}{what}, found {len(matching)}.",
            records,
            clock,
            target_arn,
            _elided("the deliveries", matching, _attempt_line),
        )


def _letters(
    records: Records,
    queue_arn: str | None,
    schedule: str | None,
    group: str | None,
    attributes: Mapping[str, str] | None,
    payload_contains: Any,
) -> list[DeadLetter]:
    records.check_filter(schedule, group)
    named = ScheduleFilter(schedule, group)
    return [
        d
        for d in records.dead_letters(queue_arn)
        if named.matches_arn(d.schedule_arn)
        and all(d.attributes.get(k) == v for k, v in (attributes or {}).items())
        and (payload_contains is None or contains(d.payload, payload_contains))
    ]


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
) -> list[DeadLetter]:
    """Dead letters reached ``queue_arn`` (exactly ``count``, if given).

    ``schedule`` (a name or ARN), ``group``, ``attributes`` (a subset of the message
    attributes) and ``payload_contains`` (a recursive subset of the parsed body) filter
    the letters. Returns the matching ones.
    """
    __tracebackhide__ = True
    _require_queue(records, queue_arn)
    letters = _letters(records, queue_arn, schedule, group, attributes, payload_contains)
    if (count is None and letters) or (count is not None and len(letters) == count):
        return letters
    expected = "at least one dead letter" if count is None else _count(count, "dead letter")
    what = _filters(None, payload_contains, schedule, group, attributes)
    raise _failure(
        f"Expected {expected} in {queue_arn}{what}, found {len(letters)}.",
        records,
        clock,
        queue_arn,
        _elided("dead letters sent anywhere", records.dead_letters(), _letter_line),
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
) -> None:
    """No dead letter (matching the filters) reached ``queue_arn``, or any queue if None."""
    __tracebackhide__ = True
    if queue_arn is not None:
        _require_queue(records, queue_arn)
    letters = _letters(records, queue_arn, schedule, group, attributes, payload_contains)
    if letters:
        where = "any dead-letter queue" if queue_arn is None else queue_arn
        what = _filters(None, payload_contains, schedule, group, attributes)
        raise _failure(
            f"Expected no dead letter in {where}{what}, found {len(letters)}.",
            records,
            clock,
            queue_arn or "",
            _elided("the dead letters", letters, _letter_line),
        )


def describe_attempts(attempts: list[Attempt]) -> str:
    """Attempts, one line each, elided when many: for failure reports."""
    return "\n".join([*_counts(attempts), *_elided("attempts", attempts, _attempt_line)])


def _count(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"
