"""A schedule of EventBridge Scheduler as a producer of occurrences.

Its records name it by its ARN (``schedule_arn``, ``group_name``, ``schedule_name``); its
occurrences' event ids are made of its ARN and incarnation; it may fire from the second it
was created or last updated; its failed attempts climb Scheduler's ladder
(``retries.next_attempt``); its dead letter is Scheduler's (``deadletter``), the last
attempt's request with the payload shortened to fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_schedemu.delivery.backends import DeadLetterRequest
from pytest_schedemu.dispatch.deadletter import build_dead_letter
from pytest_schedemu.dispatch.producers.base import Producer
from pytest_schedemu.dispatch.retries import next_attempt
from pytest_schedemu.expressions import parse_expression, timeline
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records import Attempt
from pytest_schedemu.records.types import SCHEDULE
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.targets import plan_target, queue_url
from pytest_schedemu.targets.permissions import Delivering, scheduler_delivering

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.occurrences import Occurrence


class ScheduleProducer(Producer):
    """One definition of a schedule, whose ARN is ``arn``."""

    __slots__ = ("arn",)

    retry = staticmethod(next_attempt)

    def __init__(self, schedule: Schedule, *, arn: str, queue_url_template: str) -> None:
        self.arn = arn
        super().__init__(
            schedule=schedule,
            timeline=timeline(
                parse_expression(schedule.schedule_expression),
                timezone=schedule.timezone,
                start_date=schedule.start_date,
                end_date=schedule.end_date,
                created_at=schedule.creation_date,
            ),
            target=plan_target(
                schedule.target,
                schedule_arn=arn,
                queue_url_template=queue_url_template,
            ),
        )

    # Made when read (activities, dead letters, listings, never per occurrence): kept, they
    # would cost every live schedule a dict and a tuple.
    @property
    def identity(self) -> dict[str, Any]:  # type: ignore[override]
        return {"source": SCHEDULE, "schedule_arn": self.arn}

    @property
    def event_key(self) -> tuple[str, int]:  # type: ignore[override]
        return self.arn, self.schedule.incarnation

    @property
    def delivering(self) -> Delivering:
        return scheduler_delivering(self.schedule)

    def dead_letter(
        self,
        occurrence: Occurrence,
        attempt: Attempt,
        condition: str,
        queue_arn: str,
        settings: Settings,
    ) -> DeadLetterRequest:
        # A target whose request carries no payload has none to shorten.
        payload = attempt.input if attempt.input is not None else ""
        shortened, payload_length = self.target.shortener(payload)
        message = build_dead_letter(
            body=attempt.request_text,
            error_code=attempt.error_code or "",
            error_message=attempt.error_message or "",
            execution_id=attempt.execution_id,
            exhausted_condition=None if condition == "permanent" else condition,
            retry_attempts=attempt.attempt_number - 1,
            scheduled_time=occurrence.nominal,
            schedule_arn=self.arn,
            target_arn=attempt.target_arn,
            max_bytes=settings.max_dead_letter_bytes,
            shortened=shortened,
            payload_length=payload_length,
        )
        return DeadLetterRequest(
            queue_arn=queue_arn,
            queue_url=queue_url(queue_arn, settings.sqs_queue_url_template) or "",
            body=message.body,
            message_attributes=message.message_attributes,
        )
