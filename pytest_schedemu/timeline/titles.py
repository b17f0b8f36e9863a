"""The hover text of each element: plain lines, escaped by the caller."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo

from pytest_schedemu.expressions.zones import UTC_NAMES
from pytest_schedemu.timeline.binning import Bin
from pytest_schedemu.timeline.lanes import (
    CANCELLED,
    DEAD_LETTERED,
    DELIVERED,
    DROPPED,
    FAILED_PERMANENT,
    FAILED_RETRYABLE,
    OUTCOMES,
    Change,
    FateRecord,
    Lane,
    Mark,
    Occurrence,
)
from pytest_schedemu.timeline.model import RunRecord
from pytest_schedemu.timeline.text import duration_text, epoch, excerpt, instant_text

OUTCOME_WORDS = {
    DELIVERED: "delivered",
    FAILED_RETRYABLE: "failed, retryable",
    FAILED_PERMANENT: "failed, permanent",
    DEAD_LETTERED: "dead-lettered",
    DROPPED: "dropped",
    CANCELLED: "cancelled",
}
PAYLOAD_EXCERPT = 80
MESSAGE_EXCERPT = 120
#: A permanent failure's message says why it can never succeed (IAM's refusal names the
#: role, the action, the resource and the reason): room for all of it.
PERMANENT_MESSAGE_EXCERPT = 400
DETAIL_EXCERPT = 160


class Clock:
    """Writes instants for one lane: in UTC and in the lane's zone."""

    def __init__(self, zone: tzinfo | None, zone_name: str) -> None:
        # A lane in UTC needs no second clock.
        self.zone = None if zone_name in UTC_NAMES else zone
        self.zone_name = zone_name

    def at(self, seconds: float) -> str:
        return instant_text(
            datetime.fromtimestamp(seconds, timezone.utc), self.zone, self.zone_name
        )


def mark_title(mark: Mark, clock: Clock) -> str:
    attempt = mark.attempt
    if attempt is None:
        return end_title(mark, clock)
    lines = [
        f"Attempt {attempt.attempt_number} · {OUTCOME_WORDS[mark.outcome]}",
        clock.at(mark.seconds),
    ]
    occurrence = mark.occurrence
    if occurrence is not None:
        after = mark.seconds - occurrence.nominal
        later = f" (+{duration_text(after)})" if after >= 0.5 else ""
        lines.append(f"occurrence {clock.at(occurrence.nominal)}{later}")
    if attempt.fired:
        lines.append("fired by the test (Emulator.fire), out of its schedule")
    if not attempt.succeeded:
        code = attempt.error_code or "error"
        room = MESSAGE_EXCERPT if attempt.retryable else PERMANENT_MESSAGE_EXCERPT
        message = excerpt(attempt.error_message or "", room)
        lines.append(f"{code}: {message}" if message else code)
    if attempt.input is not None:
        lines.append(f"payload: {excerpt(attempt.input, PAYLOAD_EXCERPT)}")
    lines.append(f"target: {attempt.target_arn}")
    if mark.ring is not None and occurrence is not None:
        lines.append("then " + fate_text(mark.ring, occurrence.fate_record, occurrence))
    lines.extend(run_line(run, clock) for run in mark.runs)
    return "\n".join(lines)


def run_line(run: RunRecord, clock: Clock) -> str:
    """A function's run, beneath the attempt whose event Lambda accepted."""
    if run.error_type is None:
        outcome = "ok"
    else:
        message = excerpt(run.error_message or "", MESSAGE_EXCERPT)
        outcome = f"{run.error_type}: {message}" if message else run.error_type
    return f"↳ {run.function_name} run {run.attempt} {outcome} · {clock.at(epoch(run.invoked_at))}"


def end_title(mark: Mark, clock: Clock) -> str:
    occurrence = mark.occurrence
    record = mark.record if occurrence is None else occurrence.fate_record
    lines = [OUTCOME_WORDS[mark.outcome].capitalize(), clock.at(mark.seconds)]
    if occurrence is not None:
        lines.append(f"occurrence {clock.at(occurrence.nominal)}")
    lines.append(fate_text(mark.outcome, record, occurrence))
    return "\n".join(lines)


def fate_text(fate: str, record: FateRecord | None, occurrence: Occurrence | None) -> str:
    """How an occurrence ended, with what its dead letter or activity record says."""
    condition = occurrence.execution.exhausted_condition if occurrence is not None else None
    why = ""
    if condition == "permanent":
        why = " after a permanent error"
    elif condition:
        why = f" ({condition})"
    queue = getattr(record, "queue_arn", None)
    if fate == DEAD_LETTERED and queue is not None:
        attributes = getattr(record, "attributes", None) or {}
        shown = ", ".join(
            f"{key}={excerpt(value, 60)}"
            for key, value in sorted(attributes.items())
            if key in ("ERROR_CODE", "RETRY_ATTEMPTS", "EXHAUSTED_RETRY_CONDITION")
        )
        return f"dead-lettered{why} to {queue}" + (f"; {shown}" if shown else "")
    detail = excerpt(getattr(record, "detail", "") or "", DETAIL_EXCERPT)
    kind = getattr(record, "kind", "")
    if kind == "dlq_failed":
        return f"dropped{why}: the dead-letter send failed: {detail}"
    if fate == DROPPED and not why and not detail:
        return "dropped: no dead-letter queue"
    return f"{OUTCOME_WORDS[fate]}{why}" + (f": {detail}" if detail else "")


def occurrence_title(occurrence: Occurrence, clock: Clock, window: int | None) -> str:
    execution = occurrence.execution
    attempts = len(execution.attempts)
    lines = [
        f"Occurrence {clock.at(occurrence.nominal)}",
        f"{execution.status.replace('_', ' ')}, {attempts} attempt{'' if attempts == 1 else 's'}",
    ]
    offset = occurrence.first_due - occurrence.nominal
    if offset >= 0.5 or window:
        span = f" of a {window}-minute window" if window else ""
        lines.append(f"flexible window: first attempt due +{duration_text(offset)}{span}")
    if occurrence.fate is not None:
        lines.append(fate_text(occurrence.fate, occurrence.fate_record, occurrence))
    return "\n".join(lines)


def upcoming_title(seconds: float, clock: Clock) -> str:
    return f"Next occurrence\n{clock.at(seconds)}"


def bin_title(found: Bin, clock: Clock) -> str:
    lines = [clock.at(found.first)]
    if found.last > found.first:
        lines[0] = f"{clock.at(found.first)}\nto {clock.at(found.last)}"
    counts = found.counts
    attempt_outcomes = (DELIVERED, FAILED_RETRYABLE, FAILED_PERMANENT)
    attempts = [f"{counts[o]} {OUTCOME_WORDS[o]}" for o in attempt_outcomes if counts[o]]
    if found.attempts:
        plural = "" if found.attempts == 1 else "s"
        lines.append(f"{found.attempts} attempt{plural}: " + ", ".join(attempts))
    ends = [f"{counts[o]} {OUTCOME_WORDS[o]}" for o in OUTCOMES[3:] if counts[o]]
    if ends:
        lines.append("occurrences " + ", ".join(ends))
    return "\n".join(lines)


def change_title(changes: list[Change], clock: Clock) -> str:
    if len(changes) == 1:
        change = changes[0]
        kind = change.record.kind.replace("_", " ")
        detail = excerpt(change.record.detail or "", DETAIL_EXCERPT)
        return "\n".join(
            line for line in (kind.capitalize(), clock.at(change.seconds), detail) if line
        )
    kinds: dict[str, int] = {}
    for change in changes:
        kind = change.record.kind.replace("_", " ")
        kinds[kind] = kinds.get(kind, 0) + 1
    listed = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    return (
        f"{len(changes)} changes: {listed}\n"
        f"from {clock.at(changes[0].seconds)}\nto {clock.at(changes[-1].seconds)}"
    )


def lane_title(lane: Lane) -> str:
    schedule = lane.schedule
    lines = [lane.arn]
    if schedule is None:
        lines.append("deleted: no longer among the schedules")
        return "\n".join(lines)
    lines.append(f"expression: {schedule.schedule_expression}")
    lines.append(f"time zone: {schedule.timezone}")
    lines.append(f"state: {schedule.state}")
    window = schedule.flexible_time_window.maximum_window_in_minutes
    lines.append(f"flexible window: {window} minutes" if window else "flexible window: off")
    lines.append(f"target: {schedule.target.arn}")
    if lane.origin is not None:
        lines.append(f"defined by stack {lane.origin}")
    if lane.deleted_at is not None:
        lines.append(f"deleted at {Clock(None, '').at(lane.deleted_at)}")
    return "\n".join(lines)
