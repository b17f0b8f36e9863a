"""Settlement: what follows an attempt's outcome (§6).

A success settles the occurrence. A retryable failure queues the next attempt by the retry
policy, unless the policy is exhausted; an exhausted or permanent failure sends the dead
letter (or records the drop). An occurrence settled for good may complete its schedule,
which then deletes itself (ActionAfterCompletion DELETE).
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from pytest_schedemu.delivery.backends import DeadLetterRequest, Delivery, Outcome
from pytest_schedemu.delivery.steering import TargetControls
from pytest_schedemu.dispatch.occurrences import Job, Occurrence, Plan
from pytest_schedemu.dispatch.permissions import Permissions
from pytest_schedemu.dispatch.planner import Planner
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.model.resources import RetryPolicy
from pytest_schedemu.records import (
    INVOCATION_ERROR,
    PENDING,
    RETRYING,
    SUCCESS,
    Attempt,
    DeadLetter,
    History,
)
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store
from pytest_schedemu.targets import missing_target_error, target_kind
from pytest_schedemu.timekeeping.clock import DeliveryGuard


def too_old(first_due: int, policy: RetryPolicy, instant: int) -> bool:
    """Whether an occurrence whose first attempt was (or is) due at ``first_due`` is too old
    to attempt at ``instant``: past its policy's ``MaximumEventAgeInSeconds``."""
    return instant > first_due + policy.maximum_event_age_in_seconds


def record(job: Job, outcome: Outcome) -> Attempt:
    """The attempt record of ``job`` ending with ``outcome``; its other fields are lazy."""
    known = job.occurrence.record_fields.copy()
    known["attempt_number"] = job.number
    if not outcome.ok:
        known["succeeded"] = False
        known["error_code"] = outcome.code
        known["error_message"] = outcome.message
        known["retryable"] = outcome.retryable
    return Attempt.lazily(known, job)


def record_success(job: Job) -> Attempt:
    """``record(job, OK)``, made without looking at an outcome: bulk play makes one for
    every attempt."""
    known = job.occurrence.record_fields.copy()
    known["attempt_number"] = job.number
    return Attempt.lazily(known, job)


class Settlement:
    def __init__(
        self,
        *,
        planner: Planner,
        store: Store,
        settings: LiveSettings,
        history: History,
        controls: TargetControls,
        delivery: Callable[[], Delivery],
        permissions: Permissions,
        now: Callable[[], datetime],
        guard: DeliveryGuard,
    ) -> None:
        self._planner = planner
        self._store = store
        self._settings = settings
        self._history = history
        self._controls = controls
        self._delivery = delivery
        self._permissions = permissions
        self._now = now
        self._guard = guard

    def settle(self, job: Job, outcome: Outcome) -> Attempt:
        """Record the attempt and do what its outcome calls for."""
        attempt = record(job, outcome)
        self._settle(job, attempt, outcome, None)
        self._history.announce((attempt,))
        return attempt

    def settle_unless_reset(self, job: Job, outcome: Outcome, generation: int) -> None:
        """``settle`` an attempt delivered on another thread, whose job was made when the
        history was at ``generation``; after a reset since, it and all that would follow
        from it are forgotten."""
        attempt = record(job, outcome)
        if self._settle(job, attempt, outcome, generation):
            self._history.announce((attempt,))

    def _settle(self, job: Job, attempt: Attempt, outcome: Outcome, generation: int | None) -> bool:
        """Whether the attempt was recorded (a reset since ``generation`` forgets it)."""
        occurrence = job.occurrence
        with self._store.lock:
            # A reset takes the store's lock, so none can come between this and the record.
            if generation is not None and generation != self._history.generation:
                return False
            self._history.add_attempts((attempt,))
            occurrence.attempts.append(attempt)
            if occurrence.status not in (PENDING, RETRYING):
                # Cancelled while the attempt was under way: it counts, nothing follows.
                return True
            if outcome.ok:
                occurrence.status = SUCCESS
                plan = occurrence.plan
                plan.pending.discard(occurrence)
                if plan.schedule.action_after_completion == "DELETE":
                    self.resolve(occurrence)
                return True
            condition = self._retry_or_exhaust(occurrence, job, outcome)
            if condition is None:
                return True
            occurrence.status = INVOCATION_ERROR
            occurrence.exhausted = condition
            dead_letter = self._dead_letter_for(occurrence, attempt, condition)
        self._give_up(occurrence, attempt, dead_letter, generation)
        return True

    def _give_up(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        dead_letter: DeadLetterRequest | None,
        generation: int | None = None,
    ) -> None:
        """Send the dead letter of an occurrence that ended failed (or record its drop), then
        resolve it. Called without the store lock: a delivery backend may take its time, and
        a reset may come meanwhile, which the history's ``generation`` check then honours."""
        if dead_letter is not None:
            self._send_dead_letter(occurrence, attempt, dead_letter, generation)
        else:
            self._history.add_activity(
                occurrence.producer.activity(
                    "dropped",
                    self._now(),
                    occurrence.nominal,
                    f"{attempt.error_code}: {attempt.error_message}",
                ),
                generation,
            )
        with self._store.lock:
            self.resolve(occurrence)

    def resume_giving_up(self, occurrence: Occurrence) -> None:
        """Finish giving up on an occurrence that ended failed but whose dead letter (or
        drop) a crash left unrecorded: what a restored state asks for."""
        attempt = occurrence.attempts[-1]
        assert occurrence.exhausted is not None
        with self._store.lock:
            dead_letter = self._dead_letter_for(occurrence, attempt, occurrence.exhausted)
        self._give_up(occurrence, attempt, dead_letter)

    def _retry_or_exhaust(self, occurrence: Occurrence, job: Job, outcome: Outcome) -> str | None:
        """Queue the next attempt, or name why the occurrence is exhausted."""
        if not outcome.retryable:
            return "permanent"
        policy = occurrence.schedule.target.retry_policy
        if job.number - 1 >= policy.maximum_retry_attempts:
            return "MaximumRetryAttempts"
        number, due = occurrence.plan.retry(job.number, job.attempted_at)
        assert occurrence.first_attempt_at is not None
        if too_old(occurrence.first_attempt_at, policy, due):
            return "MaximumEventAgeInSeconds"
        occurrence.status = RETRYING
        self._planner.push_attempt(due, occurrence, number)
        return None

    def _dead_letter_for(
        self, occurrence: Occurrence, attempt: Attempt, condition: str
    ) -> DeadLetterRequest | None:
        queue_arn = occurrence.schedule.target.dead_letter_arn
        if queue_arn is None:
            return None
        producer = occurrence.producer
        return producer.dead_letter(
            occurrence, attempt, condition, queue_arn, self._settings.current
        )

    def _send_dead_letter(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        request: DeadLetterRequest,
        generation: int | None,
    ) -> None:
        missing = missing_target_error(target_kind(request.queue_arn), request.queue_arn)
        refused = self._permissions.dead_letter(occurrence.producer)
        if missing is not None and self._controls.is_missing(request.queue_arn):
            outcome = Outcome.failure(*missing, False)
        elif refused is not None:
            outcome = refused  # IAM refuses the send: recorded as dlq_failed, with why
        else:
            with self._guard.delivering():
                outcome = self._delivery().send_dead_letter(request)
        attributes = {
            name: value["StringValue"] for name, value in request.message_attributes.items()
        }
        now = self._now()
        producer = occurrence.producer
        if outcome.ok:
            self._history.add_dead_letter(
                DeadLetter(
                    queue_arn=request.queue_arn,
                    body=request.body,
                    payload=jsontext.loads_or_none(request.body),
                    attributes=attributes,
                    scheduled_time=from_epoch(occurrence.nominal),
                    sent_at=now,
                    queue_url=request.queue_url,
                    # The producer read it to build the body: no second rendering.
                    input=attempt.input,
                    **producer.identity,
                ),
                generation,
            )
            kind, detail = "dead_lettered", request.queue_arn
        else:
            kind, detail = "dlq_failed", f"{outcome.code}: {outcome.message}"
        activity = producer.activity(kind, now, occurrence.nominal, detail)
        self._history.add_activity(activity, generation)

    def resolve(self, occurrence: Occurrence) -> None:
        """An occurrence is settled for good: its schedule may now be complete."""
        plan = occurrence.plan
        plan.pending.discard(occurrence)  # harmless when it is already gone
        if self._planner.is_current(plan, occurrence.version):
            self.complete_if_done(plan)

    def complete_if_done(self, plan: Plan) -> None:
        """Delete a schedule that has nothing left to do, if it asked to be."""
        if (
            not self._planner.deletes_when_done(plan)
            or plan.pending
            or self._planner.plans.get(plan.seq) is not plan
        ):
            return
        if plan.timeline.recurring and not plan.done_generating:
            return
        if not plan.timeline.recurring and plan.last_dispatched is None:
            return
        schedule = plan.schedule
        self._store.delete_schedule(
            schedule.account_id,
            schedule.region,
            schedule.group_name,
            schedule.name,
            reason="auto_deleted",
        )
        self._history.add_activity(plan.producer.activity("auto_deleted", self._now()))
