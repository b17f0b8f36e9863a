"""One target of a scheduled rule, prepared once for all of its attempts (pure).

A rule target is a ``TargetPlan`` like a schedule's: the same kinds table decides what its
ARN names, its control keys, its missing-target error and its operation, and the same
renderers build its request where the service is the same (SQS with
``SqsParameters.MessageGroupId``, Lambda, SNS, Step Functions, Firehose, CodeBuild,
CodePipeline, SageMaker, Inspector, and anything else as a generic request). What differs
is EventBridge's: the payload is the Scheduled Event or what the target's Input, InputPath
or InputTransformer makes of it (``rule_input``), Kinesis takes its partition key from the
event (``KinesisParameters.PartitionKeyPath``, the event id by default), an event bus
target is sent the event itself, and ECS takes EventBridge's ``EcsParameters`` (its tags
are ``{"Key", "Value"}`` pairs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import Moment
from pytest_schedemu.model.resources import Target
from pytest_schedemu.settings.options import DEFAULT_SQS_QUEUE_URL_TEMPLATE
from pytest_schedemu.targets import render, rule_input
from pytest_schedemu.targets.kinds import (
    GENERIC,
    KINDS,
    UNIVERSAL,
    TargetKind,
    carries_payload,
    control_keys,
    missing_target_error,
    target_kind,
)
from pytest_schedemu.targets.plan import TargetPlan
from pytest_schedemu.targets.render import MaterializedRequest, Render, TargetContext

#: Kinds whose Scheduler renderer reads blocks a rule target cannot carry: a rule target of
#: such an ARN is sent as a generic request (it names no API the emulator knows for rules).
_SCHEDULER_ONLY = frozenset({UNIVERSAL, "eventsv2"})


@dataclass(frozen=True, eq=False)
class RuleTargetPlan(TargetPlan):
    """One target of a rule, prepared for its attempts. Build it with ``plan_rule_target``.

    ``schedule_arn``, the resource its requests name, holds the rule's ARN (``rule_arn``):
    the resource its events name.
    """

    rule_name: str
    target_id: str
    #: The target's constant Input, InputPath and InputTransformer, as sent.
    input_text: str | None
    input_path: str | None
    transformer: Mapping[str, Any] | None
    #: Kinesis's ``PartitionKeyPath`` (None: the event id).
    partition_key_path: str | None
    #: (code, message) when the target's input can be built for no occurrence (an
    #: InputPath that selects nothing, an InputTemplate that makes invalid JSON): every
    #: attempt then fails permanently with it. The event's shape and the characters of its
    #: values never change, so one probe decides it for all.
    broken: tuple[str, str] | None

    @property
    def rule_arn(self) -> str:
        return self.schedule_arn

    def event(self, scheduled_time: Moment, event_id: str) -> dict[str, Any]:
        return rule_input.scheduled_event(
            event_id,
            scheduled_time,
            account=self.account,
            region=self.region,
            rule_arn=self.rule_arn,
        )

    def payload(
        self, scheduled_time: Moment, event_id: str, execution_id: str, attempt_number: int
    ) -> str:
        """What the target is sent: the Input verbatim, the part of the event an InputPath
        selects, the InputTransformer's output, or the event itself."""
        if self.input_text is not None:
            return self.input_text
        event = self.event(scheduled_time, event_id)
        try:
            return _custom(self, event)
        except rule_input.InputError:
            # A broken input fails every attempt before anything is sent (``broken``); its
            # records show the empty text.
            return ""

    def request_for(
        self, payload: str, scheduled_time: Moment, event_id: str
    ) -> MaterializedRequest:
        if self.kind.name != "kinesis":
            return self.materialize(payload)
        key = event_id
        if self.partition_key_path is not None:
            chosen = rule_input.select(
                self.event(scheduled_time, event_id), self.partition_key_path
            )
            if chosen is not rule_input.MISSING:
                key = chosen if isinstance(chosen, str) else jsontext.dumps_compact(chosen)
        return _kinesis(self.target.arn, key)(payload)


def _custom(plan: RuleTargetPlan, event: dict[str, Any]) -> str:
    if plan.input_path is not None:
        return rule_input.apply_input_path(event, plan.input_path)
    transformer = plan.transformer
    if transformer is not None:
        return rule_input.transform(
            str(transformer.get("InputTemplate", "")),
            transformer.get("InputPathsMap") or {},
            event,
            rule_arn=plan.rule_arn,
            rule_name=plan.rule_name,
        )
    return jsontext.dumps_compact(event)


def plan_rule_target(
    target: Target,
    *,
    rule_arn: str,
    rule_name: str,
    target_id: str,
    input_path: str | None = None,
    transformer: Mapping[str, Any] | None = None,
    queue_url_template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE,
) -> RuleTargetPlan:
    """Prepare the target ``target_id`` of the rule ``rule_arn``. ``target`` is the target
    as the rule target's definition holds it (``RuleTargetSchedule.target``), its ``input``
    the constant Input."""
    kind = target_kind(target.arn)
    if kind.name in _SCHEDULER_ONLY:
        kind = TargetKind(GENERIC)
    custom = target.input is not None or input_path is not None or transformer is not None
    # Renderers ask only whether the target has an input of its own: they are given the
    # target with one (possibly empty) when it has an Input, InputPath or InputTransformer.
    own_input = (target.input or "") if custom else None
    shown = dataclasses.replace(target, input=own_input)
    context = TargetContext(shown, kind, rule_arn, queue_url_template)
    kinesis = target.parameters.get("KinesisParameters") or {}
    plan = RuleTargetPlan(
        target=target,
        kind=kind,
        schedule_arn=rule_arn,
        control_keys=control_keys(target.arn),
        missing_error=missing_target_error(kind, target.arn),
        carries_payload=carries_payload(kind, custom),
        materialize=_renderer(context, custom),
        operation=kind.operation,
        rule_name=rule_name,
        target_id=target_id,
        input_text=target.input,
        input_path=input_path,
        transformer=transformer,
        partition_key_path=kinesis.get("PartitionKeyPath"),
        broken=None,
    )
    return dataclasses.replace(plan, broken=_probe(plan))


def _probe(plan: RuleTargetPlan) -> tuple[str, str] | None:
    """Whether the target's input can be built: (code, message) when it cannot."""
    if plan.input_text is not None:
        return None
    try:
        _custom(plan, plan.event(0, "00000000-0000-0000-0000-000000000000"))
    except rule_input.InputError as error:
        return error.code, str(error)
    except ValueError as error:  # a JSONPath EventBridge's syntax does not allow
        return rule_input.INVALID_PARAMETER, str(error)
    return None


def _renderer(context: TargetContext, custom: bool) -> Render:
    name = context.kind.name
    if name == "events":
        return _event_bus(context, custom)
    if name == "ecs":
        return _ecs(context, custom)
    if name == "kinesis":
        # Its partition key comes from the event: ``request_for`` renders each attempt.
        return _kinesis(context.target.arn, "")
    if name == "sqs" and context.kind.fifo:
        group = (context.target.parameters.get("SqsParameters") or {}).get("MessageGroupId")
        url = render.sqs_queue_url(context.kind, context.queue_url_template)
        return render.slotted(
            lambda body: {"QueueUrl": url, "MessageBody": body, "MessageGroupId": group}
        )
    return KINDS[name].build(context)


def _kinesis(stream_arn: str, key: str) -> Render:
    record = render.slotted(
        lambda data: {"StreamARN": stream_arn, "PartitionKey": key, "Data": data}
    )
    return lambda payload: record(render.base64_text(payload))


def _event_bus(context: TargetContext, custom: bool) -> Render:
    """PutEvents of the event to the bus: its source, detail-type and resources, and its
    detail, or the target's input as the detail when it has one."""
    bus, rule = context.target.arn, context.schedule_arn
    head = {"Source": rule_input.SOURCE, "DetailType": rule_input.DETAIL_TYPE}

    def put_events(detail: str) -> dict[str, Any]:
        entry = {**head, "Detail": detail, "EventBusName": bus, "Resources": [rule]}
        return {"Entries": [entry]}

    forward = render.slotted(put_events)
    if custom:
        return forward
    return lambda payload: forward(_detail_of(payload))


def _detail_of(payload: str) -> str:
    event = jsontext.loads_or_none(payload)
    detail = event.get("detail", {}) if isinstance(event, dict) else {}
    return jsontext.dumps_compact(detail)


def _ecs(context: TargetContext, custom: bool) -> Render:
    block = dict(context.target.parameters.get("EcsParameters") or {})
    if "Tags" in block:
        # EventBridge's tags are [{"Key", "Value"}]; RunTask's renderer takes tag maps.
        block["Tags"] = [{tag["Key"]: tag.get("Value", "")} for tag in block["Tags"]]
    request = render.ecs_request(context.target.arn, block)
    return render.taking_input_object(request, "overrides") if custom else render.fixed(request)
