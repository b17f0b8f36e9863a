"""Firing a schedule by hand: one occurrence now, out of its schedule ("run now").

A fired occurrence is an ordinary occurrence of the schedule's current definition whose
scheduled time is the clock's current second: its Input's context attributes name that
instant, its first attempt is made at once (a flexible window does not put off what a test
asked for now), and what follows an outcome (retries on the clock, the dead letter, the
drop) is settlement's, as for any other. The schedule's own occurrences are untouched: the
clock does not move and the plan's queued work stays as it was. Its ids are its own
(``events.event_id`` counts the fires of each incarnation), so it never shares them with
an occurrence scheduled at the same instant, nor with another fired one.

A disabled schedule can be fired too: firing is the test's explicit request, and AWS has
no "run now" whose rules it could follow. Only a virtual clock fires, in the caller's
thread like a move, so that the first attempt is there to return.

With a state file (``state=``) a fired occurrence is kept like any other: the file keys an
occurrence by its incarnation, scheduled time and fire number, and keeps how many fires each
plan made, so that a fire after a restart takes the next number, and ids of its own.
"""

from __future__ import annotations

from pytest_schedemu.delivery.backends import OK
from pytest_schedemu.delivery.handlers import failed_attempt
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.occurrences import Job, Occurrence
from pytest_schedemu.errors import ClockError, HandlerError, raised_for_the_caller
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.records import Attempt, Records
from pytest_schedemu.timekeeping.clock import Clock

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class Firing:
    """Fires schedules by hand, for ``Emulator.fire`` and the control API."""

    def __init__(self, *, dispatcher: Dispatcher, records: Records, clock: Clock) -> None:
        self._dispatcher = dispatcher
        self._records = records
        self._clock = clock

    def fire(self, schedule: str, group: str | None = None) -> Attempt:
        """Make one occurrence of the stored schedule ``schedule`` (a name, or an ARN) at
        the current instant and its first attempt; return that attempt."""
        arn = self._records.one_schedule_arn(schedule, group)
        if arn is None:
            raise LookupError(
                f"Schedule {schedule!r} is not among the schedules this emulator still "
                "remembers (max_records forgot some): pass its ARN"
            )
        clock = self._clock
        if clock.real_time:
            raise ClockError(
                "Firing a schedule needs a virtual clock (Emulator(clock='virtual')): it "
                "delivers in the caller's thread, which a real-time clock leaves to its own"
            )
        clock.guard.refuse_inside()
        with clock.operation_lock:
            try:
                return self._fire(arn)
            except HandlerError as error:
                # Raised afresh here, as a clock move does: the test's line, then the handler's.
                raise error.with_traceback(None) from error.__cause__

    def _fire(self, arn: str) -> Attempt:
        dispatcher = self._dispatcher
        with dispatcher.store.lock:
            plan = dispatcher.planner.live_plan(arn)
            if plan is None:
                raise LookupError(
                    f"Schedule {arn} does not exist now (it was deleted): only a stored "
                    "schedule can be fired"
                )
            now = floor_epoch(dispatcher.now())
            plan.fires += 1
            occurrence = Occurrence(plan, now, now, fired=plan.fires)
            occurrence.first_attempt_at = now
            plan.pending.add(occurrence)
            dispatcher.history.add_execution(plan.arn, occurrence)
            job = Job(occurrence, 1, now, dispatcher.settings.current.seed)
        settle = dispatcher.settlement.settle
        try:
            try:
                outcome = dispatcher.deliver(job) if dispatcher.calls_targets else OK
            except HandlerError as error:
                settle(job, failed_attempt(error))
                raise
            except BaseException:
                dispatcher.interrupted(job)
                raise
            return settle(job, outcome)
        finally:
            # Durable before it returns (with a state path), as a clock move is.
            dispatcher.store.commit()
