"""One stored target, prepared once for all of its attempts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pytest_schedemu.formats.times import Moment
from pytest_schedemu.model.resources import Target
from pytest_schedemu.model.slots import slotted
from pytest_schedemu.settings.options import DEFAULT_SQS_QUEUE_URL_TEMPLATE
from pytest_schedemu.targets import events, render
from pytest_schedemu.targets.kinds import (
    UNIVERSAL,
    TargetKind,
    carries_payload,
    control_keys,
    missing_target_error,
    target_kind,
    target_operation,
)
from pytest_schedemu.targets.render import MaterializedRequest, Render, TargetContext


@slotted
@dataclass(frozen=True, eq=False)
class TargetPlan:
    """One stored target, prepared for its attempts. Build it with ``plan_target``."""

    target: Target
    kind: TargetKind
    schedule_arn: str
    #: The keys failure rules and handlers match: the ARN, and ``service:action`` if universal.
    control_keys: tuple[str, ...]
    #: (code, message) of an attempt while the target is declared missing (§5.12).
    missing_error: tuple[str, str] | None
    #: Whether the request holds the payload (§5.11): records show it only then.
    carries_payload: bool
    #: The attempt's request for a payload (§5.11).
    materialize: Render
    #: The target API's operation an attempt calls, e.g. "SendMessage"; None for generic.
    operation: str | None

    # The account and region the default event carries are the ARN's: read from it when an
    # attempt's payload is made, rather than kept by every live schedule.
    @property
    def account(self) -> str:
        """The account of ``schedule_arn``."""
        return self.schedule_arn.split(":", 5)[4]

    @property
    def region(self) -> str:
        """The region of ``schedule_arn``."""
        return self.schedule_arn.split(":", 5)[3]

    def payload(
        self, scheduled_time: Moment, event_id: str, execution_id: str, attempt_number: int
    ) -> str:
        """The §5.7 payload of one attempt: the substituted Input, or the default event."""
        text = self.target.input
        if text is None:
            return events.default_event(
                event_id,
                scheduled_time,
                account=self.account,
                region=self.region,
                schedule_arn=self.schedule_arn,
            )
        return events.substitute(
            text, self.schedule_arn, scheduled_time, execution_id, attempt_number
        )

    def request_for(
        self, payload: str, scheduled_time: Moment, event_id: str
    ) -> MaterializedRequest:
        """The request of an attempt that sends ``payload``: a rule target's may also take
        a part of the event it is sent for (Kinesis's partition key)."""
        return self.materialize(payload)

    def shortener(self, payload: str) -> tuple[Callable[[int], str], int]:
        """How to shorten this target's request while keeping it valid JSON: a function of
        how many payload characters to keep, and the most there are to keep."""
        if self.kind.name == UNIVERSAL:
            return render.universal_shortener(payload)
        if not self.carries_payload:
            text = self.materialize(payload).text
            return (lambda keep: text), 0
        return (lambda keep: self.materialize(payload[:keep]).text), len(payload)


def plan_target(
    target: Target,
    *,
    schedule_arn: str,
    queue_url_template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE,
) -> TargetPlan:
    """Prepare ``target`` of the schedule ``schedule_arn``; the target must pass check_target."""
    kind = target_kind(target.arn)
    context = TargetContext(target, kind, schedule_arn, queue_url_template)
    materialize = _shared_renderer(context) if not target.parameters else kind.spec.build(context)
    return TargetPlan(
        target=target,
        kind=kind,
        schedule_arn=schedule_arn,
        control_keys=control_keys(target.arn),
        missing_error=missing_target_error(kind, target.arn),
        carries_payload=carries_payload(kind, target.input is not None),
        materialize=materialize,
        operation=target_operation(kind, target.parameters),
    )


# A renderer is a pure function of the payload. A target without parameter blocks (most
# are) renders from its ARN, whether it has an Input and the queue URL template alone, never
# from its schedule: targets alike share one renderer, the first one built for them.
_SHARED_RENDERERS: dict[tuple[str, bool, str], Render] = {}
_SHARED_RENDERERS_KEPT = 1024


def _shared_renderer(context: TargetContext) -> Render:
    key = (context.target.arn, context.target.input is not None, context.queue_url_template)
    found = _SHARED_RENDERERS.get(key)
    if found is None:
        found = context.kind.spec.build(context)
        if len(_SHARED_RENDERERS) >= _SHARED_RENDERERS_KEPT:
            _SHARED_RENDERERS.pop(next(iter(_SHARED_RENDERERS)), None)
        _SHARED_RENDERERS[key] = found
    return found
