"""Planning: a plan per live incarnation, and the queue of the work they fall due with.

The planner is the store's observer. A created or updated schedule gets a plan (its
compiled timeline and prepared target) and its next occurrence queued; a removed one has
its pending work cancelled. Items of a replaced or removed plan stay in the queue until
they come up (or a compaction sweeps them) and are then recognised as stale: the plan is
gone, or its version moved on.

Everything here runs under the store's lock.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Callable

from pytest_schedemu.dispatch.occurrences import NEVER, Occurrence, Plan
from pytest_schedemu.dispatch.producers import Producer, ScheduleProducer, TimedWork
from pytest_schedemu.dispatch.queue import (
    COMPLETION_CHECK,
    FIRST_ATTEMPT,
    GENERATE,
    GROUP_REMOVAL,
    RETRY,
    TIMED,
    WorkItem,
    WorkQueue,
)
from pytest_schedemu.dispatch.rules import RulePlanning
from pytest_schedemu.formats.times import LAST_EPOCH_SECOND, from_epoch, to_epoch
from pytest_schedemu.model.resources import START_DATE_GRACE, Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.records import CANCELLED, PENDING, RETRYING, Activity, History
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.targets import events

#: A plan's next work, (due second, nominal time): generate that nominal time then, or, when
#: it is ``NEVER``, check then whether the plan is complete. A plain tuple: one is made for
#: every occurrence.
Work = tuple[int, int]

#: Stale queue items are swept out only past this many: sweeping costs a pass over the queue.
COMPACTION_THRESHOLD = 1024

# A NamedTuple's own constructor is a Python function; this builds the same tuple at half
# the cost, and a push happens for every occurrence.
_make_item = tuple.__new__


class Planner:
    """Every live plan, and the work queue."""

    def __init__(
        self,
        *,
        settings: LiveSettings,
        history: History,
        now: Callable[[], datetime],
        notify: Callable[[], None],
        permits: Callable[[Producer], bool] = lambda producer: True,
    ) -> None:
        self.settings = settings
        self.history = history
        self.queue = WorkQueue()
        self.plans: dict[int, Plan] = {}
        # The live plan of each schedule ARN: at most one incarnation of a name lives.
        self._by_arn: dict[str, Plan] = {}
        self._now = now
        self._notify = notify
        self._sequence = 0
        # Queued items that will do nothing when they come up (their plan was replaced or
        # removed), counted roughly; past half the queue they are swept out, so the queue
        # stays proportional to what is live however much churn it sees.
        self._stale = 0
        #: Keys of the live plans whose input cannot be built: while there are any, every
        #: attempt is made one by one, so that theirs fail (``Plan.broken``).
        self.broken: set[str] = set()
        #: Keys of the live plans whose attempts IAM refuses (``dispatch.permissions``):
        #: while there are any, every attempt is asked.
        self.refused: set[str] = set()
        self._permits = permits
        #: The plans of scheduled rules' targets, one kind of producer more.
        self.rules = RulePlanning(self, now=now)

    # -- the store's observer ----------------------------------------------------------------

    def schedule_saved(self, schedule: Schedule, previous: Schedule | None) -> None:
        plan = self.plans.get(schedule.incarnation)
        if plan is None or previous is None:
            plan = self._adopt(schedule)
        else:
            self.cancel_pending(plan, "updated")
            self.superseded(plan)
        self._define(plan, schedule)
        self.plan_first(plan, created=previous is None)
        self.history.note_schedule(schedule, plan.arn)
        kind = "created" if previous is None else "updated"
        self.history.add_activity(plan.producer.activity(kind, self._now(), None, schedule.state))
        self._notify()

    def restore_plan(self, schedule: Schedule, last_dispatched: int | None) -> Plan:
        """The plan of a saved schedule, knowing the last nominal time it generated; its
        work is queued by ``plan_first``, once the caller has restored the rest."""
        plan = self._adopt(schedule)
        self._define(plan, schedule)
        plan.last_dispatched = last_dispatched
        return plan

    def _adopt(self, schedule: Schedule) -> Plan:
        return self.adopt(Plan(schedule))

    def adopt(self, plan: Plan) -> Plan:
        """Make ``plan`` the live plan of its incarnation and ARN."""
        self.plans[plan.seq] = plan
        self._by_arn[plan.arn] = plan
        return plan

    def _define(self, plan: Plan, schedule: Schedule) -> None:
        template = self.settings.current.sqs_queue_url_template
        producer = ScheduleProducer(schedule, arn=plan.arn, queue_url_template=template)
        self.define(plan, producer)

    def define(self, plan: Plan, producer: Producer) -> None:
        """Give ``plan`` the definition ``producer`` (a new version of it)."""
        plan.define(producer)
        if producer.broken is None:
            self.broken.discard(plan.arn)
        else:
            self.broken.add(plan.arn)
        self._vet(plan.arn, producer)

    def _vet(self, key: str, producer: Producer) -> None:
        if self._permits(producer):
            self.refused.discard(key)
        else:
            self.refused.add(key)

    def vet_all(self) -> None:
        """Ask again whether each live plan's attempts may go: what is known of IAM, or
        the ``iam`` setting, changed."""
        self.refused.clear()
        for plan in self.plans.values():
            self._vet(plan.arn, plan.producer)

    def schedule_removed(self, schedule: Schedule, reason: str) -> None:
        plan = self.plans.pop(schedule.incarnation, None)
        if reason != "auto_deleted":  # recorded as such once the deletion is done
            arn = schedule.arn if plan is None else plan.arn  # one string for both records
            self.history.add_activity(Activity("deleted", self._now(), arn, None, reason))
        if plan is not None:
            self.retire(plan, reason)

    def retire(self, plan: Plan, reason: str) -> None:
        """``plan`` is no longer live: its queued work goes stale, its pending occurrences
        are cancelled for ``reason``."""
        if self.plans.get(plan.seq) is plan:
            del self.plans[plan.seq]
        if self._by_arn.get(plan.arn) is plan:
            del self._by_arn[plan.arn]
            self.broken.discard(plan.arn)
            self.refused.discard(plan.arn)
        plan.version += 1
        self.superseded(plan)
        self.cancel_pending(plan, reason)

    def rule_saved(self, rule: Rule, previous: Rule | None) -> None:
        self.rules.saved(rule)
        self._notify()

    def rule_removed(self, rule: Rule, reason: str) -> None:
        self.rules.removed(rule, reason)

    def group_removal_scheduled(self, group: ScheduleGroup, due: datetime) -> None:
        self.push(math.ceil(to_epoch(due)), NEVER, 0, 0, GROUP_REMOVAL, group, 0)
        self._notify()

    # -- planning --------------------------------------------------------------------------

    def push(
        self, due: int, seq: int, nominal: int, number: int, kind: int, subject: Any, version: int
    ) -> None:
        self._sequence += 1
        item = _make_item(WorkItem, (seq, nominal, number, kind, self._sequence, subject, version))
        self.queue.push(due, item)
        if kind == GENERATE:
            subject.next_nominal = nominal

    def defer(self, due: int, work: TimedWork) -> None:
        """Queue ``work`` at ``due``: after the schedules' and rule targets' work of that
        second."""
        self.push(due, NEVER, NEVER, 0, TIMED, work, 0)
        self._notify()

    def push_attempt(self, due: int, occurrence: Occurrence, number: int) -> None:
        """Queue attempt ``number`` of ``occurrence`` (a first attempt or a retry) at ``due``."""
        kind = FIRST_ATTEMPT if number == 1 else RETRY
        self.push(due, occurrence.plan.seq, occurrence.nominal, number, kind, occurrence, 0)

    def plan_first(self, plan: Plan, *, created: bool = False) -> None:
        """Queue a plan's first work (``first_work``)."""
        work = self.first_work(plan, created=created)
        if work is not None:
            due, nominal = work
            self._queue_work(plan, due, nominal)

    def plan_next(self, plan: Plan, after: int) -> None:
        """Queue the work that follows a recurring plan's nominal time ``after``."""
        work = self.next_work(plan, after)
        if work is not None:
            due, nominal = work
            self._queue_work(plan, due, nominal)

    def _queue_work(self, plan: Plan, due: int, nominal: int) -> None:
        if nominal == NEVER:
            plan.done_generating = True
            self.push(due, plan.seq, NEVER, 0, COMPLETION_CHECK, plan, plan.version)
        else:
            self.push(due, plan.seq, nominal, 0, GENERATE, plan, plan.version)

    def first_work(self, plan: Plan, *, created: bool = False) -> Work | None:
        """A plan's first work from where it stands: its next nominal time after what it
        generated or, for a schedule just ``created``, from a StartDate in the past window
        on; None when it has none (disabled, or an at() generated or passed by)."""
        schedule = plan.schedule
        if not schedule.enabled:
            return None
        if plan.timeline.recurring:
            lower = plan.activation - 1
            start = schedule.start_date
            if created and start is not None:
                # A StartDate in the accepted past window (§4.7) is the first occurrence:
                # it, and what follows it before now, fire at once.
                first = math.ceil(to_epoch(start))
                if plan.activation - START_DATE_GRACE.total_seconds() <= first < plan.activation:
                    lower = first - 1
            if plan.last_dispatched is not None and plan.last_dispatched > lower:
                lower = plan.last_dispatched
            return self.next_work(plan, lower)
        at = plan.timeline.next_after_epoch(-NEVER)
        if at is None or (plan.last_dispatched is not None and at <= plan.last_dispatched):
            return None
        if at < plan.activation and self.settings.current.past_at != "fire":
            return None
        # A one-time schedule whose moment has passed is delivered once, straight away.
        return self.generation_due(plan, at), at

    def next_work(self, plan: Plan, after: int) -> Work | None:
        """What follows a recurring plan's nominal time ``after``: the next one, or once its
        timeline has run out, the check that deletes it if it asked to be (else None)."""
        nominal = plan.timeline.next_after_epoch(after)
        if nominal is not None:
            return self.generation_due(plan, nominal), nominal
        if self.deletes_when_done(plan):
            return max(plan.activation, after), NEVER
        return None

    def generations(self, plan: Plan, after: int, until: int) -> list[tuple[int, int]]:
        """(nominal time, its first attempt's due second) of each of a plan's nominal times
        in (``after``, ``until``], in order: what generating them one by one would make."""
        due = self.generation_due
        nominals = plan.timeline.between_epochs(after + 1, until + 1)
        found = [(nominal, due(plan, nominal)) for nominal in nominals]
        # Only a flexible window offsets first attempts: bulk play asks for a day of every
        # plan at once, and most plans are spared a call per nominal time.
        if plan.schedule.flexible_time_window.maximum_window_in_minutes:
            attempt_due = self.first_attempt_due
            found = [(nominal, attempt_due(plan, nominal, at)) for nominal, at in found]
        return found

    @staticmethod
    def generation_due(plan: Plan, nominal: int) -> int:
        """When a plan's nominal time is generated: when it falls, or at once (at the plan's
        activation) for one before it, in a past StartDate's window or a past at()."""
        return nominal if nominal >= plan.activation else plan.activation

    @staticmethod
    def deletes_when_done(plan: Plan) -> bool:
        schedule = plan.schedule
        if schedule.action_after_completion != "DELETE":
            return False
        # A recurring schedule without an EndDate is never complete, even once its cron
        # years run out.
        return not plan.timeline.recurring or schedule.end_date is not None

    def superseded(self, plan: Plan) -> None:
        """The plan's queued items just went stale; sweep them out once they are many."""
        self._stale += 1 + len(plan.pending)
        if self._stale > COMPACTION_THRESHOLD and 2 * self._stale > len(self.queue):
            self.queue.compact(self.is_live)
            self._stale = 0

    def cancel_pending(self, plan: Plan, reason: str) -> None:
        if not plan.pending:
            return
        now = self._now()
        for occurrence in sorted(plan.pending, key=lambda o: o.nominal):
            occurrence.status = CANCELLED
            self.history.add_activity(
                occurrence.producer.activity("cancelled", now, occurrence.nominal, reason)
            )
        plan.pending.clear()

    def is_current(self, plan: Plan, version: int) -> bool:
        """Whether work made for ``version`` of ``plan`` still stands."""
        return self.plans.get(plan.seq) is plan and plan.version == version

    def first_attempt_due(self, plan: Plan, nominal: int, due: int) -> int:
        """When the first attempt of ``nominal``, generated at ``due``, is due: offset by
        the flexible window."""
        window = plan.schedule.flexible_time_window.maximum_window_in_minutes
        if not window:
            return due
        settings = self.settings.current
        if settings.flexible_offsets != "hash":
            return due
        return due + events.flexible_offset(settings.seed, plan.arn, nominal, window)

    # -- the queue -------------------------------------------------------------------------

    def is_live(self, item: WorkItem) -> bool:
        """Whether a queued item will still do something when it comes up."""
        kind, subject = item.kind, item.subject
        if kind == GROUP_REMOVAL:
            return True
        if kind == TIMED:
            live: bool = subject.live
            return live
        if kind in (FIRST_ATTEMPT, RETRY):
            return subject.status in (PENDING, RETRYING) and self.is_current(
                subject.plan, subject.version
            )
        return self.is_current(subject, item.version)

    def next_due(self) -> int | None:
        """The due time of the earliest live work item, dropping stale ones on the way."""
        queue = self.queue
        while True:
            head = queue.peek()
            if head is None:
                return None
            due, item = head
            if self.is_live(item):
                return due
            queue.pop()
            self._stale = max(0, self._stale - 1)

    def live_plan(self, schedule_arn: str) -> Plan | None:
        """The plan of the stored schedule ``schedule_arn``; None when none is stored."""
        return self._by_arn.get(schedule_arn)

    def next_occurrence(self, schedule_arn: str) -> datetime | None:
        """The next nominal time the schedule will generate, if any."""
        plan = self._by_arn.get(schedule_arn)
        nominal = None if plan is None else plan.next_nominal
        # A nominal time past the year 9999 is one the clock can never reach.
        if nominal is None or nominal > LAST_EPOCH_SECOND:
            return None
        return from_epoch(nominal)

    def reset(self) -> None:
        for plan in self.plans.values():
            plan.version += 1
            self.cancel_pending(plan, "reset")
        self.plans.clear()
        self._by_arn.clear()
        self.rules.reset()
        self.broken.clear()
        self.refused.clear()
        self.queue.clear()
        self._stale = 0
