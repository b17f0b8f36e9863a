"""What the dispatcher knows of each incarnation, occurrence and attempt.

A ``Plan`` is one incarnation of a producer (a schedule, a rule's target: ``producers``):
its current definition, compiled, and the latest nominal time it generated. An
``Occurrence`` is one nominal time of a plan and its attempts. A ``Job`` is one attempt:
what it sends (ids, payload, request) is worked out only when a delivery backend or a test
needs it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pytest_schedemu.delivery.backends import DeliveryRequest, Outcome
from pytest_schedemu.dispatch.retries import Ladder
from pytest_schedemu.expressions import Timeline
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records import PENDING, Attempt, Execution
from pytest_schedemu.targets import MaterializedRequest, TargetPlan, events

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.producers import Producer

NEVER = 1 << 62  # sorts after every real instant and incarnation number


class Pending(dict["Occurrence", None]):
    """A plan's pending occurrences, as a set: every plan has one, mostly empty, and an
    empty set costs three times what an empty dict does."""

    __slots__ = ()

    add = dict.setdefault  # stores the occurrence (-> None) at C speed, as set.add does

    def discard(self, occurrence: Occurrence) -> None:
        self.pop(occurrence, None)


#: The pending occurrences of every plan that has made none yet, shared: never added to,
#: as making a plan's first occurrence gives the plan a set of its own (``Occurrence``).
NONE_PENDING = Pending()


@lru_cache(maxsize=1024)
def _missing_outcome(error: tuple[str, str]) -> Outcome:
    # One outcome for every plan of a target (its error names the target alone).
    return Outcome.failure(*error, False)


class Plan:
    """The dispatcher's view of one incarnation of a producer."""

    # What the loop reads for every occurrence is copied here from the producer; the rest
    # is read through it: a slot costs every live plan eight bytes.
    __slots__ = (
        "activation",
        "arn",
        "done_generating",
        "fires",
        "last_dispatched",
        "next_nominal",
        "pending",
        "producer",
        "record_fields",
        "schedule",
        "seq",
        "timeline",
        "version",
    )

    def __init__(self, schedule: Schedule) -> None:
        self.seq = schedule.incarnation
        #: The producer's key: a schedule's ARN, a rule target's ``<rule ARN>#<target id>``.
        # One string that every record of the incarnation shares. Not interned: the
        # interpreter's table of interned strings would cost a live schedule more than the
        # records of a name's past incarnations, which are bounded, save.
        self.arn = schedule.arn
        self.version = 0
        self.last_dispatched: int | None = None
        #: The nominal time of the plan's queued generation, if one is queued.
        self.next_nominal: int | None = None
        self.pending = NONE_PENDING
        #: How many occurrences tests fired by hand (``firing``): the next one's discriminator.
        self.fires = 0
        self.schedule = schedule
        self.activation = 0
        #: Its timeline has run out and the check that deletes it when done is queued.
        self.done_generating = False
        # What its current definition gives (``define``), copied here once per definition:
        # the loop reads them for every occurrence.
        self.producer: Producer
        self.timeline: Timeline
        #: The fields its attempt records share (``Producer.record_fields``), made for the
        #: definition's first occurrence: a plan that has not fired yet holds none.
        self.record_fields: dict[str, Any] | None = None

    def define(self, producer: Producer) -> None:
        """Take a new definition (a create or an update): a new version of the plan."""
        self.producer = producer
        self.schedule = producer.schedule
        self.version += 1
        self.next_nominal = None
        self.done_generating = False
        self.activation = producer.activation
        self.timeline = producer.timeline
        self.record_fields = None

    @property
    def target(self) -> TargetPlan:
        return self.producer.target

    @property
    def missing(self) -> Outcome | None:
        """What an attempt of it gets when a test made its target missing."""
        missing = self.producer.target.missing_error
        return None if missing is None else _missing_outcome(missing)

    @property
    def event_key(self) -> tuple[str, int]:
        return self.producer.event_key

    @property
    def execution_tag(self) -> str | None:
        return self.producer.execution_tag

    @property
    def retry(self) -> Ladder:
        return self.producer.retry

    @property
    def broken(self) -> Outcome | None:
        return self.producer.broken


class Occurrence:
    """One nominal time of one incarnation, and what happened to it so far."""

    __slots__ = (
        "_event_id",
        "attempts",
        "exhausted",
        "fired",
        "first_attempt_at",
        "first_due",
        "nominal",
        "plan",
        "producer",
        "record_fields",
        "status",
        "version",
    )

    def __init__(self, plan: Plan, nominal: int, first_due: int, fired: int = 0) -> None:
        self.plan = plan
        # The definition in force when the occurrence was generated: attempts replay it
        # even if an update has since replaced the plan's. What else it reads of that
        # definition (``schedule``, ``target``...) is read through it, not copied: one is
        # made for every occurrence.
        self.producer = producer = plan.producer
        fields = plan.record_fields
        if fields is None:  # the first occurrence of the plan's definition
            fields = plan.record_fields = producer.record_fields()
            if plan.pending is NONE_PENDING:
                plan.pending = Pending()
        self.record_fields = fields
        self.version = plan.version
        self.nominal = nominal
        self.first_due = first_due
        #: 0 for an occurrence of the schedule's expression; n for the n-th fired by hand.
        self.fired = fired
        if fired:
            self.record_fields = {**fields, "fired": True}
        self._event_id: str | None = None
        self.attempts: list[Attempt] = []
        self.status = PENDING
        self.first_attempt_at: int | None = None
        self.exhausted: str | None = None

    @property
    def schedule(self) -> Schedule:
        return self.producer.schedule

    @property
    def target(self) -> TargetPlan:
        return self.producer.target

    @property
    def carries_payload(self) -> bool:
        return self.producer.target.carries_payload

    @property
    def broken(self) -> Outcome | None:
        return self.producer.broken

    @property
    def event_id(self) -> str:
        if self._event_id is None:
            name, number = self.plan.event_key
            self._event_id = events.event_id(name, number, self.nominal, self.fired)
        return self._event_id

    def snapshot(self) -> Execution:
        scheduled = from_epoch(self.nominal)
        # A timeline takes snapshots by the hundred thousand, and the event id (a UUID)
        # costs more than the rest of one: it is worked out when first read.
        known = {
            **self.producer.execution_fields,
            "scheduled_time": scheduled,
            "status": self.status,
            "attempts": tuple(self.attempts),
            "first_attempt_due": (
                scheduled if self.first_due == self.nominal else from_epoch(self.first_due)
            ),
            "exhausted_condition": self.exhausted,
            "fired": self.fired > 0,
        }
        return Execution.lazily(known, self)

    def compute(self, name: str) -> Any:
        """A snapshot's field left to be worked out on first read (``FieldSource``)."""
        if name == "event_id":
            return self.event_id
        raise AttributeError(name)


class Job:
    """One attempt of one occurrence: what it sends is worked out only when needed.

    The default delivery never looks at the request, so in the common case the payload,
    the request and the ids are computed only if a test reads them from the record.
    """

    __slots__ = (
        "_execution_id",
        "_materialized",
        "_payload",
        "attempted_at",
        "number",
        "occurrence",
        "seed",
    )

    def __init__(self, occurrence: Occurrence, number: int, attempted_at: int, seed: int):
        self.occurrence = occurrence
        self.number = number
        self.attempted_at = attempted_at
        self.seed = seed
        self._execution_id: str | None = None
        self._payload: str | None = None
        self._materialized: MaterializedRequest | None = None

    @property
    def execution_id(self) -> str:
        if self._execution_id is None:
            occurrence = self.occurrence
            base = occurrence.event_id
            tag = occurrence.plan.execution_tag
            if tag is not None:
                base = f"{base}#{tag}"
            self._execution_id = events.execution_id(self.seed, base, self.number)
        return self._execution_id

    @property
    def payload(self) -> str:
        if self._payload is None:
            occurrence = self.occurrence
            self._payload = occurrence.target.payload(
                occurrence.nominal, occurrence.event_id, self.execution_id, self.number
            )
        return self._payload

    @property
    def materialized(self) -> MaterializedRequest:
        if self._materialized is None:
            occurrence = self.occurrence
            self._materialized = occurrence.target.request_for(
                self.payload, occurrence.nominal, occurrence.event_id
            )
        return self._materialized

    def compute(self, name: str) -> Any:
        """A field of the attempt's record, worked out on its first read (``FieldSource``)."""
        if name == "scheduled_time":
            return from_epoch(self.occurrence.nominal)
        if name == "attempted_at":
            return from_epoch(self.attempted_at)
        if name == "event_id":
            return self.occurrence.event_id
        if name == "execution_id":
            return self.execution_id
        if name == "input":
            return self.payload if self.occurrence.carries_payload else None
        if name == "payload":
            return jsontext.loads_or_none(self.payload) if self.occurrence.carries_payload else None
        if name == "request":
            return self.materialized.data
        if name == "request_text":
            return self.materialized.text
        raise AttributeError(name)

    def delivery_request(self) -> DeliveryRequest:
        occurrence = self.occurrence
        kind = occurrence.target.kind
        target = occurrence.schedule.target
        materialized = self.materialized
        return DeliveryRequest(
            target_arn=target.arn,
            target_kind=kind.name,
            role_arn=target.role_arn,
            request=materialized.data,
            request_text=materialized.text,
            service=kind.client,
            operation=occurrence.target.operation,
            # Universal targets name no region: they call the schedule's own.
            region=kind.region or occurrence.schedule.region,
            attempt_number=self.number,
            attempted_at=from_epoch(self.attempted_at),
            execution_id=self.execution_id,
        )
