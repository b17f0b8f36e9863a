"""The emulator's public face for looking at what happened: queries and assertions.

``Emulator`` inherits these methods. Each turns its arguments into one ``RecordFilter``
(``records.filters``) and hands it to the read side (``Records``) or to an assertion. Every
one takes its filters in the one order, keyword-only but for its first parameter, and its
docstring describes them from the one table (``documents_filters``). A name that nothing
had, a filter that cannot match, and a failed assertion are reported at the caller's line
(``__tracebackhide__`` below).
"""

from __future__ import annotations

import functools
import inspect
import os
import tempfile
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, TypeVar, Union, cast

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.times import Instant
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records import (
    Activity,
    Attempt,
    DeadLetter,
    DroppedRecords,
    Execution,
    History,
    Records,
    assertions,
)
from pytest_schedemu.records.filters import RecordFilter, documents_filters
from pytest_schedemu.records.timeline_source import (
    TIMELINE_FILTERS,
    collector_paused,
    timeline_data,
)
from pytest_schedemu.timekeeping.clock import RealClock, VirtualClock
from pytest_schedemu.timeline import render_timeline_html, render_timeline_svg

StrPath = Union[str, "os.PathLike[str]"]

# pytest hides this module's frames from the tracebacks of the errors raised for the caller.
__tracebackhide__ = raised_for_the_caller

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _once_positional(*names: str) -> Callable[[_Method], _Method]:
    """Accept, for one more release, filters passed by position in the order a method took
    them before every filter became keyword-only (``names``, after the parameters still
    positional); a call that does so is warned (DeprecationWarning), then served."""

    def wrap(method: _Method) -> _Method:
        positional = sum(
            parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            for parameter in inspect.signature(method).parameters.values()
        )

        @functools.wraps(method)
        def served(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            extra = args[positional:]
            if extra:
                moved = names[: len(extra)]
                if len(extra) > len(names) or any(name in kwargs for name in moved):
                    raise TypeError(
                        f"{method.__name__}() takes its filters by name: "
                        + ", ".join(f"{name}=" for name in names)
                    )
                warnings.warn(
                    f"{method.__name__}(): pass {', '.join(f'{n}=' for n in moved)} by name; "
                    "filters by position are accepted until the next release",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs.update(zip(moved, extra))
                args = args[:positional]
            return method(*args, **kwargs)

        return cast(_Method, served)

    return wrap


class Inspection:
    """Queries and assertions over an emulator's records."""

    clock: VirtualClock | RealClock
    _records: Records
    _history: History

    # -- queries ---------------------------------------------------------------------------

    @documents_filters
    @_once_positional("group", "target_arn")
    def attempts(
        self,
        schedule: str | None = None,
        *,
        group: str | None = None,
        rule: str | None = None,
        target_arn: str | None = None,
    ) -> list[Attempt]:
        """Every attempt made, failed ones too, in delivery order."""
        which = RecordFilter(schedule=schedule, group=group, rule=rule, target_arn=target_arn)
        return self._records.attempts(which)

    @documents_filters
    @_once_positional("schedule", "group")
    def deliveries(
        self,
        target_arn: str | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
    ) -> list[Attempt]:
        """The successful attempts, in delivery order."""
        which = RecordFilter(
            schedule=schedule, group=group, rule=rule, target_arn=target_arn, outcome="succeeded"
        )
        return self._records.attempts(which)

    @documents_filters
    @_once_positional("schedule", "group")
    def dead_letters(
        self,
        queue_arn: str | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
    ) -> list[DeadLetter]:
        """Messages sent to dead-letter queues, in the order they were sent."""
        which = RecordFilter(schedule=schedule, group=group, rule=rule, queue_arn=queue_arn)
        return self._records.dead_letters(which)

    @documents_filters
    @_once_positional("group")
    def drops(
        self, schedule: str | None = None, *, group: str | None = None, rule: str | None = None
    ) -> list[Activity]:
        """The occurrences lost, oldest first: each ``Activity`` of kind ``dropped`` (it
        ended failed and its schedule, or rule target, had no dead-letter queue) or
        ``dlq_failed`` (its dead letter could not be sent), with ``detail``
        ``"ERROR_CODE: message"``. Not ``dropped_records``, which counts the records
        ``max_records`` let go of: memory, not occurrences."""
        return self._records.drops(RecordFilter(schedule=schedule, group=group, rule=rule))

    def unasserted_drops(self) -> list[Activity]:
        """The drops no passing ``assert_dropped`` matched: the pytest plugin fails a test
        that leaves any (unless it allows drops)."""
        return self._records.unasserted_drops()

    @documents_filters
    @_once_positional("group")
    def executions(
        self, schedule: str | None = None, *, group: str | None = None, rule: str | None = None
    ) -> list[Execution]:
        """One record per occurrence of the schedule, in the order they were generated; or,
        with ``rule`` instead, of each of the rule's targets in turn.

        A schedule name held by several groups raises ValueError naming them: pass
        ``group``. An occurrence appears once its first attempt is made (or it is cancelled
        before that): one still waiting out a flexible window has no history yet.
        """
        return self._records.executions(RecordFilter(schedule=schedule, group=group, rule=rule))

    def activity(self, kind: str | None = None) -> list[Activity]:
        """Drops, cancellations, dead-letter sends, automatic deletes, group removals: every
        kind, or ``kind`` alone, unfiltered (``drops`` filters the two kinds of loss by
        schedule, group or rule)."""
        return self._records.activity(kind)

    def next_occurrence(self, schedule: str, group: str | None = None) -> datetime | None:
        """The next nominal time of a schedule (by name, or ARN), or None if none remains.

        The schedule is found as ``executions`` finds it, with the same errors.
        """
        return self._records.next_occurrence(schedule, group)

    def schedules(self) -> list[Schedule]:
        """Every stored schedule, in every account and region."""
        return self._records.schedules()

    @documents_filters
    def timeline(
        self,
        path: StrPath | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        target_arn: str | None = None,
        since: Instant | None = None,
        until: Instant | None = None,
        title: str = "schedemu timeline",
    ) -> Path:
        """Write what happened as a self-contained HTML page and return its path.

        One lane per schedule (deleted ones included) and per target of a scheduled rule, a
        tick at each nominal time, every attempt coloured by outcome, dead letters, the
        schedules' changes, the clock's instant, and hover titles with the details; times
        in UTC and in each schedule's zone. ``path`` None writes a new file in the
        temporary folder, and a folder a new file in it; a file path is replaced whole, and
        a symbolic link there is replaced, not followed (the file is its owner's to read).
        """
        # The parameters are named as the filter's fields are.
        which = RecordFilter.of(locals(), TIMELINE_FILTERS)
        with collector_paused():
            data = timeline_data(self._records, self.clock.now(), which)
            page = render_timeline_html(data, title=title)
        if path is None or Path(path).is_dir():
            handle, name = tempfile.mkstemp(
                prefix="schedemu-timeline-", suffix=".html", dir=None if path is None else path
            )
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(page)
            return Path(name)
        written = Path(path)
        written.parent.mkdir(parents=True, exist_ok=True)
        _replace_with(written, page)
        return written

    @documents_filters
    def timeline_svg(
        self,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        target_arn: str | None = None,
        since: Instant | None = None,
        until: Instant | None = None,
        width: int = 1200,
    ) -> str:
        """The picture of ``timeline()`` alone, as one ``<svg>`` element to embed in a page."""
        which = RecordFilter.of(locals(), TIMELINE_FILTERS)
        with collector_paused():
            data = timeline_data(self._records, self.clock.now(), which)
            return render_timeline_svg(data, width=width)

    @property
    def dropped_records(self) -> DroppedRecords:
        """How many records ``max_records`` has dropped so far (``.by_kind`` for each kind):
        what the history no longer holds, not lost occurrences (those are ``drops``)."""
        return self._records.dropped_records

    def add_attempt_listener(self, listener: Callable[[Attempt], None]) -> None:
        """Call ``listener(attempt)`` for every attempt from now on (``schedemu serve`` logs)."""
        self._history.add_listener(listener)

    # -- assertions ------------------------------------------------------------------------

    @documents_filters
    def assert_delivered(
        self,
        target_arn: str,
        count: int | None = None,
        payload: Any = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        payload_contains: Any = None,
    ) -> list[Attempt]:
        """Fail, listing what happened instead, unless ``target_arn`` received deliveries
        (exactly ``count``, if given); return the matching deliveries.

        Without ``count`` it means at least one. ``payload`` is an exact match (a string
        against the delivered text, anything else against the parsed JSON);
        ``payload_contains`` a dict that must be a recursive subset of the parsed payload.
        An ARN that no schedule or rule ever aimed at fails at once; a ``payload_contains``
        key that no payload at the target has raises ValueError.
        """
        __tracebackhide__ = True
        which = RecordFilter(schedule=schedule, group=group, rule=rule, target_arn=target_arn)
        return assertions.assert_delivered(
            self._records, self.clock, which, count, payload, payload_contains
        )

    @documents_filters
    def assert_not_delivered(
        self,
        target_arn: str,
        payload: Any = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        payload_contains: Any = None,
    ) -> None:
        """Fail, listing the deliveries, if ``target_arn`` received any matching
        ``payload`` and ``payload_contains`` (as ``assert_delivered`` has them). Dead
        letters are not deliveries.

        It fails too, naming the instant to move the clock past, when for no schedule or
        rule target aimed at ``target_arn`` and named by the filters has the clock passed
        an instant at which it would have fired since its last change (for a flexible
        window, the window's end): nothing could have been delivered yet.
        """
        __tracebackhide__ = True
        which = RecordFilter(schedule=schedule, group=group, rule=rule, target_arn=target_arn)
        assertions.assert_not_delivered(self._records, self.clock, which, payload, payload_contains)

    @documents_filters
    @_once_positional("schedule", "attributes")
    def assert_dead_lettered(
        self,
        queue_arn: str,
        count: int | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        attributes: dict[str, str] | None = None,
        payload_contains: Any = None,
    ) -> list[DeadLetter]:
        """Fail, listing what happened instead, unless ``queue_arn`` received dead letters
        (at least one, or exactly ``count``) matching the filters, ``attributes`` (a subset
        of the message attributes) and ``payload_contains`` (a recursive subset of the
        parsed body); return the matching ones. An ``attributes`` name that is not a
        dead-letter attribute, and a ``payload_contains`` key that no dead letter in scope
        has, raise ValueError."""
        __tracebackhide__ = True
        which = RecordFilter(schedule=schedule, group=group, rule=rule, queue_arn=queue_arn)
        return assertions.assert_dead_lettered(
            self._records, self.clock, which, count, attributes, payload_contains
        )

    @documents_filters
    def assert_not_dead_lettered(
        self,
        queue_arn: str | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
        attributes: dict[str, str] | None = None,
        payload_contains: Any = None,
    ) -> None:
        """Fail, listing them, if ``queue_arn`` (any queue when None) received dead letters
        matching the filters, ``attributes`` and ``payload_contains`` (as
        ``assert_dead_lettered`` has them).

        It fails too when no schedule or rule target ever had a dead-letter queue (with no
        ``queue_arn``), and when for none with that queue has the clock passed an instant
        at which it would have fired since its last change: nothing could have been
        dead-lettered yet.
        """
        __tracebackhide__ = True
        which = RecordFilter(schedule=schedule, group=group, rule=rule, queue_arn=queue_arn)
        assertions.assert_not_dead_lettered(
            self._records, self.clock, which, attributes, payload_contains
        )

    @documents_filters
    def assert_dropped(
        self,
        count: int | None = None,
        *,
        schedule: str | None = None,
        group: str | None = None,
        rule: str | None = None,
    ) -> list[Activity]:
        """Fail, listing the drops there were, unless occurrences were lost (at least one,
        or exactly ``count``), as ``drops`` has them; return them. The drops it returns
        count as asserted: the pytest plugin's teardown check reports only the others."""
        __tracebackhide__ = True
        which = RecordFilter(schedule=schedule, group=group, rule=rule)
        return assertions.assert_dropped(self._records, self.clock, which, count)

    def describe_attempts(self) -> str:
        """``attempts()`` as text, one line each (elided when many): for failure reports."""
        return assertions.describe_attempts(self._records.attempts(), self._records.invocations())


def _replace_with(path: Path, text: str) -> None:
    """Put a file holding ``text`` at ``path``, whole or not at all, and never through a
    link: it is written to a new file beside it (made exclusively, readable by its owner
    only) that then replaces whatever ``path`` was, a symbolic link included."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(name, path)
    except BaseException:
        os.unlink(name)
        raise
