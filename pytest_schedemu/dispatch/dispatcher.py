"""The dispatcher: a heap of due work, run by clock operations in the caller's thread.

Every incarnation of a schedule has a ``_Plan``: its compiled timeline, its activation time
and the latest nominal time it generated. Work items sit in one heap ordered by the
reference's key (due, incarnation, nominal time, attempt number, kind), so a jump of the
clock plays out every occurrence and every retry of the interval in order, each at its own
instant. The store tells the dispatcher about changes (it is the store's observer); items of
a replaced or removed plan are recognised as stale when they come up and are dropped.

Deliveries run outside the store lock: a target handler may call the API over HTTP, and
the server thread must be able to take the lock meanwhile.
"""

from __future__ import annotations

import heapq
import logging
import math
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from pytest_schedemu.dispatch import events
from pytest_schedemu.dispatch.deadletter import build_dead_letter
from pytest_schedemu.dispatch.delivery import (
    ACCESS_DENIED_MESSAGE,
    DeadLetterRequest,
    Delivery,
    DeliveryRequest,
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
from pytest_schedemu.dispatch.targets import TargetPlan, plan_target, queue_url
from pytest_schedemu.errors import DispatchLimitExceeded
from pytest_schedemu.expressions import Timeline, parse_expression, timeline
from pytest_schedemu.model import Schedule, ScheduleGroup
from pytest_schedemu.settings import Settings
from pytest_schedemu.store import Store

logger = logging.getLogger("pytest_schedemu.dispatch")

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NEVER = 1 << 62  # sorts after every real instant and incarnation number

# Work-item kinds, in the reference's tie-break order.
GENERATE, FIRST_ATTEMPT, RETRY, GROUP_REMOVAL, COMPLETION_CHECK = range(5)

# (due, incarnation, nominal, attempt number, kind, sequence, subject, plan version)
_Item = tuple[int, int, int, int, int, int, Any, int]


def _instant(epoch: int) -> datetime:
    return _EPOCH + timedelta(seconds=epoch)


def _epoch(instant: datetime) -> float:
    return (instant - _EPOCH).total_seconds()


def retry_delay(retries_made: int) -> int:
    """Seconds from a failed attempt to the next one: 60 s doubling, capped at one day."""
    return 86400 if retries_made >= 11 else min(86400, 60 << retries_made)


class _Plan:
    """The dispatcher's view of one incarnation."""

    __slots__ = (
        "activation",
        "arn",
        "carries_payload",
        "done_generating",
        "last_dispatched",
        "missing",
        "pending",
        "schedule",
        "seq",
        "target",
        "timeline",
        "version",
    )

    def __init__(self, schedule: Schedule) -> None:
        self.seq = schedule.incarnation
        self.arn = schedule.arn
        self.version = 0
        self.last_dispatched: int | None = None
        self.pending: set[_Occurrence] = set()
        self.schedule = schedule
        self.activation = 0
        self.done_generating = False
        self.timeline: Timeline
        self.target: TargetPlan
        self.missing: Outcome | None = None
        self.carries_payload = True


class _Occurrence:
    """One nominal time of one incarnation, and what happened to it so far."""

    __slots__ = (
        "attempts",
        "event_id",
        "exhausted",
        "first_attempt_at",
        "first_due",
        "nominal",
        "plan",
        "schedule",
        "status",
        "version",
    )

    def __init__(self, plan: _Plan, nominal: int, first_due: int) -> None:
        self.plan = plan
        self.schedule = plan.schedule
        self.version = plan.version
        self.nominal = nominal
        self.first_due = first_due
        self.event_id = events.event_id(plan.arn, nominal)
        self.attempts: list[Attempt] = []
        self.status = PENDING
        self.first_attempt_at: int | None = None
        self.exhausted: str | None = None

    def snapshot(self) -> Execution:
        schedule = self.schedule
        return Execution(
            schedule_arn=self.plan.arn,
            scheduled_time=_instant(self.nominal),
            event_id=self.event_id,
            status=self.status,
            attempts=tuple(self.attempts),
            group_name=schedule.group_name,
            schedule_name=schedule.name,
            first_attempt_due=_instant(self.first_due),
            exhausted_condition=self.exhausted,
        )


class _Job:
    """An attempt that is ready to be delivered."""

    __slots__ = ("attempted_at", "execution_id", "number", "occurrence", "payload", "request")

    def __init__(
        self,
        occurrence: _Occurrence,
        number: int,
        attempted_at: int,
        execution_id: str,
        payload: str | None,
        request: DeliveryRequest,
    ) -> None:
        self.occurrence = occurrence
        self.number = number
        self.attempted_at = attempted_at
        self.execution_id = execution_id
        self.payload = payload
        self.request = request


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
    ) -> None:
        self.store = store
        self.settings = settings
        self.history = history
        self.delivery = delivery
        self.controls = controls
        self._set_clock = set_clock
        self._now = now
        self._heap: list[_Item] = []
        self._sequence = 0
        self._plans: dict[int, _Plan] = {}
        self._occurrences: dict[str, list[_Occurrence]] = {}
        self._wakeup = threading.Condition(store.lock)

    # -- store observer (called with the store lock held) -----------------------------------

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None:
        plan = self._plans.get(schedule.incarnation)
        if plan is None or previous is None:
            plan = _Plan(schedule)
            self._plans[plan.seq] = plan
        else:
            self._cancel_pending(plan, "updated")
        plan.schedule = schedule
        plan.version += 1
        plan.done_generating = False
        plan.activation = math.floor(_epoch(schedule.last_modification_date))
        plan.timeline = timeline(
            parse_expression(schedule.schedule_expression),
            timezone=schedule.timezone,
            start_date=schedule.start_date,
            end_date=schedule.end_date,
            created_at=schedule.creation_date,
        )
        plan.target = plan_target(
            schedule.target,
            schedule_arn=plan.arn,
            queue_url_template=self.settings.sqs_queue_url_template,
        )
        missing = plan.target.missing_error
        plan.missing = None if missing is None else Outcome.failure(*missing, False)
        plan.carries_payload = _carries_payload(plan.target)
        self._plan_first(plan)
        self._wakeup.notify_all()

    def schedule_removed(self, schedule: Schedule, reason: str) -> None:
        plan = self._plans.pop(schedule.incarnation, None)
        if plan is not None:
            plan.version += 1
            self._cancel_pending(plan, reason)

    def group_removal_scheduled(self, group: ScheduleGroup, due: datetime) -> None:
        self._push(math.ceil(_epoch(due)), _NEVER, 0, 0, GROUP_REMOVAL, group, 0)
        self._wakeup.notify_all()

    # -- planning -------------------------------------------------------------------------------

    def _push(
        self, due: int, seq: int, nominal: int, number: int, kind: int, subject: Any, version: int
    ) -> None:
        self._sequence += 1
        heapq.heappush(
            self._heap, (due, seq, nominal, number, kind, self._sequence, subject, version)
        )

    def _plan_first(self, plan: _Plan) -> None:
        schedule = plan.schedule
        if not schedule.enabled:
            return
        if plan.timeline.recurring:
            lower = plan.activation - 1
            if plan.last_dispatched is not None and plan.last_dispatched > lower:
                lower = plan.last_dispatched
            self._plan_next(plan, lower)
            return
        at = plan.timeline.next_after_epoch(-_NEVER)
        if at is None or (plan.last_dispatched is not None and at <= plan.last_dispatched):
            return
        if at >= plan.activation:
            self._push(at, plan.seq, at, 0, GENERATE, plan, plan.version)
        elif self.settings.past_at == "fire":
            # A one-time schedule whose moment has passed is delivered once, straight away.
            self._push(plan.activation, plan.seq, at, 0, GENERATE, plan, plan.version)

    def _plan_next(self, plan: _Plan, after: int) -> None:
        nominal = plan.timeline.next_after_epoch(after)
        if nominal is not None:
            self._push(nominal, plan.seq, nominal, 0, GENERATE, plan, plan.version)
            return
        plan.done_generating = True
        if self._deletes_when_done(plan):
            due = max(plan.activation, after)
            self._push(due, plan.seq, _NEVER, 0, COMPLETION_CHECK, plan, plan.version)

    @staticmethod
    def _deletes_when_done(plan: _Plan) -> bool:
        schedule = plan.schedule
        if schedule.action_after_completion != "DELETE":
            return False
        # A recurring schedule without an EndDate is never complete, even once its cron
        # years run out.
        return not plan.timeline.recurring or schedule.end_date is not None

    def _cancel_pending(self, plan: _Plan, reason: str) -> None:
        if not plan.pending:
            return
        now = self._now()
        for occurrence in sorted(plan.pending, key=lambda o: o.nominal):
            occurrence.status = CANCELLED
            self.history.add_activity(
                Activity("cancelled", now, plan.arn, _instant(occurrence.nominal), reason)
            )
        plan.pending.clear()

    def _current(self, plan: _Plan, version: int) -> bool:
        return self._plans.get(plan.seq) is plan and plan.version == version

    # -- running ---------------------------------------------------------------------------

    def next_due(self) -> int | None:
        """The due time of the earliest live work item, dropping stale ones on the way."""
        heap = self._heap
        while heap:
            item = heap[0]
            kind = item[4]
            if kind == GROUP_REMOVAL:
                return item[0]
            subject = item[6]
            if kind in (FIRST_ATTEMPT, RETRY):
                if subject.status in (PENDING, RETRYING) and self._current(
                    subject.plan, subject.version
                ):
                    return item[0]
            elif self._current(subject, item[7]):
                return item[0]
            heapq.heappop(heap)
        return None

    def run_until(self, target: datetime) -> list[Attempt]:
        """Process every work item due at or before ``target``; return the attempts made."""
        limit = math.floor(_epoch(target))
        cap = self.settings.max_attempts_per_advance
        made: list[Attempt] = []
        lock = self.store.lock
        while True:
            with lock:
                due = self.next_due()
                if due is None or due > limit:
                    break
                item = heapq.heappop(self._heap)
                self._advance_clock(due)
                job = self._process(item)
            if job is None:
                continue
            outcome = self._deliver(job)
            made.append(self._settle(job, outcome))
            if cap is not None and len(made) >= cap and self.next_due_within(limit):
                raise self._runaway(made, cap)
        return made

    def next_due_within(self, limit: int) -> bool:
        with self.store.lock:
            due = self.next_due()
        return due is not None and due <= limit

    def _runaway(self, made: list[Attempt], cap: int) -> DispatchLimitExceeded:
        busiest = Counter(attempt.schedule_arn for attempt in made).most_common(5)
        listing = ", ".join(f"{arn} ({count} attempts)" for arn, count in busiest)
        return DispatchLimitExceeded(
            f"One clock operation made {len(made)} attempts, the limit "
            f"max_attempts_per_advance={cap}; the clock stopped at "
            f"{self._now().isoformat()}. Busiest schedules: {listing}. Advance in smaller "
            "steps, or raise or disable (None) the limit."
        )

    def _advance_clock(self, due: int) -> None:
        # An overdue item (a past at() due at its floored activation time) runs at the
        # current instant: the clock never goes back.
        if due > _epoch(self._now()):
            self._set_clock(_instant(due))

    def _process(self, item: _Item) -> _Job | None:
        due, _, nominal, number, kind, _, subject, _version = item
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

    def _generate(self, plan: _Plan, nominal: int, due: int) -> _Job | None:
        if plan.timeline.recurring:
            self._plan_next(plan, nominal)
        plan.last_dispatched = nominal
        window = plan.schedule.flexible_time_window.maximum_window_in_minutes
        offset = 0
        if window and self.settings.flexible_offsets == "hash":
            offset = events.flexible_offset(self.settings.seed, plan.arn, nominal, window)
        occurrence = _Occurrence(plan, nominal, due + offset)
        plan.pending.add(occurrence)
        self._occurrences.setdefault(plan.arn, []).append(occurrence)
        if offset == 0:
            # Nothing can sort between an occurrence's generation and its first attempt at
            # the same instant, so the attempt runs straight away instead of via the heap.
            return self._prepare(occurrence, 1, due)
        self._push(due + offset, plan.seq, nominal, 1, FIRST_ATTEMPT, occurrence, 0)
        return None

    def _prepare(self, occurrence: _Occurrence, number: int, due: int) -> _Job | None:
        if occurrence.status not in (PENDING, RETRYING):
            return None
        now = max(due, math.floor(_epoch(self._now())))
        if number == 1:
            occurrence.first_attempt_at = now
        plan = occurrence.plan
        execution_id = events.execution_id(self.settings.seed, occurrence.event_id, number)
        target_plan = plan.target
        payload = target_plan.payload(occurrence.nominal, occurrence.event_id, execution_id, number)
        materialized = target_plan.materialize(payload)
        kind = target_plan.kind
        delivery_request = DeliveryRequest(
            target_arn=occurrence.schedule.target.arn,
            target_kind=kind.name,
            role_arn=occurrence.schedule.target.role_arn,
            request=materialized.data,
            request_text=materialized.text,
            service=kind.client,
            operation=kind.operation,
            region=kind.region,
            attempt_number=number,
            attempted_at=_instant(now),
        )
        return _Job(
            occurrence,
            number,
            now,
            execution_id,
            payload if plan.carries_payload else None,
            delivery_request,
        )

    def _deliver(self, job: _Job) -> Outcome:
        plan = job.occurrence.plan
        target = job.occurrence.schedule.target
        if self.controls.idle:
            return self.delivery.deliver(job.request)
        if self.controls.role_denied(target.role_arn):
            return Outcome.failure("AccessDeniedException", ACCESS_DENIED_MESSAGE, False)
        steered = self.controls.steer(
            list(plan.target.control_keys),
            plan.missing,
            lambda: self._record(job, Outcome(True)),
        )
        return steered if steered is not None else self.delivery.deliver(job.request)

    def _record(self, job: _Job, outcome: Outcome) -> Attempt:
        occurrence = job.occurrence
        schedule = occurrence.schedule
        return Attempt(
            schedule_arn=occurrence.plan.arn,
            target_arn=schedule.target.arn,
            scheduled_time=_instant(occurrence.nominal),
            attempted_at=_instant(job.attempted_at),
            attempt_number=job.number,
            event_id=occurrence.event_id,
            execution_id=job.execution_id,
            input=job.payload,
            payload=parse_json(job.payload),
            request=job.request.request,
            succeeded=outcome.ok,
            error_code=outcome.code,
            error_message=outcome.message,
            retryable=None if outcome.ok else outcome.retryable,
            group_name=schedule.group_name,
            schedule_name=schedule.name,
            request_text=job.request.request_text,
        )

    def _settle(self, job: _Job, outcome: Outcome) -> Attempt:
        attempt = self._record(job, outcome)
        dead_letter: DeadLetterRequest | None = None
        with self.store.lock:
            self.history.add_attempt(attempt)
            occurrence = job.occurrence
            occurrence.attempts.append(attempt)
            if occurrence.status not in (PENDING, RETRYING):
                # Cancelled while the attempt was under way: it counts, nothing follows.
                return attempt
            if outcome.ok:
                occurrence.status = SUCCESS
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
                    _instant(occurrence.nominal),
                    f"{attempt.error_code}: {attempt.error_message}",
                )
            )
        with self.store.lock:
            self._resolve(occurrence)
        return attempt

    def _retry_or_exhaust(self, occurrence: _Occurrence, job: _Job, outcome: Outcome) -> str | None:
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
        self, occurrence: _Occurrence, attempt: Attempt, condition: str
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

    def _send_dead_letter(self, occurrence: _Occurrence, request: DeadLetterRequest) -> None:
        outcome = self.controls.steer([request.queue_arn], _MISSING_DLQ, lambda: None)
        if outcome is None:
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
            scheduled_time=_instant(occurrence.nominal),
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
                Activity(kind, now, occurrence.plan.arn, _instant(occurrence.nominal), detail)
            )

    def _resolve(self, occurrence: _Occurrence) -> None:
        plan = occurrence.plan
        plan.pending.discard(occurrence)
        if self._current(plan, occurrence.version):
            self._complete_if_done(plan)

    def _complete_if_done(self, plan: _Plan) -> None:
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
                    now = _epoch(self._now())
                    due = self.next_due()
                    if due is None or due > now:
                        wait = tick_interval if due is None else min(tick_interval, due - now)
                        self._wakeup.wait(max(wait, 0.001))
                        continue
                    job = self._process(heapq.heappop(self._heap))
                if job is not None:
                    pool.submit(self._run_job, job)

    def _run_job(self, job: _Job) -> None:
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
        with self.store.lock:
            return [
                occurrence.snapshot()
                for arn, occurrences in self._occurrences.items()
                if keep(arn)
                for occurrence in occurrences
            ]

    def next_occurrence(self, schedule_arn: str) -> datetime | None:
        """The next nominal time the named schedule will generate, if any."""
        with self.store.lock:
            for plan in self._plans.values():
                if plan.arn == schedule_arn:
                    due = [
                        item[2]
                        for item in self._heap
                        if item[4] == GENERATE and item[6] is plan and item[7] == plan.version
                    ]
                    return _instant(min(due)) if due else None
        return None

    def reset(self) -> None:
        with self.store.lock:
            for plan in self._plans.values():
                plan.version += 1
                self._cancel_pending(plan, "reset")
            self._plans.clear()
            self._heap.clear()
            self._occurrences.clear()


# Kinds whose request never carries the payload (§5.11), unless their Input is given.
_PAYLOAD_FREE_KINDS = frozenset({"sagemaker", "codepipeline", "inspector"})
_INPUT_ONLY_KINDS = frozenset({"ecs", "codebuild"})


def _carries_payload(target: TargetPlan) -> bool:
    name = target.kind.name
    if name in _PAYLOAD_FREE_KINDS:
        return False
    return name not in _INPUT_ONLY_KINDS or target.target.input is not None


_MISSING_DLQ = Outcome.failure(
    "AWS.SimpleQueueService.NonExistentQueue",
    "The specified queue does not exist for this wsdl version.",
    False,
)
