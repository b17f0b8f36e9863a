"""The dispatcher: what plays due work when the clock moves.

Every incarnation of a schedule has a plan (``planner``). Work items (generate an
occurrence, a first attempt, a retry, a group removal, a completion check) sit in one queue
ordered by the reference's key (due, incarnation, nominal time, attempt number, kind), so a
jump of the clock plays out every occurrence and every retry of the interval in order, each
at its own instant, in the caller's thread. ``move`` is the one loop that plays them, for a
sync or an async move of the clock; ``settlement`` decides what follows each outcome;
``bulk`` plays long unobservable stretches at once; ``realtime`` serves a wall clock.

Deliveries run outside the store lock: a target handler may call the API over HTTP, and
the server thread must be able to take the lock meanwhile. A handler has a deadline,
``delivery_timeout``: a clock move makes a sync handler's call in the emulator's handler
thread and awaits a coroutine handler with that timeout, so a handler that never answers
fails its attempt (retryably, ``DeliveryTimeout``) and cannot hold the move.
"""

from __future__ import annotations

import gc
import math
import threading
import time
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
from pytest_schedemu.delivery.handler_thread import HandlerThread
from pytest_schedemu.delivery.handlers import CoroutineCall, HandlerCall, Unanswered
from pytest_schedemu.delivery.steering import TargetControls
from pytest_schedemu.dispatch import bulk
from pytest_schedemu.dispatch.agenda import Agenda
from pytest_schedemu.dispatch.move import Move
from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.dispatch.permissions import Permissions
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.dispatch.producers import TimedWork
from pytest_schedemu.dispatch.queue import FIRST_ATTEMPT, GENERATE, GROUP_REMOVAL, RETRY, WorkItem
from pytest_schedemu.dispatch.settlement import Settlement, record
from pytest_schedemu.formats.times import floor_epoch, from_epoch, to_epoch
from pytest_schedemu.model.resources import ScheduleGroup
from pytest_schedemu.records import PENDING, RETRYING, Activity, History, MoveAttempts
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.iam import DELIVERY_SERVICES
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import DeliveryGuard


def delivery_backend(
    delivery: str | Delivery, endpoint_url: str | None, timeout: float, aws_allowed: bool
) -> Delivery:
    """The backend a ``delivery`` setting names (or is)."""
    if not isinstance(delivery, str):
        return delivery
    if delivery == "boto3":
        from pytest_schedemu.dispatch.forwarding import Boto3Delivery

        return Boto3Delivery(endpoint_url, timeout=timeout, aws_allowed=aws_allowed)
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
        #: What wraps each backend the settings name (``wrap_delivery``), if anything.
        self._wrapper: Callable[[Delivery], Delivery] | None = None
        #: Where coroutine handlers are awaited when no async move awaits them itself.
        self.handler_loop = HandlerLoop()
        #: Where a clock move makes sync handlers' calls, so that it can stop waiting.
        self.handler_thread = HandlerThread()
        #: Places the clock (at a move's target, or at an item's instant).
        self.set_clock = set_clock
        #: The clock's reading, for the loops that run the dispatcher.
        self.now = now
        #: Whether anything follows the clock's moves (a freezegun lockstep).
        self.clock_observed = clock_observed
        #: Marks deliveries, so the clock refuses to move from inside one.
        self.guard = guard
        #: Play stretches at least this long in bulk when nothing can observe the order
        #: (``bulk.py``); None always goes item by item.
        self.bulk_min_span: int | None = bulk.MIN_SPAN_SECONDS
        self.bulk_runs = 0
        #: Wakes the real-time loop when the plans change; it shares the store's lock.
        self.wakeup = threading.Condition(store.lock)
        #: IAM's verdicts on attempts and dead letters, under what the store knows of IAM.
        self.permissions = Permissions(store.iam, settings)
        self.planner = Planner(
            settings=settings,
            history=history,
            now=now,
            notify=self.wakeup.notify_all,
            permits=self.permissions.permits,
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
            permissions=self.permissions,
            now=now,
            guard=self.guard,
        )
        # The clock's current whole second, kept here so the hot loop need not convert the
        # clock's datetime for every item.
        self.clock_epoch = floor_epoch(now())

    def _chosen_delivery(self) -> tuple[Any, str | None, float, bool]:
        settings = self.settings.current
        return (
            settings.delivery,
            settings.delivery_endpoint_url,
            settings.delivery_timeout,
            settings.allow_aws_delivery,
        )

    def follow_delivery_setting(self) -> None:
        """Use the delivery backend the settings name now, if they changed."""
        choice = self._chosen_delivery()
        with self.store.lock:
            if choice == self._delivery_choice:
                return
            backend = delivery_backend(*choice)
            if self._wrapper is not None:
                backend = self._wrapper(backend)
            previous, self.delivery = self.delivery, backend
            self._delivery_choice = choice
        previous.close()

    def wrap_delivery(self, wrapper: Callable[[Delivery], Delivery]) -> None:
        """From now on, deliver through ``wrapper(backend)``, for the backend the settings
        name now and any they name later: how a wing that answers some targets itself (a
        stack's own functions) steps in without the dispatcher learning of it."""
        with self.store.lock:
            self._wrapper = wrapper
            self.delivery = wrapper(self.delivery)

    def defer(self, due: datetime, work: TimedWork) -> None:
        """Put ``work`` on the clock at ``due`` (rounded up to a whole second)."""
        with self.store.lock:
            self.planner.defer(math.ceil(to_epoch(due)), work)

    def close(self) -> None:
        self.delivery.close()
        # Handlers under way get shutdown_timeout, all told, to end; see handler_thread.py
        # for a call that never does.
        deadline = time.monotonic() + self.settings.current.shutdown_timeout
        self.handler_loop.close(self.settings.current.shutdown_timeout)
        self.handler_thread.close(max(0.0, deadline - time.monotonic()))

    # -- running ---------------------------------------------------------------------------

    def learn_service_iam(self) -> None:
        """Read what IAM the services a boto3 delivery reaches declare (moto's roles and
        policies), as a move starts: a policy put there since the last move counts."""
        read = getattr(self.delivery, "read_iam", None)
        settings = self.settings.current
        if read is None or settings.iam == "off":
            return
        with self.store.lock:
            roles, resources = self.permissions.named(self.planner)
        if not roles and not resources:
            return
        declarations = read(settings.region, roles, resources)
        if declarations is not None:
            self.store.iam.declare(DELIVERY_SERVICES, declarations)

    def run_through(self, target: datetime) -> MoveAttempts:
        """Process every work item due at or before ``target``; return the newest
        ``max_records`` attempts made, and how many were made."""
        self.learn_service_iam()
        # A long advance allocates millions of records, most of which the history keeps,
        # so full collections would only rescan them, at a cost that grows with the
        # history: measured at half the time of a 10,000-schedule day (``KeptAttempts`` collects
        # the young generations instead).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return Move(self, target, collect=collecting).play()
        finally:
            if collecting:
                gc.enable()
            # What the move did is durable before it returns (with a state path), and so
            # is where it stopped when it raised.
            self.store.commit()

    async def run_through_async(self, target: datetime) -> MoveAttempts:
        """``run_through``, from a running event loop: its ready tasks take a turn after each
        step of the move (``move.py``), and coroutine handlers are awaited in it."""
        self.learn_service_iam()
        try:
            # The collector stays on: the loop's other tasks run between the steps.
            return await Move(self, target, collect=False).play_async()
        finally:
            self.store.commit()

    def advance_clock(self, due: int) -> None:
        """Move the clock to ``due``, a whole second, unless it stands there or later."""
        # An overdue item (a past at() due at its floored activation time) runs at the
        # current instant: the clock never goes back.
        if due > self.clock_epoch:
            self.clock_epoch = due
            self.set_clock(from_epoch(due))

    def process(self, due: int, item: WorkItem) -> Job | None:
        """Do what a due item says; return the attempt to deliver, if it makes one. Timed
        work is not for here: it runs outside the store's lock (``move``, ``realtime``)."""
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
        steers, no rule target whose input cannot be built and none that IAM refuses, needs
        none (its outcome is OK)."""
        return (
            not self.controls.idle
            or self.delivery.needs_request
            or bool(self.planner.broken)
            or self.permissions.any_refused(self.planner, self.store.lock)
        )

    def deliver(self, job: Job, *, in_this_thread: bool = False) -> Outcome:
        """The outcome of one attempt: what a test imposes, or what the backend answers.

        A handler gets ``delivery_timeout`` seconds: a sync one runs in the handler thread
        (or in this one, ``in_this_thread``, for a caller that bounds it itself), a
        coroutine handler is awaited in the emulator's own event loop.
        """
        with self.guard.delivering():
            answer = self.call_target(job)
            if not isinstance(answer, HandlerCall):
                return answer
            timeout = self.settings.current.delivery_timeout
            started = time.monotonic()
            try:
                called = answer.run() if in_this_thread else self.call_handler(answer, timeout)
                if not isinstance(called, CoroutineCall):
                    return called
                left = max(0.0, timeout - (time.monotonic() - started))
                return self.handler_loop.run(self._guarded(called), left)
            except Unanswered as unanswered:
                return unanswered.outcome(timeout)

    def call_handler(self, call: HandlerCall, timeout: float) -> Outcome | CoroutineCall:
        """What a handler's call comes to, made in the handler thread within ``timeout``
        seconds (``Unanswered`` past them); a coroutine function's call, which runs none of
        its code, is made here."""
        if call.makes_coroutine:
            return call.run()
        return self.handler_thread.run(call.run, timeout)

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

    def call_target(self, job: Job) -> Outcome | HandlerCall:
        """What the attempt's target answers, or what a test imposes: an outcome, or a
        handler's call still to make. The caller marks the delivery."""
        occurrence = job.occurrence
        if occurrence.broken is not None:
            return occurrence.broken  # nothing can be sent: nothing reaches the target
        controls = self.controls
        if not controls.idle and controls.role_denied(occurrence.schedule.target.role_arn):
            return Outcome.failure("AccessDeniedException", ACCESS_DENIED_MESSAGE, False)
        refused = self.permissions.attempt(occurrence.producer)
        if refused is not None:
            return refused  # IAM refuses it: it never reaches the target
        if not controls.idle:
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
