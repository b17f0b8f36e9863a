"""A picture of what happened in a test: one lane per schedule, its occurrences, every
attempt by outcome, retries, dead letters, the schedule's changes and the clock's instant.

::

    data = TimelineData(emu.schedules(), executions, emu.activity(), emu.dead_letters(),
                        now=emu.clock.now())
    Path("timeline.html").write_text(render_timeline_html(data), encoding="utf-8")

The renderer is pure: it reads the records it is given by their attributes (see
``model``) and never the emulator itself.
"""

from __future__ import annotations

from pytest_schedemu.timeline.lanes import OUTCOMES
from pytest_schedemu.timeline.model import (
    ActivityRecord,
    AttemptRecord,
    DeadLetterRecord,
    ExecutionRecord,
    ScheduleRecord,
    TimelineData,
)
from pytest_schedemu.timeline.page import render_timeline_html
from pytest_schedemu.timeline.svg import render_timeline_svg

__all__ = [
    "OUTCOMES",
    "ActivityRecord",
    "AttemptRecord",
    "DeadLetterRecord",
    "ExecutionRecord",
    "ScheduleRecord",
    "TimelineData",
    "render_timeline_html",
    "render_timeline_svg",
]
