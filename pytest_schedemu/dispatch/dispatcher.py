"""The dispatcher: a queue of due work, run by clock operations in the caller's thread.

Every incarnation of a schedule has a ``Plan``. Work items (generate an occurrence, a first
attempt, a retry, a group removal, a completion check) sit in one queue ordered by the
reference's key (due, incarnation, nominal time, attempt number, kind), so a jump of the
clock plays out every occurrence and every retry of the interval in order, each at its own
instant. The store tells the dispatcher about changes (it is the store's observer); items of
a replaced or removed plan are recognised as stale when they come up and are dropped.

Deliveries run outside the store lock: a target handler may call the API over HTTP, and
the server thread must be able to take the lock meanwhile.
"""

from __future__ import annotations

import gc
import logging
import math
import threading
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.dispatch import bulk, events
from pytest_schedemu.dispatch.deadletter import build_dead_letter
from pytest_schedemu.dispatch.delivery import (
    ACCESS_DENIED_MESSAGE,
    OK,
    DeadLetterRequest,
    Delivery,
    Outcome,
    TargetControls,
)
from pytest_schedemu.dispatch.history import (
    CANCELLED,
    INVOCATION_ERROR,
    PENDING,
    RETRYING,
    SUCCESS,
    Activity,
    Attempt,
    DeadLetter,
    Execution,
    History,
    parse_json,
)
from pytest_schedemu.dispatch.occurrences import (
    LAST_INSTANT,
    NEVER,
    Job,
    Occurrence,
    Plan,
    epoch,
    instant,
    retry_delay,
)
from pytest_schedemu.dispatch.queue import Entry, WorkQueue
from pytest_schedemu.dispatch.targets import plan_target, queue_url
from pytest_schedemu.errors import DispatchLimitExceeded
from pytest_schedemu.expressions import parse_expression, timeline
from pytest_schedemu.model import Schedule, ScheduleGroup
from pytest_schedemu.settings import Settings
from pytest_schedemu.store import Store

logger = logging.getLogger("pytest_schedemu.dispatch")

# Work-item kinds, in the reference's tie-break order.
GENERATE, FIRST_ATTEMPT, RETRY, GROUP_REMOVAL, COMPLETION_CHECK = range(5)


class Dispatcher:
    """Plans occurrences from the store's changes and runs them when the clock moves."""

    def __init__(
        self,
        *,
        store: Store,
        settings: Settings,
        history: History,
        delivery: Delivery,
        controls: TargetControls,
        set_clock: Callable[[datetime], None],
        now: Callable[[], datetime],
        clock_observed: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.settings = settings
        self.history = history
        self.delivery = delivery
        self.controls = controls
        self._set_clock = set_clock
        self._now = now
        self._clock_observed = clock_observed
        #: Play stretches at least this long in bulk when nothing can observe the order
        #: (``bulk.py``); None always goes item by item.
        self.bulk_min_span: int | None = bulk.MIN_SPAN_SECONDS
        self.bulk_runs = 0
        self._queue = WorkQueue()
        self._sequence = 0
        self._plans: dict[int, Plan] = {}
        # Each ARN's incarnations' occurrence lists, oldest incarnation first.
        self._occurrences: dict[str, list[list[Occurrence]]] = {}
        # Every occurrence kept for executions(), oldest first, so that ``max_records``
        # bounds them as it bounds the attempts.
        self._retained: deque[Occurrence] = deque()
        self._wakeup = threading.Condition(store.lock)
        # The clock's current whole second, kept here so the hot loop need not convert the
        # clock's datetime for every item.
        self._clock_epoch = math.floor(epoch(now()))

    # -- store observer (called with the store lock held) -----------------------------------

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None:
        plan = self._plans.get(schedule.incarnation)
        if plan is None or previous is None:
            plan = Plan(schedule)
            self._plans[plan.seq] = plan
            self._occurrences.setdefault(plan.arn, []).append(plan.occurrences)
        else:
            self._cancel_pending(plan, "updated")
        plan.define(
            schedule,
            timeline(
                parse_expression(schedule.schedule_expression),
                timezone=schedule.timezone,
                start_date=schedule.start_date,
                end_date=schedule.end_date,
                created_at=schedule.creation_date,
            ),
            plan_target(
                schedule.target,
                schedule_arn=plan.arn,
                queue_url_template=self.settings.sqs_queue_url_template,
            ),
        )
        self._plan_first(plan)
        self._wakeup.notify_all()

    def schedule_removed(self, schedule: Schedule, reason: str) -> None:
        plan = self._plans.pop(schedule.incarnation, None)
        if plan is not None:
            plan.version += 1
            self._cancel_pending(plan, reason)

    def group_removal_scheduled(self, group: ScheduleGroup, due: datetime) -> None:
        self._push(math.ceil(epoch(due)), NEVER, 0, 0, GROUP_REMOVAL, group, 0)
        self._wakeup.notify_all()

    # -- planning -------------------------------------------------------------------------------

    def _push(
        self, due: int, seq: int, nominal: int, number: int, kind: int, subject: Any, version: int
    ) -> None:
        self._sequence += 1
        self._queue.push(due, (seq, nominal, number, kind, self._sequence, subject, version))

    def _plan_first(self, plan: Plan) -> None:
        schedule = plan.schedule
        if not schedule.enabled:
            return
        if plan.timeline.recurring:
            lower = plan.activation - 1
            if plan.last_dispatched is not None and plan.last_dispatched > lower:
                lower = plan.last_dispatched
            self._plan_next(plan, lower)
            return
        at = plan.timeline.next_after_epoch(-NEVER)
        if at is None or (plan.last_dispatched is not None and at <= plan.last_dispatched):
            return
        if at >= plan.activation:
            self._push(at, plan.seq, at, 0, GENERATE, plan, plan.version)
        elif self.settings.past_at == "fire":
            # A one-time schedule whose moment has passed is delivered once, straight away.
            self._push(plan.activation, plan.seq, at, 0, GENERATE, plan, plan.version)

    def _plan_next(self, plan: Plan, after: int) -> None:
        nominal = plan.timeline.next_after_epoch(after)
        if nominal is not None:
            self._push(nominal, plan.seq, nominal, 0, GENERATE, plan, plan.version)
            return
        plan.done_generating = True
        if self._deletes_when_done(plan):
            due = max(plan.activation, after)
            self._push(due, plan.seq, NEVER, 0, COMPLETION_CHECK, plan, plan.version)

    @staticmethod
    def _deletes_when_done(plan: Plan) -> bool:
        schedule = plan.schedule
        if schedule.action_after_completion != "DELETE":
            return False
        # A recurring schedule without an EndDate is never complete, even once its cron
        # years run out.
        return not plan.timeline.recurring or schedule.end_date is not None

    def _cancel_pending(self, plan: Plan, reason: str) -> None:
        if not plan.pending:
            return
        now = self._now()
        for occurrence in sorted(plan.pending, key=lambda o: o.nominal):
            occurrence.status = CANCELLED
            self.history.add_activity(
                Activity("cancelled", now, plan.arn, instant(occurrence.nominal), reason)
            )
        plan.pending.clear()

    def _current(self, plan: Plan, version: int) -> bool:
        return self._plans.get(plan.seq) is plan and plan.version == version

    # -- running ---------------------------------------------------------------------------

    def next_due(self) -> int | None:
        """The due time of the earliest live work item, dropping stale ones on the way."""
        queue = self._queue
        while True:
            head = queue.peek()
            if head is None:
                return None
            due, entry = head
            kind = entry[3]
            if kind == GROUP_REMOVAL:
                return due
            subject = entry[5]
            if kind in (FIRST_ATTEMPT, RETRY):
                if subject.status in (PENDING, RETRYING) and self._current(
                    subject.plan, subject.version
                ):
                    return due
            elif self._current(subject, entry[6]):
                return due
            queue.pop()

    def run_until(self, target: datetime) -> list[Attempt]:
        """Process every work item due at or before ``target``; return the attempts made."""
        # A long advance allocates millions of records that all stay alive (the history
        # keeps them), so the cyclic collector only rescans them, at a cost that grows
        # with the history: measured at half the time of a 10,000-schedule day.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._run_until(target)
        finally:
            self._forget_oldest_executions()
            if collecting:
                gc.enable()

    def _forget_oldest_executions(self) -> None:
        cap = self.history.max_records
        retained = self._retained
        if cap is None or len(retained) <= cap:
            return
        with self.store.lock:
            # A twentieth more than needed, as for attempts: trimming is a list shift.
            dropped: Counter[int] = Counter()
            plans: dict[int, Plan] = {}
            for _ in range(len(retained) - cap + max(1, cap // 20)):
                plan = retained.popleft().plan
                dropped[id(plan)] += 1
                plans[id(plan)] = plan
            for key, count in dropped.items():
                del plans[key].occurrences[:count]

    def _run_until(self, target: datetime) -> list[Attempt]:
        limit = math.floor(epoch(target))
        self._clock_epoch = math.floor(epoch(self._now()))
        cap = self.settings.max_attempts_per_advance
        made = self._run_in_bulk(target, limit, cap)
        if made is not None:
            return made
        made = []
        lock = self.store.lock
        next_due, pop, process = self.next_due, self._queue.pop, self._process
        controls, delivery = self.controls, self.delivery
        while True:
            with lock:
                due = next_due()
                if due is None or due > limit:
                    # Reaching the target under the lock means no change can slip in
                    # stamped before it yet unplayed by this advance.
                    self._set_clock(target)
                    break
                if due > self._clock_epoch:
                    self._advance_clock(due)
                job = process(*pop())
            if job is None:
                continue
            # The common case, a recording delivery nobody steers, needs no call at all.
            idle = controls.idle and not delivery.needs_request
            outcome = OK if idle else self._deliver(job)
            made.append(self._settle(job, outcome))
            if cap is not None and len(made) > cap:
                raise self._runaway(made, cap)
        return made

    def _run_in_bulk(self, target: datetime, limit: int, cap: int | None) -> list[Attempt] | None:
        if (
            self.bulk_min_span is None
            or not self.controls.idle
            or self.delivery.needs_request
            or self._clock_observed()
        ):
            return None
        with self.store.lock:
            head = self.next_due()
            if head is None or limit - head < self.bulk_min_span:
                return None
            made = bulk.play_in_bulk(
                self._queue,
                limit=limit,
                start=self._clock_epoch,
                cap=cap,
                seed=self.settings.seed,
                is_current=self._current,
                offset=self._offset,
                push=self._push,
                record=lambda job: self._record(job, OK),
                retain=self._retained.append,
            )
            if made is not None:
                self.bulk_runs += 1
                self.history.add_attempts(made)
                self._set_clock(target)
            return made

    def _runaway(self, made: list[Attempt], cap: int) -> DispatchLimitExceeded:
        busiest = Counter(attempt.schedule_arn for attempt in made).most_common(5)
        listing = ", ".join(f"{arn} ({count} attempts)" for arn, count in busiest)
        return DispatchLimitExceeded(
            f"One clock operation made {len(made)} attempts, more than "
            f"max_attempts_per_advance={cap}; the clock stopped at "
            f"{self._now().isoformat()}. Busiest schedules: {listing}. Advance in smaller "
            "steps, or raise or disable (None) the limit."
        )

    def _advance_clock(self, due: int) -> None:
        # An overdue item (a past at() due at its floored activation time) runs at the
        # current instant: the clock never goes back.
        if due > self._clock_epoch:
            self._clock_epoch = due
            self._set_clock(instant(due))

    def _process(self, due: int, entry: Entry) -> Job | None:
        _, nominal, number, kind, _, subject, _version = entry
        if kind == GENERATE:
            return self._generate(subject, nominal, due)
        if kind in (FIRST_ATTEMPT, RETRY):
            return self._prepare(subject, number, due)
        if kind == GROUP_REMOVAL:
            group: ScheduleGroup = subject
            self.store.remove_group(group.account_id, group.region, group.name)
            self.history.add_activity(Activity("group_removed", self._now(), group.arn))
            return None
        self._complete_if_done(subject)
        return None

    def _generate(self, plan: Plan, nominal: int, due: int) -> Job | None:
        if plan.timeline.recurring:
            self._plan_next(plan, nominal)
        plan.last_dispatched = nominal
        offset = self._offset(plan, nominal)
        occurrence = Occurrence(plan, nominal, due + offset)
        plan.pending.add(occurrence)
        plan.occurrences.append(occurrence)
        self._retained.append(occurrence)
        if offset == 0:
            # Nothing can sort between an occurrence's generation and its first attempt at
            # the same instant, so the attempt runs straight away instead of via the queue.
            now = max(due, self._clock_epoch)
            occurrence.first_attempt_at = now
            return Job(occurrence, 1, now, self.settings.seed)
        self._push(due + offset, plan.seq, nominal, 1, FIRST_ATTEMPT, occurrence, 0)
        return None

    def _offset(self, plan: Plan, nominal: int) -> int:
        """Seconds from a nominal time to its first attempt (the flexible window)."""
        window = plan.schedule.flexible_time_window.maximum_window_in_minutes
        if not window or self.settings.flexible_offsets != "hash":
            return 0
        return events.flexible_offset(self.settings.seed, plan.arn, nominal, window)

    def _prepare(self, occurrence: Occurrence, number: int, due: int) -> Job | None:
        if occurrence.status not in (PENDING, RETRYING):
            return None
        now = max(due, self._clock_epoch)
        if number == 1:
            occurrence.first_attempt_at = now
        return Job(occurrence, number, now, self.settings.seed)

    def _deliver(self, job: Job) -> Outcome:
        occurrence = job.occurrence
        if not self.controls.idle:
            if self.controls.role_denied(occurrence.schedule.target.role_arn):
                return Outcome.failure("AccessDeniedException", ACCESS_DENIED_MESSAGE, False)
            steered = self.controls.steer(
                occurrence.target.control_keys,
                occurrence.plan.missing,
                lambda: self._record(job, Outcome(True)),
            )
            if steered is not None:
                return steered
        if not self.delivery.needs_request:
            return self.delivery.deliver(None)
        return self.delivery.deliver(job.delivery_request())

    def _record(self, job: Job, outcome: Outcome) -> Attempt:
        known = job.occurrence.record_fields.copy()
        known["attempt_number"] = job.number
        if not outcome.ok:
            known["succeeded"] = False
            known["error_code"] = outcome.code
            known["error_message"] = outcome.message
            known["retryable"] = outcome.retryable
        return Attempt.lazily(known, job)

    def _settle(self, job: Job, outcome: Outcome) -> Attempt:
        attempt = self._record(job, outcome)
        occurrence = job.occurrence
        with self.store.lock:
            self.history.add_attempt(attempt)
            occurrence.attempts.append(attempt)
            if occurrence.status not in (PENDING, RETRYING):
                # Cancelled while the attempt was under way: it counts, nothing follows.
                return attempt
            if outcome.ok:
                occurrence.status = SUCCESS
                plan = occurrence.plan
                plan.pending.discard(occurrence)
                if plan.schedule.action_after_completion == "DELETE":
                    self._resolve(occurrence)
                return attempt
            condition = self._retry_or_exhaust(occurrence, job, outcome)
            if condition is None:
                return attempt
            occurrence.status = INVOCATION_ERROR
            occurrence.exhausted = condition
            dead_letter = self._dead_letter_for(occurrence, attempt, condition)
        if dead_letter is not None:
            self._send_dead_letter(occurrence, dead_letter)
        else:
            self.history.add_activity(
                Activity(
                    "dropped",
                    self._now(),
                    occurrence.plan.arn,
                    instant(occurrence.nominal),
                    f"{attempt.error_code}: {attempt.error_message}",
                )
            )
        with self.store.lock:
            self._resolve(occurrence)
        return attempt

    def _retry_or_exhaust(self, occurrence: Occurrence, job: Job, outcome: Outcome) -> str | None:
        """Queue the next attempt, or name why the occurrence is exhausted."""
        if not outcome.retryable:
            return "permanent"
        policy = occurrence.schedule.target.retry_policy
        retries_made = job.number - 1
        if retries_made >= policy.maximum_retry_attempts:
            return "MaximumRetryAttempts"
        next_due = job.attempted_at + retry_delay(retries_made)
        assert occurrence.first_attempt_at is not None
        if next_due > occurrence.first_attempt_at + policy.maximum_event_age_in_seconds:
            return "MaximumEventAgeInSeconds"
        occurrence.status = RETRYING
        plan = occurrence.plan
        self._push(next_due, plan.seq, occurrence.nominal, job.number + 1, RETRY, occurrence, 0)
        return None

    def _dead_letter_for(
        self, occurrence: Occurrence, attempt: Attempt, condition: str
    ) -> DeadLetterRequest | None:
        queue_arn = occurrence.schedule.target.dead_letter_arn
        if queue_arn is None:
            return None
        message = build_dead_letter(
            body=attempt.request_text,
            error_code=attempt.error_code or "",
            error_message=attempt.error_message or "",
            execution_id=attempt.execution_id,
            exhausted_condition=None if condition == "permanent" else condition,
            retry_attempts=attempt.attempt_number - 1,
            scheduled_time=occurrence.nominal,
            schedule_arn=occurrence.plan.arn,
            target_arn=attempt.target_arn,
        )
        return DeadLetterRequest(
            queue_arn=queue_arn,
            queue_url=queue_url(queue_arn, self.settings.sqs_queue_url_template) or "",
            body=message.body,
            message_attributes=message.message_attributes,
        )

    def _send_dead_letter(self, occurrence: Occurrence, request: DeadLetterRequest) -> None:
        if self.controls.is_missing(request.queue_arn):
            outcome = _MISSING_DLQ
        else:
            outcome = self.delivery.send_dead_letter(request)
        attributes = {
            name: value["StringValue"] for name, value in request.message_attributes.items()
        }
        now = self._now()
        letter = DeadLetter(
            queue_arn=request.queue_arn,
            body=request.body,
            payload=parse_json(request.body),
            attributes=attributes,
            schedule_arn=occurrence.plan.arn,
            scheduled_time=instant(occurrence.nominal),
            sent_at=now,
            queue_url=request.queue_url,
            delivered=outcome.ok,
        )
        with self.store.lock:
            if outcome.ok:
                self.history.add_dead_letter(letter)
                kind, detail = "dead_lettered", request.queue_arn
            else:
                kind, detail = "dlq_failed", f"{outcome.code}: {outcome.message}"
            self.history.add_activity(
                Activity(kind, now, occurrence.plan.arn, instant(occurrence.nominal), detail)
            )

    def _resolve(self, occurrence: Occurrence) -> None:
        plan = occurrence.plan
        plan.pending.discard(occurrence)  # harmless when it is already gone
        if self._current(plan, occurrence.version):
            self._complete_if_done(plan)

    def _complete_if_done(self, plan: Plan) -> None:
        if (
            not self._deletes_when_done(plan)
            or plan.pending
            or self._plans.get(plan.seq) is not plan
        ):
            return
        if plan.timeline.recurring and not plan.done_generating:
            return
        if not plan.timeline.recurring and plan.last_dispatched is None:
            return
        schedule = plan.schedule
        self.store.delete_schedule(
            schedule.account_id,
            schedule.region,
            schedule.group_name,
            schedule.name,
            reason="auto_deleted",
        )
        self.history.add_activity(Activity("auto_deleted", self._now(), plan.arn))

    # -- real-time mode --------------------------------------------------------------------

    def serve_real_time(self, stop: threading.Event, tick_interval: float, workers: int) -> None:
        """Deliver what falls due as wall-clock time passes, until ``stop`` is set.

        The thread sleeps until the next due item (at most ``tick_interval`` seconds) and is
        woken early by schedule changes; deliveries run on a pool, so a slow target delays
        nothing else, and an occurrence whose predecessor is still being delivered starts
        in parallel.
        """
        with ThreadPoolExecutor(workers, thread_name_prefix="schedemu-delivery") as pool:
            while not stop.is_set():
                with self._wakeup:
                    now = epoch(self._now())
                    self._clock_epoch = math.floor(now)
                    due = self.next_due()
                    if due is None or due > now:
                        wait = tick_interval if due is None else min(tick_interval, due - now)
                        self._wakeup.wait(max(wait, 0.001))
                        continue
                    job = self._process(*self._queue.pop())
                if job is not None:
                    pool.submit(self._run_job, job)

    def _run_job(self, job: Job) -> None:
        try:
            self._settle(job, self._deliver(job))
        except Exception:
            logger.exception("delivery of %s failed inside the emulator", job.occurrence.plan.arn)
        self.wake()

    def wake(self) -> None:
        with self._wakeup:
            self._wakeup.notify_all()

    # -- inspection and lifecycle ----------------------------------------------------------

    def executions(self, keep: Callable[[str], bool]) -> list[Execution]:
        # An occurrence still waiting out its flexible window has no history yet: it is
        # listed once its first attempt is made, or once it is cancelled.
        with self.store.lock:
            return [
                occurrence.snapshot()
                for arn, incarnations in self._occurrences.items()
                if keep(arn)
                for occurrences in incarnations
                for occurrence in occurrences
                if occurrence.status != PENDING
            ]

    def next_occurrence(self, schedule_arn: str) -> datetime | None:
        """The next nominal time the named schedule will generate, if any."""
        with self.store.lock:
            for plan in self._plans.values():
                if plan.arn == schedule_arn:
                    # A nominal time past the year 9999 is one the clock can never reach.
                    nominals = [
                        entry[1]
                        for _, entry in self._queue.entries()
                        if entry[3] == GENERATE
                        and entry[5] is plan
                        and entry[6] == plan.version
                        and entry[1] <= LAST_INSTANT
                    ]
                    return instant(min(nominals)) if nominals else None
        return None

    def reset(self) -> None:
        with self.store.lock:
            for plan in self._plans.values():
                plan.version += 1
                self._cancel_pending(plan, "reset")
            self._plans.clear()
            self._queue.clear()
            self._retained.clear()
            self._occurrences.clear()


_MISSING_DLQ = Outcome.failure(
    "AWS.SimpleQueueService.NonExistentQueue",
    "The specified queue does not exist for this wsdl version.",
    False,
)
