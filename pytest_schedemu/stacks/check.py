"""A loaded stack's check, without moving the clock: every schedule and rule target it made,
its next fire times on its own zone's clock, and whether it can deliver (and why not).

What this module holds is the answer and how it reads; the answer is worked out where the
clock's planning and IAM's verdict are (``provisioning.checking``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.times import ztime

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

SCHEDULE = "schedule"
RULE_TARGET = "rule target"

#: How many fire times a check lists for each.
FIRE_TIMES = 3


@dataclass(frozen=True)
class CheckedTarget:
    """One schedule or rule target of a stack, as its check found it."""

    #: ``schedule`` or ``rule target``.
    kind: str
    #: The logical id of the resource that made it.
    logical_id: str
    #: ``<group>/<name>`` for a schedule, ``<rule name> → <target id>`` for a rule target.
    name: str
    target_arn: str
    #: The zone its expression is read in (a rule's is UTC).
    timezone: str
    #: Its next fire times (at most ``FIRE_TIMES``), aware, on its zone's clock.
    next_fire_times: tuple[datetime, ...]
    #: Why it has none: ``disabled``, ``fires on matching events only``, ``no more``.
    no_fire_times: str | None = None
    #: The code and message its service would report for each attempt; None: it delivers.
    error_code: str | None = None
    error_message: str | None = None
    #: Why a dead letter of it could not be sent to its queue; None: it could, or it has none.
    dead_letter_refusal: str | None = None

    @property
    def can_deliver(self) -> bool:
        return self.error_code is None

    def lines(self) -> list[str]:
        """How the check's text shows it."""
        found = [f"{self.logical_id}  {self.kind} {self.name} -> {self.target_arn}"]
        if self.next_fire_times:
            shown = ", ".join(_local(instant) for instant in self.next_fire_times)
            found.append(f"  next ({self.timezone}): {shown}")
        else:
            found.append(f"  next: none ({self.no_fire_times})")
        if self.can_deliver:
            found.append("  can deliver")
        else:
            found.append(f"  cannot deliver: {self.error_code}: {self.error_message}")
        if self.dead_letter_refusal is not None:
            found.append(f"  its dead letters cannot be sent: {self.dead_letter_refusal}")
        return found


@dataclass(frozen=True)
class StackCheck:
    """A stack's check: ``ok`` when each of its schedules and rule targets can deliver;
    ``str()`` is what ``schedemu check --stack`` prints."""

    stack_name: str
    #: The instant the fire times are counted from.
    at: datetime
    targets: tuple[CheckedTarget, ...]

    @property
    def ok(self) -> bool:
        return all(target.can_deliver for target in self.targets)

    @property
    def refused(self) -> tuple[CheckedTarget, ...]:
        """Those that cannot deliver."""
        return tuple(target for target in self.targets if not target.can_deliver)

    def target(self, logical_id: str) -> CheckedTarget:
        """The one made by the resource ``logical_id`` (a rule's one target); LookupError
        when that resource made none or several."""
        found = [target for target in self.targets if target.logical_id == logical_id]
        if len(found) != 1:
            made = ", ".join(sorted({target.logical_id for target in self.targets})) or "none"
            raise LookupError(
                f"{logical_id!r} made {len(found)} of stack {self.stack_name}'s schedules and "
                f"rule targets, not one (they were made by: {made})"
            )
        return found[0]

    def __str__(self) -> str:
        kinds = [target.kind for target in self.targets]
        counted = ", ".join(
            f"{kinds.count(kind)} {kind}{'' if kinds.count(kind) == 1 else 's'}"
            for kind in (SCHEDULE, RULE_TARGET)
        )
        refused = len(self.refused)
        verdict = f"{refused} cannot deliver" if refused else "all can deliver"
        lines = [f"stack {self.stack_name} at {ztime(self.at)}: {counted}; {verdict}"]
        for target in self.targets:
            lines.extend(target.lines())
        return "\n".join(lines)


def _local(instant: datetime) -> str:
    """``2026-03-09 02:30:00-04:00 EDT``: the wall clock, its offset and abbreviation."""
    return f"{instant.isoformat(sep=' ')} {instant.tzname()}"
