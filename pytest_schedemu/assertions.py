"""Assertions about deliveries whose failure messages say what happened instead.

``assert_delivered(records, clock, target_arn)`` fails with the deliveries that did happen, the
schedules aimed at that target (state and next occurrence) and the failed attempts with
their errors, so a failing test explains itself without a debugger.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_schedemu.clock import Clock
from pytest_schedemu.errors import DeliveryAssertionError
from pytest_schedemu.records import Attempt, DeadLetter, Records
from pytest_schedemu.times import ztime as _ztime

__all__ = [
    "DeliveryAssertionError",
    "assert_dead_lettered",
    "assert_delivered",
    "assert_not_delivered",
    "describe_attempts",
    "describe_target",
]

_LIMIT = 20


def _count(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"


def _attempt_line(attempt: Attempt) -> str:
    outcome = (
        "delivered"
        if attempt.succeeded
        else f"FAILED {attempt.error_code}: {attempt.error_message}"
        + ("" if attempt.retryable else " (permanent)")
    )
    return (
        f"  {_ztime(attempt.attempted_at)} {attempt.group_name}/{attempt.schedule_name} "
        f"scheduled {_ztime(attempt.scheduled_time)} attempt {attempt.attempt_number}: "
        f"{outcome}; payload {attempt.input!r}"
    )


def _listing(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return [f"{title}: none"]
    shown = lines[:_LIMIT]
    more = [f"  … and {len(lines) - _LIMIT} more"] if len(lines) > _LIMIT else []
    return [f"{title}:", *shown, *more]


def describe_target(records: Records, clock: Clock, target_arn: str | None) -> str:
    """What the emulator knows about ``target_arn`` (every target when None)."""
    attempts = records.attempts(target_arn=target_arn)
    delivered = [_attempt_line(a) for a in attempts if a.succeeded]
    failed = [_attempt_line(a) for a in attempts if not a.succeeded]
    schedules = [
        f"  {s.group_name}/{s.name} {s.schedule_expression!r} {s.state}, next occurrence "
        + (_ztime(nxt) if (nxt := records.next_occurrence(s.arn)) else "none")
        for s in records.schedules()
        if target_arn is None or s.target.arn == target_arn
    ]
    now = _ztime(clock.now())
    return "\n".join(
        [
            f"virtual now {now}",
            *_listing("deliveries", delivered),
            *_listing("schedules aimed at it", schedules),
            *_listing("failed attempts", failed),
        ]
    )


def _matches_payload(attempt: Attempt, payload: Any) -> bool:
    if payload is None:
        return True
    if isinstance(payload, str):
        return attempt.input == payload
    return bool(attempt.payload == payload)


def assert_delivered(
    records: Records,
    clock: Clock,
    target_arn: str,
    count: int | None = None,
    payload: Any = None,
) -> list[Attempt]:
    """Deliveries to ``target_arn`` happened (exactly ``count`` of them, if given).

    ``payload``, when not None, filters deliveries: a string compares with the delivered
    text, anything else with the parsed JSON payload. Returns the matching deliveries.
    """
    __tracebackhide__ = True
    matching = [
        a for a in records.deliveries(target_arn=target_arn) if _matches_payload(a, payload)
    ]
    if (count is None and not matching) or (count is not None and len(matching) != count):
        expected = "at least one delivery" if count is None else _count(count, "delivery")
        what = "" if payload is None else f" with payload {payload!r}"
        raise DeliveryAssertionError(
            f"Expected {expected} to {target_arn}{what}, found {len(matching)}.\n"
            f"{describe_target(records, clock, target_arn)}"
        )
    return matching


def assert_not_delivered(
    records: Records, clock: Clock, target_arn: str, payload: Any = None
) -> None:
    """No delivery (matching ``payload``, if given) reached ``target_arn``."""
    __tracebackhide__ = True
    matching = [
        a for a in records.deliveries(target_arn=target_arn) if _matches_payload(a, payload)
    ]
    if matching:
        what = "" if payload is None else f" with payload {payload!r}"
        raise DeliveryAssertionError(
            f"Expected no delivery to {target_arn}{what}, found {len(matching)}.\n"
            f"{describe_target(records, clock, target_arn)}"
        )


def assert_dead_lettered(
    records: Records,
    clock: Clock,
    queue_arn: str,
    count: int | None = None,
    schedule: str | None = None,
    attributes: dict[str, str] | None = None,
) -> list[DeadLetter]:
    """Dead letters reached ``queue_arn`` (exactly ``count``, if given).

    ``schedule`` (a name or ARN) and ``attributes`` (a subset of the message attributes)
    filter the letters. Returns the matching ones.
    """
    __tracebackhide__ = True
    letters = [
        d
        for d in records.dead_letters(queue_arn)
        if (
            schedule is None
            or d.schedule_arn == schedule
            or d.schedule_arn.endswith("/" + schedule)
        )
        and all(d.attributes.get(k) == v for k, v in (attributes or {}).items())
    ]
    if (count is None and letters) or (count is not None and len(letters) == count):
        return letters
    expected = "at least one dead letter" if count is None else _count(count, "dead letter")
    sent = [
        f"  {_ztime(d.sent_at) if d.sent_at else '?'} from {d.schedule_arn}: "
        f"{d.attributes.get('ERROR_CODE')} after {d.attributes.get('RETRY_ATTEMPTS')} retries"
        for d in records.dead_letters()
    ]
    raise DeliveryAssertionError(
        "\n".join(
            [
                f"Expected {expected} in {queue_arn}, found {len(letters)}.",
                *_listing("dead letters sent anywhere", sent),
                describe_target(records, clock, None),
            ]
        )
    )


def describe_attempts(attempts: Iterable[Attempt]) -> str:
    lines = [_attempt_line(a) for a in attempts]
    return "\n".join(_listing("attempts", lines))
