"""EventBridge Custom Event Bus (eventbridgev2) targets: PutEvents and PutRawEvents
(docs/eventbridge-v2.md)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from pytest_schedemu.model.resources import Target
from pytest_schedemu.targets import check_target, plan_target, target_kind
from tests.constants import ROLE, SCHEDULE_ARN

BUS = "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno"
V1_BUS = "arn:aws:events:us-east-1:123456789012:event-bus/orders"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:jobs"
PUT_EVENTS = {"EventBridgePutEventsV2Parameters": {"Source": "app.orders", "DetailType": "Placed"}}
PUT_RAW = {"EventBridgePutRawEventsParameters": {"Metadata": {"tenant": "t1"}}}


def target(arn: str, input: str | None = None, **parameters: Any) -> Target:
    return Target(arn=arn, role_arn=ROLE, input=input, parameters=parameters)


def check(t: Target) -> str | None:
    return check_target(t, region="us-east-1")


def request(t: Target, payload: str) -> Any:
    return plan_target(t, schedule_arn=SCHEDULE_ARN).materialize(payload)


@pytest.mark.parametrize(
    ("partition", "region"),
    [("aws", "us-east-1"), ("aws-cn", "cn-north-1"), ("aws-us-gov", "us-gov-west-1")],
)
def test_a_v2_bus_arn_is_its_own_kind_in_every_partition(partition: str, region: str) -> None:
    arn = BUS.replace("arn:aws:", f"arn:{partition}:").replace("us-east-1", region)
    kind = target_kind(arn)
    assert (kind.name, kind.partition, kind.region, kind.resource) == (
        "eventsv2",
        partition,
        region,
        "orders",
    )
    assert (kind.client, kind.operation) == ("eventbridgev2", "PutEvents")


@pytest.mark.parametrize(
    "arn",
    [
        # The bus id is 25 lower-case letters and digits (eventbridgev2's EventBusArn).
        "arn:aws:events:us-east-1:123456789012:event-busv2/orders",
        "arn:aws:events:us-east-1:123456789012:event-busv2/orders/ABCDEFGHIJ0123456789KLMNO",
        "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmn",
        "arn:aws:events:us-east-1:123456789012:event-busv2/-orders/abcdefghij0123456789klmno",
    ],
)
def test_an_arn_that_is_not_a_v2_bus_is_not_that_kind(arn: str) -> None:
    assert target_kind(arn).name == "generic"


def test_a_v1_bus_is_still_the_events_kind() -> None:
    assert target_kind(V1_BUS).name == "events"


@pytest.mark.parametrize("parameters", [PUT_EVENTS, PUT_RAW])
def test_either_block_makes_a_valid_v2_target(parameters: dict[str, Any]) -> None:
    assert check(target(BUS, "{}", **parameters)) is None


def test_a_v2_target_needs_one_of_its_blocks() -> None:
    assert check(target(BUS, "{}")) == (
        "Parameters EventBridgePutEventsV2Parameters or EventBridgePutRawEventsParameters "
        "must be specified"
    )


def test_a_v2_target_takes_one_block_not_both() -> None:
    assert check(target(BUS, "{}", **PUT_EVENTS, **PUT_RAW)) == (
        "Parameters EventBridgePutEventsV2Parameters and EventBridgePutRawEventsParameters "
        "cannot be specified together"
    )


def test_the_v1_block_is_not_for_a_v2_bus() -> None:
    block = {"EventBridgeParameters": {"Source": "a", "DetailType": "b"}}
    assert check(target(BUS, "{}", **block)) == (
        "Parameters EventBridgeParameters not supported for the target"
    )


@pytest.mark.parametrize("arn", [V1_BUS, QUEUE])
@pytest.mark.parametrize("parameters", [PUT_EVENTS, PUT_RAW])
def test_a_v2_block_on_another_target_is_refused(arn: str, parameters: dict[str, Any]) -> None:
    (block,) = parameters
    message = f"Parameters {block} not supported for the target"
    assert check(target(arn, "{}", **parameters)) == message


def test_put_events_needs_json_input_and_put_raw_events_takes_any_text() -> None:
    assert check(target(BUS, "not json", **PUT_EVENTS)) == (
        "JSON syntax error in input for the target"
    )
    assert check(target(BUS, "not json", **PUT_RAW)) is None


def test_a_v2_bus_in_another_region_is_refused() -> None:
    other = BUS.replace("us-east-1", "eu-west-1")
    assert check(target(other, "{}", **PUT_EVENTS)) == (
        "The target ARN provided does not match the current region us-east-1."
    )


def test_put_events_request_text() -> None:
    r = request(target(BUS, "{}", **PUT_EVENTS), '{"k":"v"}')
    assert r.text == (
        f'{{"EventBusArn":"{BUS}","Entries":[{{"Source":"app.orders","DetailType":"Placed",'
        f'"Detail":"{{\\"k\\":\\"v\\"}}","Resources":["{SCHEDULE_ARN}"]}}]}}'
    )
    assert r.data == json.loads(r.text)
    assert plan_target(target(BUS, "{}", **PUT_EVENTS), schedule_arn=SCHEDULE_ARN).operation == (
        "PutEvents"
    )


def test_put_raw_events_request_text_for_json_and_for_other_text() -> None:
    t = target(BUS, "x", **PUT_RAW)
    assert plan_target(t, schedule_arn=SCHEDULE_ARN).operation == "PutRawEvents"
    as_json = request(t, '{"k":"é"}')
    encoded = base64.b64encode('{"k":"é"}'.encode()).decode()
    assert as_json.text == (
        f'{{"EventBusArn":"{BUS}","Entries":[{{"Data":"{encoded}","Metadata":{{"tenant":"t1"}},'
        '"SystemMetadata":{"ContentType":"application/json"}}]}'
    )
    plain = request(t, "hello")
    assert plain.data["Entries"][0]["SystemMetadata"] == {"ContentType": "application/octet-stream"}
    assert base64.b64decode(plain.data["Entries"][0]["Data"]) == b"hello"


def test_put_raw_events_without_metadata_sends_none() -> None:
    r = request(target(BUS, "x", EventBridgePutRawEventsParameters={}), "{}")
    assert "Metadata" not in r.data["Entries"][0]
