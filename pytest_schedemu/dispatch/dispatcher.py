"""The dispatcher: the run loop that plays due work when the clock moves.

Every incarnation of a schedule has a plan (``planner``). Work items (generate an
occurrence, a first attempt, a retry, a group removal, a completion check) sit in one queue
ordered by the reference's key (due, incarnation, nominal time, attempt number, kind), so a
jump of the clock plays out every occurrence and every retry of the interval in order, each
at its own instant, in the caller's thread. ``settlement`` decides what follows each
outcome; ``bulk`` plays long unobservable stretches at once; ``realtime`` serves a
wall clock.

Deliveries run outside the store lock: a target handler may call the API over HTTP, and
the server thread must be able to take the lock meanwhile.
"""

from __future__ import annotations

import gc
import math
import threading
from collections import Counter
from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.delivery.backends import (
    ACCESS_DENIED_MESSAGE,
    OK,
    Delivery,
    Outcome,
    RecordingDelivery,
)
from pytest_schedemu.delivery.handler_loop import HandlerLoop
from pytest_schedemu.delivery.handlers import CoroutineCall, failed_attempt
from pytest_schedemu.delivery.steering import TargetControls
from pytest_schedemu.dispatch import bulk
from pytest_schedemu.dispatch.agenda import Agenda
from pytest_schedemu.dispatch.kept import KeptAttempts
from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.dispatch.queue import FIRST_ATTEMPT, GENERATE, GROUP_REMOVAL, RETRY, WorkItem
from pytest_schedemu.dispatch.settlement import Settlement, record
from pytest_schedemu.errors import DispatchLimitExceeded, HandlerError
from pytest_schedemu.formats.times import floor_epoch, from_epoch, to_epoch
from pytest_schedemu.model.resources import ScheduleGroup
from pytest_schedemu.model.rules import rule_target_label
from pytest_schedemu.records import PENDING, RETRYING, Activity, Attempt, History, MoveAttempts
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import DeliveryGuard


def delivery_backend(
    delivery: str | Delivery, endpoint_url: str | None, timeout: float
) -> Delivery:
    """The backend a ``delivery`` setting names (or is)."""
    if not isinstance(delivery, str):
        return delivery
    if delivery == "boto3":
        from pytest_schedemu.dispatch.forwarding import Boto3Delivery

        return Boto3Delivery(endpoint_url, timeout=timeout)
    return RecordingDelivery()


class Dispatcher:
    """Runs the planner's work when the clock moves."""

    def __init__(
        self,
        *,
        store: Store,
        settings: LiveSettings,
        history: History,
        controls: TargetControls,
        set_clock: Callable[[datetime], None],
        now: Callable[[], datetime],
        guard: DeliveryGuard,
        clock_observed: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.settings = settings
        self.history = history
        self.controls = controls
        self._delivery_choice = self._chosen_delivery()
        self.delivery = delivery_backend(*self._delivery_choice)
        #: Where coroutine handlers are awaited when no async move awaits them itself.
        self.handler_loop = HandlerLoop()
        self._set_clock = set_clock
        #: The clock's reading, for the loops that run the dispatcher.
        self.now = now
        self._clock_observed = clock_observed
        #: Marks deliveries, so the clock refuses to move from inside one.
        self.guard = guard
        #: Play stretches at least this long in bulk when nothing can observe the order
        #: (``bulk.py``); None always goes item by item.
        self.bulk_min_span: int | None = bulk.MIN_SPAN_SECONDS
        self.bulk_runs = 0
        #: Wakes the real-time loop when the plans change; it shares the store's lock.
        self.wakeup = threading.Condition(store.lock)
        self.planner = Planner(
            settings=settings, history=history, now=now, notify=self.wakeup.notify_all
        )
        #: The work ahead, read for the clock's moves by events and ``Emulator.pending``.
        self.agenda = Agenda(planner=self.planner, store=store, settings=settings)
        self.settlement = Settlement(
            planner=self.planner,
            store=store,
            settings=settings,
            history=history,
            controls=controls,
            delivery=lambda: self.delivery,
            now=now,
            guard=self.guard,
        )
        # The clock's current whole second, kept here so the hot loop need not convert the
        # clock's datetime for every item.
        self.clock_epoch = floor_epoch(now())

    def _chosen_delivery(self) -> tuple[Any, str | None, float]:
        settings = self.settings.current
        return settings.delivery, settings.delivery_endpoint_url, settings.delivery_timeout

    def follow_delivery_setting(self) -> None:
        """Use the delivery backend the settings name now, if they changed."""
        choice = self._chosen_delivery()
        with self.store.lock:
            if choice == self._delivery_choice:
                return
            previous, self.delivery = self.delivery, delivery_backend(*choice)
            self._delivery_choice = choice
        previous.close()

    def close(self) -> None:
        self.delivery.close()
        self.handler_loop.close(self.settings.current.shutdown_timeout)

    # -- running ---------------------------------------------------------------------------

    def run_until(self, target: datetime) -> MoveAttempts:
        """Process every work item due at or before ``target``; return the newest
        ``max_records`` attempts made, and how many were made."""
        # A long advance allocates millions of records, most of which the history keeps,
        # so full collections would only rescan them, at a cost that grows with the
        # history: measured at half the time of a 10,000-schedule day (``KeptAttempts`` collects
        # the young generations instead).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._run_until(target, collecting)
        finally:
            if collecting:
                gc.enable()
            # What the move did is durable before it returns (with a state path), and so
            # is where it stopped when it raised.
            self.store.commit()

    def _run_until(self, target: datetime, collecting: bool) -> MoveAttempts:
        limit = math.floor(to_epoch(target))
        self.clock_epoch = floor_epoch(self.now())
        cap = self.settings.current.max_attempts_per_advance
        # What a move returns is bounded like the history: its newest ``max_records``; the
        # rest are only counted, so a move holds no more than it keeps.
        made = KeptAttempts(
            self.settings.current.max_records, collecting, lambda: self.history.dropped_records
        )
        if self._run_in_bulk(target, limit, cap, made):
            return made.result()
        lock = self.store.lock
        next_due, pop, process = self.planner.next_due, self.planner.queue.pop, self.process
        settle = self.settlement.settle
        durable = self.store.journal is not None
        while True:
            with lock:
                due = next_due()
                if due is None or due > limit:
                    # Reaching the target under the lock means no change can slip in
                    # stamped before it yet unplayed by this advance.
                    self._set_clock(target)
                    break
                if due > self.clock_epoch:
                    self._advance_clock(due)
                due, item = pop()
                job = process(due, item)
            if job is None:
                continue
            if not self.calls_targets:
                outcome = OK
            else:
                try:
                    outcome = self.deliver(job)
                except HandlerError as error:
                    # A bug in the test's handler: its attempt ends failed for good, and the
                    # move stops at that instant to raise it in the test.
                    settle(job, failed_attempt(error))
                    raise
                except BaseException:
                    # KeyboardInterrupt, SystemExit: let it through, but keep the attempt.
                    self.interrupted(job)
                    raise
            made.add(settle(job, outcome))
            made.collect_if_due()
            if durable:
                # A delivery with effects outside the process is made durable before the
                # next one, so a crash repeats at most the attempt in flight; recorded
                # attempts are seen by no one else until written, so they go in batches.
                self.store.commit(batch=not self.delivery.needs_request)
            if cap is not None and made.count > cap:
                raise self._runaway(made.kept, made.count, cap)
        return made.result()

    def _run_in_bulk(
        self, target: datetime, limit: int, cap: int | None, made: KeptAttempts
    ) -> bool:
        """Play the stretch in bulk, a slice at a time (each about ``bulk.SLICE_ATTEMPTS``
        attempts, so what one holds is bounded), as far as it can; whether it reached
        ``target``. Where a slice cannot be played in bulk, the clock stands at the end of
        the last one played, and item-by-item play carries on from there."""
        if self.bulk_min_span is None or self.calls_targets or self._clock_observed():
            return False
        with self.store.lock:
            head = self.planner.next_due()
            if head is None or limit - head < self.bulk_min_span:
                return False
        span = bulk.MIN_SPAN_SECONDS
        while True:
            before = made.count
            played = self._play_slice(target, limit, span, cap, made)
            if played is None:
                return False
            if played == limit:
                return True
            self.store.commit(batch=True)
            made.collect_if_due()
            span = bulk.next_span(span, made.count - before, len(self.planner.queue))

    def _play_slice(
        self, target: datetime, limit: int, span: int, cap: int | None, made: KeptAttempts
    ) -> int | None:
        """Play the next ``span`` seconds (at most up to ``limit``) in bulk; where that
        slice ended, or None (nothing changed) when it cannot be played in bulk."""
        with self.store.lock:
            head = self.planner.next_due()
            end = limit if head is None else min(limit, max(head, self.clock_epoch) + span)
            played = bulk.play_in_bulk(
                self.planner,
                limit=end,
                start=self.clock_epoch,
                cap=None if cap is None else cap - made.count,
                seed=self.settings.current.seed,
                succeed=lambda job: record(job, OK),
            )
            if played is None:
                return None
            self.bulk_runs += 1
            self.history.add_attempts(played)
            if end == limit:
                self._set_clock(target)
            else:
                self._advance_clock(end)
        self.history.announce(played)
        made.extend(played)
        return end

    def _runaway(self, made: list[Attempt], count: int, cap: int) -> DispatchLimitExceeded:
        busiest = Counter(attempt.producer_key for attempt in made).most_common(5)
        # A rule target is named by its rule and its id: its records name no schedule.
        named = ((rule_target_label(key) or key, count) for key, count in busiest)
        listing = ", ".join(f"{name} ({count} attempts)" for name, count in named)
        return DispatchLimitExceeded(
            f"One clock operation made {count} attempts, more than "
            f"max_attempts_per_advance={cap}; the clock stopped at "
            f"{self.now().isoformat()}. Busiest schedules and rule targets: {listing}. Advance in "
            "smaller steps, or raise or disable (None) the limit."
        )

    def _advance_clock(self, due: int) -> None:
        # An overdue item (a past at() due at its floored activation time) runs at the
        # current instant: the clock never goes back.
        if due > self.clock_epoch:
            self.clock_epoch = due
            self._set_clock(from_epoch(due))

    def process(self, due: int, item: WorkItem) -> Job | None:
        """Do what a due item says; return the attempt to deliver, if it makes one."""
        kind, subject = item.kind, item.subject
        if kind == GENERATE:
            return self._generate(subject, item.nominal, due)
        if kind in (FIRST_ATTEMPT, RETRY):
            return self._prepare(subject, item.number, due)
        if kind == GROUP_REMOVAL:
            group: ScheduleGroup = subject
            self.store.remove_group(group.account_id, group.region, group.name)
            self.history.add_activity(Activity("group_removed", self.now(), group.arn))
            return None
        self.settlement.complete_if_done(subject)
        return None

    def _generate(self, plan: Plan, nominal: int, due: int) -> Job | None:
        planner = self.planner
        plan.next_nominal = None
        if plan.timeline.recurring:
            planner.plan_next(plan, nominal)
        plan.last_dispatched = nominal
        attempt_due = planner.first_attempt_due(plan, nominal, due)
        occurrence = Occurrence(plan, nominal, attempt_due)
        plan.pending.add(occurrence)
        self.history.add_execution(plan.arn, occurrence)
        if attempt_due == due:
            # Nothing can sort between an occurrence's generation and its first attempt at
            # the same instant, so the attempt runs straight away instead of via the queue.
            now = max(due, self.clock_epoch)
            occurrence.first_attempt_at = now
            return Job(occurrence, 1, now, self.settings.current.seed)
        planner.push_attempt(attempt_due, occurrence, 1)
        return None

    def _prepare(self, occurrence: Occurrence, number: int, due: int) -> Job | None:
        if occurrence.status not in (PENDING, RETRYING):
            return None
        now = max(due, self.clock_epoch)
        if number == 1:
            occurrence.first_attempt_at = now
        return Job(occurrence, number, now, self.settings.current.seed)

    @property
    def calls_targets(self) -> bool:
        """Whether an attempt makes a call: the common case, a recording delivery nobody
        steers and no rule target whose input cannot be built, needs none (its outcome is
        OK)."""
        return not self.controls.idle or self.delivery.needs_request or bool(self.planner.broken)

    def deliver(self, job: Job) -> Outcome:
        """The outcome of one attempt: what a test imposes, or what the backend answers; a
        coroutine handler is awaited in the emulator's own event loop."""
        with self.guard.delivering():
            outcome = self._deliver(job)
            if isinstance(outcome, CoroutineCall):
                return self.handler_loop.run(self._guarded(outcome))
            return outcome

    async def _guarded(self, call: CoroutineCall) -> Outcome:
        # The coroutine runs in the loop's thread: that is inside the delivery too.
        with self.guard.delivering():
            return await call.outcome()

    def interrupted(self, job: Job, delay: int = 0) -> None:
        """An attempt that never ended (its delivery raised KeyboardInterrupt, say) is
        recorded as interrupted and made again ``delay`` seconds after it was due: on the
        next move of a virtual clock (0), a while later in real time."""
        occurrence = job.occurrence
        when = "on the next move" if delay == 0 else f"{delay} seconds later"
        with self.store.lock:
            self.history.add_activity(
                occurrence.producer.activity(
                    "interrupted",
                    self.now(),
                    occurrence.nominal,
                    f"attempt {job.number} did not finish; it is made again {when}",
                )
            )
            self.planner.push_attempt(job.attempted_at + delay, occurrence, job.number)

    def _deliver(self, job: Job) -> Outcome | CoroutineCall:
        occurrence = job.occurrence
        if occurrence.broken is not None:
            return occurrence.broken  # nothing can be sent: nothing reaches the target
        controls = self.controls
        if not controls.idle:
            if controls.role_denied(occurrence.schedule.target.role_arn):
                return Outcome.failure("AccessDeniedException", ACCESS_DENIED_MESSAGE, False)
            steered = controls.steer(
                occurrence.target.control_keys,
                occurrence.plan.missing,
                lambda: record(job, OK),
            )
            if steered is not None:
                return steered
        delivery = self.delivery
        if not delivery.needs_request:
            return delivery.deliver(None)
        return delivery.deliver(job.delivery_request())

    def wake(self) -> None:
        """Wake the real-time loop, e.g. to notice that it should stop."""
        with self.wakeup:
            self.wakeup.notify_all()

    # -- inspection and lifecycle ----------------------------------------------------------

    def next_occurrence(self, schedule_arn: str) -> datetime | None:
        """The next nominal time the schedule will generate, if any."""
        with self.store.lock:
            return self.planner.next_occurrence(schedule_arn)

    def reset(self) -> None:
        with self.store.lock:
            self.planner.reset()
