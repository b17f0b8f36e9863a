"""Targets alike share one renderer: what a schedule's attempts send never depends on which
schedule's plan built it first."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu.model.resources import Target
from pytest_schedemu.settings.options import DEFAULT_SQS_QUEUE_URL_TEMPLATE
from pytest_schedemu.targets import plan_target, target_kind
from pytest_schedemu.targets.render import TargetContext
from tests.constants import ROLE

FIRST = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/first"
SECOND = "arn:aws:scheduler:us-east-1:123456789012:schedule/nightly/second"
PAYLOAD = '{"order": 7}'

# Every kind a target without parameter blocks may be, with and without an Input.
PARAMETERLESS = (
    "arn:aws:sqs:us-east-1:123456789012:jobs",
    "arn:aws:lambda:us-east-1:123456789012:function:work",
    "arn:aws:sns:us-east-1:123456789012:news",
    "arn:aws:states:us-east-1:123456789012:stateMachine:flow",
    "arn:aws:firehose:us-east-1:123456789012:deliverystream/logs",
    "arn:aws:sagemaker:us-east-1:123456789012:pipeline/train",
    "arn:aws:codebuild:us-east-1:123456789012:project/build",
    "arn:aws:codepipeline:us-east-1:123456789012:release",
    "arn:aws:inspector:us-east-1:123456789012:target/0-abc/template/0-def",
    "arn:aws:scheduler:::aws-sdk:sqs:sendMessage",
    "arn:aws:iot:us-east-1:123456789012:thing/t",
)


def target(arn: str, input: str | None, **parameters: Any) -> Target:
    return Target(arn=arn, role_arn=ROLE, input=input, parameters=parameters)


def rendered(t: Target, schedule_arn: str) -> tuple[str, Any]:
    request = plan_target(t, schedule_arn=schedule_arn).materialize(PAYLOAD)
    return request.text, request.data


@pytest.mark.parametrize("arn", PARAMETERLESS)
@pytest.mark.parametrize("input", [None, PAYLOAD])
def test_a_parameterless_target_sends_what_its_own_renderer_would(
    arn: str, input: str | None
) -> None:
    t = target(arn, input)
    rendered(t, FIRST)  # the renderer the second schedule gets was built for the first
    kind = target_kind(arn)
    own = kind.spec.build(TargetContext(t, kind, SECOND, DEFAULT_SQS_QUEUE_URL_TEMPLATE))
    request = own(PAYLOAD)
    assert rendered(t, SECOND) == (request.text, request.data)


@pytest.mark.parametrize(
    ("arn", "parameters"),
    [
        (
            "arn:aws:events:us-east-1:123456789012:event-bus/main",
            {"EventBridgeParameters": {"Source": "app", "DetailType": "Tick"}},
        ),
        (
            "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno",
            {"EventBridgePutEventsV2Parameters": {"Source": "app", "DetailType": "Tick"}},
        ),
    ],
)
def test_an_event_names_its_own_schedule_whichever_schedule_came_first(
    arn: str, parameters: dict[str, Any]
) -> None:
    t = target(arn, PAYLOAD, **parameters)
    first, second = rendered(t, FIRST), rendered(t, SECOND)
    assert FIRST in first[0] and SECOND not in first[0]
    assert SECOND in second[0] and FIRST not in second[0]


def test_a_queue_url_follows_the_template_each_plan_was_built_with() -> None:
    t = target("arn:aws:sqs:us-east-1:123456789012:jobs", PAYLOAD)
    template = "http://localhost:4566/{account}/{name}"
    default = plan_target(t, schedule_arn=FIRST).materialize(PAYLOAD).data
    local = plan_target(t, schedule_arn=FIRST, queue_url_template=template)
    assert local.materialize(PAYLOAD).data["QueueUrl"] == "http://localhost:4566/123456789012/jobs"
    assert default["QueueUrl"] != "http://localhost:4566/123456789012/jobs"
