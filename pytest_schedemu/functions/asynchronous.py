"""Lambda's asynchronous invocation of a stack's own function, on the virtual clock.

Lambda accepts the event (Scheduler's and EventBridge's delivery succeeds then) and runs
the function at once. A run that fails is retried by Lambda with the same request id, one
minute after the first failure and two minutes after the second, up to the function's
``MaximumRetryAttempts`` (0 to 2, default 2), while the event is younger than its
``MaximumEventAgeInSeconds`` (default six hours): each retry, and an event's expiry when it
comes first, is ``TimedWork`` on the clock, so a move plays it at its instant, ``pending``
lists it and a move to the next event stops there. Then the outcome goes to the function's
destinations and its dead-letter queue (``destinations``). See
docs/functions-asynchronous.md.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from pytest_schedemu.dispatch.producers import TimedWork
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import from_epoch
from pytest_schedemu.functions import runner
from pytest_schedemu.functions.catalogue import FunctionCatalogue
from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.destinations import (
    EVENT_AGE_EXCEEDED,
    RETRIES_EXHAUSTED,
    SUCCESS,
    Destinations,
    dead_letter_attributes,
    invocation_record,
)
from pytest_schedemu.records import History, PendingWork
from pytest_schedemu.records.invocations import FunctionInvocation
from pytest_schedemu.records.types import FUNCTION
from pytest_schedemu.settings.live import LiveSettings

logger = logging.getLogger("pytest_schedemu.functions")

#: Lambda's wait before its n-th retry, n from 1 [aws: "one minute before the first retry,
#: two minutes between the first and second"].
RETRY_WAIT = timedelta(minutes=1)


@dataclass
class AcceptedEvent:
    """An event Lambda accepted for a function, and how far its invocation got."""

    definition: FunctionDefinition
    #: The payload as it arrived, and as the handler gets it (parsed, where it is JSON).
    payload: str
    event: Any = field(repr=False)
    request_id: str
    accepted_at: datetime
    #: The history's generation when it was accepted: a reset since forgets it.
    generation: int
    #: The attempt that delivered it (``Attempt.execution_id``), if one did.
    execution_id: str | None
    #: How many times the handler ran for it.
    runs: int = 0


class LambdaRetry(TimedWork):
    """Lambda's next retry of an event, or (``expires``) the event's expiry before it."""

    def __init__(
        self,
        owner: AsyncInvocations,
        accepted: AcceptedEvent,
        last: runner.Invocation,
        *,
        expires: bool,
    ) -> None:
        self._owner = owner
        self.accepted = accepted
        self.last = last
        self.expires = expires

    @property
    def live(self) -> bool:
        return self._owner.history.generation == self.accepted.generation

    def pending_work(self, due: int) -> PendingWork:
        accepted = self.accepted
        return PendingWork(
            from_epoch(due),
            "event_expiry" if self.expires else "function_retry",
            None,
            "",
            None,
            target_arn=accepted.definition.arn,
            attempt_number=None if self.expires else accepted.runs + 1,
            scheduled_time=accepted.accepted_at,
            source=FUNCTION,
        )

    def run(self) -> None:
        if not self.live:
            return
        if self.expires:
            self._owner.give_up(self.accepted, self.last, EVENT_AGE_EXCEEDED)
        else:
            self._owner.invoke(self.accepted)


class AsyncInvocations:
    """The functions' asynchronous invocations: runs, retries, outcomes and their records
    (kept by the history). The handlers run without any lock held."""

    def __init__(
        self,
        *,
        catalogue: FunctionCatalogue,
        destinations: Destinations,
        history: History,
        settings: LiveSettings,
        now: Callable[[], datetime],
        defer: Callable[[datetime, TimedWork], None],
    ) -> None:
        self.catalogue = catalogue
        self._destinations = destinations
        self._settings = settings
        self._now = now
        self._defer = defer
        self.history = history
        self._lock = threading.Lock()
        self._accepted = 0
        #: The functions whose not running was said already.
        self._said: set[str] = set()
        destinations.invoke = self.invoke_destination

    def runnable(self, arn: str) -> FunctionDefinition | None:
        """The function ``arn`` names, if the catalogue knows it and it can run; one that
        cannot is said once, and its events are left to the delivery backend."""
        definition = self.catalogue.get(arn)
        if definition is None or definition.not_runnable is None:
            return definition
        with self._lock:
            said = definition.arn in self._said
            self._said.add(definition.arn)
        if not said:
            logger.warning(
                "function %s is delivered to but not run: %s",
                definition.name,
                definition.not_runnable,
            )
        return None

    def accept(
        self, definition: FunctionDefinition, payload: str, execution_id: str | None = None
    ) -> None:
        """Lambda accepts ``payload`` for ``definition`` now (delivered by the attempt
        ``execution_id``, if any), and runs it."""
        generation = self.history.generation
        with self._lock:
            self._accepted += 1
            number = self._accepted
        seed = self._settings.current.seed
        digest = hashlib.sha256(f"{seed}|{definition.arn}|{number}".encode()).digest()
        accepted = AcceptedEvent(
            definition=definition,
            payload=payload,
            event=_event(payload),
            request_id=str(uuid.UUID(bytes=digest[:16], version=4)),
            accepted_at=self._now(),
            generation=generation,
            execution_id=execution_id,
        )
        self.invoke(accepted)

    def invoke_destination(self, arn: str, body: str) -> bool:
        """A destination that is a function: invoked asynchronously with the record."""
        definition = self.runnable(arn)
        if definition is None:
            return False
        self.accept(definition, body)
        return True

    def invoke(self, accepted: AcceptedEvent) -> None:
        """Run the handler for ``accepted``, record it, and do what its outcome calls for."""
        definition, now = accepted.definition, self._now()
        settings = self._settings.current
        accepted.runs += 1
        run = self.catalogue.run(
            definition,
            accepted.event,
            now=now,
            request_id=accepted.request_id,
            region=settings.region,
            account=settings.account_id,
            clock=self._now,
            wall_timeout=settings.delivery_timeout,
        )
        made = FunctionInvocation(
            function_arn=definition.arn,
            function_name=definition.name,
            event=accepted.event,
            result=run.result,
            error_type=run.error_type,
            error_message=run.error_message,
            attempt=accepted.runs,
            invoked_at=now,
            request_id=accepted.request_id,
            logs=run.logs,
            stack_trace=run.stack_trace,
            execution_id=accepted.execution_id,
        )
        if accepted.generation != self.history.generation:
            return  # a reset came while it ran: nothing follows
        self.history.add_invocation(made, accepted.generation)
        if run.error_type is None:
            if definition.on_success is not None:
                self._send(definition.on_success, accepted, run, SUCCESS)
            return
        if accepted.runs > definition.maximum_retry_attempts:
            self.give_up(accepted, run, RETRIES_EXHAUSTED)
            return
        due = now + RETRY_WAIT * accepted.runs
        expiry = accepted.accepted_at + timedelta(seconds=definition.maximum_event_age_seconds)
        expires = due > expiry
        self._defer(expiry if expires else due, LambdaRetry(self, accepted, run, expires=expires))

    def give_up(self, accepted: AcceptedEvent, last: runner.Invocation, condition: str) -> None:
        """Lambda stops retrying: the failure destination and the dead-letter queue hear of
        it [aws: destinations are configured "in addition to or instead of a dead-letter
        queue"]."""
        definition = accepted.definition
        if definition.on_failure is not None:
            self._send(definition.on_failure, accepted, last, condition)
        if definition.dead_letter_arn is not None:
            attributes = dead_letter_attributes(accepted.request_id, last)
            self._destinations.send(
                definition.dead_letter_arn,
                accepted.payload,
                attributes,
                succeeded=False,
                event=accepted.payload,
            )

    def _send(
        self, arn: str, accepted: AcceptedEvent, run: runner.Invocation, condition: str
    ) -> None:
        record = invocation_record(
            at=self._now(),
            request_id=accepted.request_id,
            function_arn=accepted.definition.arn,
            condition=condition,
            invoke_count=accepted.runs,
            payload=accepted.event,
            run=run,
        )
        body = jsontext.dumps_compact(record)
        self._destinations.send(
            arn, body, {}, succeeded=condition == SUCCESS, event=accepted.payload
        )

    def invocations(self, function_arn: str | None = None) -> list[FunctionInvocation]:
        """The runs of the function ``function_arn`` (unqualified), or of every function,
        oldest first."""
        made = self.history.invocations()
        if function_arn is None:
            return made
        return [record for record in made if record.function_arn == function_arn]

    def reset(self) -> None:
        """Start counting request ids again, and say again what cannot run: a new test."""
        with self._lock:
            self._accepted = 0
            self._said.clear()


def _event(payload: str) -> Any:
    """The event as Lambda hands it to a Python handler: the payload's JSON value."""
    value = jsontext.loads_or_none(payload)
    return payload if value is None and payload.strip() != "null" else value
