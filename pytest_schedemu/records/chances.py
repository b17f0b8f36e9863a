"""When a schedule, or a rule target, could first have fired after its last change.

A negative assertion checks something only once the clock has passed an instant at which
something in its scope would have fired (``opportunity``). That instant is worked out from
the definition the read side keeps (``Records.last_definitions``) with the expression
engine, the way the dispatcher plans it, whatever the definition's state: a schedule
disabled or deleted since is asked when it would have fired had it stayed.

- Its first nominal time is the first its timeline has from the second it may fire at on
  (``Schedule.eligible_from``: a schedule's last change, a rule target's strictly after
  it). StartDate and EndDate bound a recurring timeline, both inclusive, on the nominal
  time; an at() ignores them (§4.7).
- A nominal time that fell at the very second of an update, and was generated before it,
  is not generated again (§4.7, eligibility 1): the next one is the chance.
- A flexible window may put the first attempt as late as the nominal time plus the window,
  so the chance has surely come only when the window has ended (§5.4).
- A timeline with nothing from that second on (an at() time before the change, an EndDate
  passed, cron years run out) gives no chance at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from pytest_schedemu.expressions import Timeline, parse_expression, timeline
from pytest_schedemu.formats.times import from_epoch, to_epoch, ztime
from pytest_schedemu.model.resources import Schedule

# Earlier than every instant a timeline holds: an at() answers its one time after it.
_BEFORE_ALL = -(1 << 62)


@dataclass(frozen=True)
class Chance:
    """The first occurrence a definition could have after its last change."""

    #: Its nominal time.
    nominal: datetime
    #: When the clock has surely passed its first attempt: the nominal time, or the end of
    #: the flexible window after it.
    due: datetime
    #: The flexible window, in minutes; 0 when off.
    window: int

    def describe(self, label: str) -> str:
        """What the instant ``due`` is, for the schedule called ``label``."""
        if not self.window:
            return f"{label}'s next occurrence"
        return (
            f"the end of the {self.window}-minute flexible window of {label}'s occurrence "
            f"at {ztime(self.nominal)}"
        )


def definition_timeline(definition: Schedule) -> Timeline:
    """The nominal times of a schedule, or a rule target, as defined."""
    return timeline(
        parse_expression(definition.schedule_expression),
        timezone=definition.timezone,
        start_date=definition.start_date,
        end_date=definition.end_date,
        created_at=definition.creation_date,
    )


def first_chance(definition: Schedule, generated_before: Callable[[int], bool]) -> Chance | None:
    """The first occurrence ``definition`` could have after its last change, or None when its
    timeline has none. ``generated_before(nominal)`` says whether a nominal time at the
    second of the change was generated before it."""
    line = definition_timeline(definition)
    nominal = line.next_after_epoch(definition.eligible_from - 1)
    if (
        nominal is not None
        and nominal <= to_epoch(definition.last_modification_date)
        and generated_before(nominal)
    ):
        nominal = line.next_after_epoch(nominal)
    if nominal is None:
        return None
    window = definition.flexible_time_window.maximum_window_in_minutes or 0
    return Chance(from_epoch(nominal), from_epoch(nominal + 60 * window), window)


def why_no_chance(definition: Schedule, change: str) -> str:
    """Why ``definition`` has no occurrence after its last change (``change``: ``created``
    or ``updated``, at that instant)."""
    changed = f"it was {change} at {ztime(definition.last_modification_date)}"
    line = definition_timeline(definition)
    if not line.recurring:
        at = line.next_after_epoch(_BEFORE_ALL)
        return f"its at() time {ztime(from_epoch(at or 0))} is not after {changed}"
    end = definition.end_date
    if end is not None and end < definition.last_modification_date:
        return f"its EndDate {ztime(end)} had passed when {changed}"
    if end is not None:
        return f"no occurrence falls between {changed} and its EndDate {ztime(end)}"
    return f"{definition.schedule_expression} has no occurrence after {changed}"
