"""What a failed assertion says: short, and each thing once.

A failure is about 25 lines by default: the verdict, the virtual now, the attempts counted
by target and outcome, the schedules aimed at the target, then one line per attempt (or
dead letter, or drop), elided in the middle when there are many, with payloads cut to 80
characters. With pytest's ``-vv`` payloads are shown whole and nothing is elided. A list
is cut only where that hides two lines or more: one hidden line costs as much as itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Callable, TypeVar

from pytest_schedemu.errors import DeliveryAssertionError, raised_for_the_caller
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.arns import ScheduleArn, scheduler_arn
from pytest_schedemu.records.filters import RecordFilter, SourcedRecord, target_matches
from pytest_schedemu.records.invocations import FunctionInvocation, runs_by_execution
from pytest_schedemu.records.reader import Records
from pytest_schedemu.records.types import Activity, Attempt, DeadLetter
from pytest_schedemu.timekeeping.clock import Clock

T = TypeVar("T")

# A failure is reported at the caller's line.
__tracebackhide__ = raised_for_the_caller

_PAYLOAD_WIDTH = 80
_HEAD = _TAIL = 6
_verbosity = 0


def configure(*, verbosity: int) -> None:
    """How much failures show: 2 or more (pytest's ``-vv``) shows everything."""
    global _verbosity
    _verbosity = verbosity


def cut(text: str | None) -> str:
    if text is None:
        return "(no payload)"
    if _verbosity >= 2 or len(text) <= _PAYLOAD_WIDTH:
        return text
    return text[: _PAYLOAD_WIDTH - 1] + "…"


def source_of(record: SourcedRecord) -> str:
    """What made a record, to a person: ``rule <name> → <target id>`` for a rule target's,
    ``group/name`` for a schedule's; a schedule ARN of any other shape as it is."""
    if record.rule_arn is not None:
        return f"rule {record.rule_name} → {record.target_id}"
    return schedule_of(record.schedule_arn or "")


def schedule_of(arn: str) -> str:
    """``group/name`` of a schedule ARN; anything else as it is."""
    parts = scheduler_arn(arn)
    return f"{parts.group}/{parts.name}" if isinstance(parts, ScheduleArn) else arn


def attempt_line(attempt: Attempt) -> str:
    if attempt.succeeded:
        outcome = "delivered"
    else:
        kind = "retryable" if attempt.retryable else "permanent"
        outcome = f"FAILED {attempt.error_code} ({kind})"
    line = (
        f"  {ztime(attempt.attempted_at)} {source_of(attempt)} "
        f"#{attempt.attempt_number} {outcome} {cut(attempt.input)}"
    )
    if attempt.succeeded or attempt.retryable or not attempt.error_message:
        return line
    # Why an attempt failed for good (a role IAM refuses, a target missing) is what a
    # reader of the failure needs, and it is rare: shown whole, on a line of its own.
    return f"{line}\n      {attempt.error_message}"


def run_line(run: FunctionInvocation) -> str:
    """A function's run, beneath the attempt whose event Lambda accepted."""
    if run.error_type is None:
        outcome = f"returned {cut(repr(run.result))}"
    else:
        outcome = f"FAILED {run.error_type}: {cut(run.error_message)}"
    return f"      ↳ {ztime(run.invoked_at)} {run.function_name} run #{run.attempt} {outcome}"


def with_runs(invocations: Iterable[FunctionInvocation]) -> Callable[[Attempt], str]:
    """``attempt_line``, followed by the runs of a stack's own function that each attempt
    caused (Lambda's retries of its event included)."""
    caused = runs_by_execution(invocations)
    if not caused:
        return attempt_line

    def line(attempt: Attempt) -> str:
        runs = caused.get(attempt.execution_id, ())
        return "\n".join([attempt_line(attempt), *map(run_line, runs)])

    return line


def letter_line(letter: DeadLetter) -> str:
    attributes = letter.attributes
    sent = ztime(letter.sent_at) if letter.sent_at else "?"
    return (
        f"  {sent} {source_of(letter)} scheduled "
        f"{ztime(letter.scheduled_time)} {attributes.get('ERROR_CODE')} after "
        f"{attributes.get('RETRY_ATTEMPTS')} retries"
    )


def drop_line(drop: Activity) -> str:
    scheduled = ztime(drop.scheduled_time) if drop.scheduled_time else "?"
    how = "dropped" if drop.kind == "dropped" else "dead letter not sent"
    return f"  {ztime(drop.at)} {source_of(drop)} scheduled {scheduled} {how}: {cut(drop.detail)}"


def _first(lines: list[str], limit: int) -> list[str]:
    """``lines``, or their first ``limit`` and a count of the rest when that is two or more."""
    if _verbosity >= 2 or len(lines) <= limit + 1:
        return lines
    return [*lines[:limit], f"  … {len(lines) - limit} more"]


def elided(title: str, items: list[T], line: Callable[[T], str]) -> list[str]:
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


def counts(attempts: Iterable[Attempt]) -> list[str]:
    counted = Counter(
        (a.target_arn, "delivered" if a.succeeded else f"failed {a.error_code}") for a in attempts
    )
    if not counted:
        return ["attempts: none"]
    lines = [f"  {target}: {count} {outcome}" for (target, outcome), count in counted.items()]
    return ["attempts by target and outcome:", *_first(lines, 4)]


def schedules_aimed_at(records: Records, target_arn: str | None) -> list[str]:
    lines = []
    rule_targets = records.last_definitions(records.known_rule_targets()).values()
    for s in [*records.schedules(), *rule_targets]:
        if target_arn is not None and not (
            target_matches(s.target.arn, target_arn) or s.target.dead_letter_arn == target_arn
        ):
            continue
        following = records.next_occurrence_of(s.arn)
        lines.append(
            f"  {s.label} {s.schedule_expression!r} {s.state}, next occurrence "
            + (ztime(following) if following else "none")
        )
    title = "schedules" if target_arn is None else "schedules aimed at it"
    if not lines:
        return [f"{title}: none"]
    return [f"{title}:", *_first(lines, 3)]


def failure(
    verdict: str, records: Records, clock: Clock, target_arn: str | None, shown: list[str]
) -> DeliveryAssertionError:
    return DeliveryAssertionError(
        "\n".join(
            [
                verdict,
                f"virtual now {ztime(clock.now())}",
                *counts(records.attempts()),
                *schedules_aimed_at(records, target_arn),
                *shown,
            ]
        )
    )


def describe_attempts(
    attempts: list[Attempt], invocations: Iterable[FunctionInvocation] = ()
) -> str:
    """Attempts, one line each (and the runs of a function each caused), elided when many:
    for failure reports."""
    if not attempts:
        return "attempts: none"
    shown = elided("attempts", attempts, with_runs(invocations))
    return "\n".join([*counts(attempts), *shown])


def describe_drops(drops: list[Activity]) -> str:
    """Drops, one line each, elided when many: for the pytest plugin's teardown check."""
    return "\n".join(elided("drops", drops, drop_line))


def described(
    which: RecordFilter,
    *,
    payload: Any = None,
    payload_contains: Any = None,
    attributes: Any = None,
) -> str:
    """What an assertion was asked to find beyond its ARN, as its verdict names it."""
    parts = [
        f"{name} {value!r}"
        for name, value in (
            ("with payload", payload),
            ("with a payload containing", payload_contains),
            ("from schedule", which.schedule),
            ("in group", which.group),
            ("from rule", which.rule),
            ("with attributes", attributes),
        )
        if value is not None
    ]
    return (" " + " ".join(parts)) if parts else ""


def counted(count: int, noun: str) -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1] + 'ies' if noun.endswith('y') else noun + 's'}"
