"""boto3 delivery of EventBridge Custom Event Bus targets: botocore's own ``eventbridgev2``
client sends each attempt in Smithy RPC v2 CBOR to an endpoint that decodes it as the
service would."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from typing import Any

import botocore.parsers
import botocore.session
import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.wire.server import ServerThread
from tests.constants import DLQ, ROLE, START
from tests.helpers import schedule_args

if "eventbridgev2" not in botocore.session.get_session().get_available_services():
    pytest.skip("this botocore has no eventbridgev2 client", allow_module_level=True)

BUS = "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno"
AT = "at(2026-03-01T10:01:00)"


def cbor(value: Any) -> bytes:
    """The few CBOR items an answer needs: maps, text, non-negative integers, lists."""

    def head(major: int, length: int) -> bytes:
        if length < 24:
            return bytes([major << 5 | length])
        return bytes([major << 5 | 26]) + struct.pack(">I", length)

    if isinstance(value, int):
        return head(0, value)
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(item) for item in value)
    return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())


class EventBusV2:
    """An eventbridgev2 endpoint: records each call, answers success or a missing bus."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.missing = False
        self.sqs_calls: list[tuple[str, dict[str, Any]]] = []
        self.server = ServerThread(self.app)

    def app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        if environ.get("CONTENT_TYPE") != "application/cbor":
            # A dead letter, which SQS takes in JSON.
            self.sqs_calls.append((environ.get("HTTP_X_AMZ_TARGET", ""), json.loads(body)))
            start_response("200 OK", [("Content-Type", "application/x-amz-json-1.0")])
            return [b"{}"]
        parser = botocore.parsers.RpcV2CBORParser()
        request = parser.parse_data_item(parser.get_peekable_stream_from_bytes(body))
        operation = environ["PATH_INFO"].rsplit("/", 1)[-1]
        headers = {
            "content-type": environ.get("CONTENT_TYPE", ""),
            "smithy-protocol": environ.get("HTTP_SMITHY_PROTOCOL", ""),
        }
        self.calls.append((operation, request, headers))
        if self.missing:
            status = "404 Not Found"
            answer = cbor({"__type": "ResourceNotFoundException", "Message": "No such bus"})
        else:
            status = "200 OK"
            entry = {"EventId": "e-1", "SequenceNumber": "1"}
            answer = cbor({"FailedEntryCount": 0, "Entries": [entry]})
        start_response(
            status,
            [
                ("Content-Type", "application/cbor"),
                ("smithy-protocol", "rpc-v2-cbor"),
                ("Content-Length", str(len(answer))),
            ],
        )
        return [answer]


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[EventBusV2]:
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    endpoint = EventBusV2()
    try:
        yield endpoint
    finally:
        endpoint.server.stop()


def fire(bus: EventBusV2, block: dict[str, Any], **target: Any) -> Emulator:
    emu = Emulator(start=START, delivery="boto3", delivery_endpoint_url=bus.server.url)
    with emu:
        emu.client().create_schedule(
            **schedule_args(
                ScheduleExpression=AT,
                Target={"Arn": BUS, "RoleArn": ROLE, **block, **target},
            )
        )
        emu.clock.advance(minutes=5)
    return emu


def test_put_events_reaches_the_bus_in_cbor(bus: EventBusV2) -> None:
    block = {"EventBridgePutEventsV2Parameters": {"Source": "app.orders", "DetailType": "Placed"}}
    emu = fire(bus, block, Input='{"order": 7}')
    ((operation, request, headers),) = bus.calls
    assert operation == "PutEvents"
    assert headers == {"content-type": "application/cbor", "smithy-protocol": "rpc-v2-cbor"}
    assert request == {
        "EventBusArn": BUS,
        "Entries": [
            {
                "Source": "app.orders",
                "DetailType": "Placed",
                "Detail": '{"order": 7}',
                "Resources": ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"],
            }
        ],
    }
    (attempt,) = emu.attempts()
    assert attempt.succeeded


def test_put_raw_events_sends_the_input_as_bytes_with_its_content_type(bus: EventBusV2) -> None:
    block = {"EventBridgePutRawEventsParameters": {"Metadata": {"tenant": "t1"}}}
    fire(bus, block, Input="order 7")
    ((operation, request, _),) = bus.calls
    assert operation == "PutRawEvents"
    assert request == {
        "EventBusArn": BUS,
        "Entries": [
            {
                "Data": b"order 7",
                "Metadata": {"tenant": "t1"},
                "SystemMetadata": {"ContentType": "application/octet-stream"},
            }
        ],
    }


def test_a_missing_bus_fails_permanently_into_the_dead_letter_queue(bus: EventBusV2) -> None:
    bus.missing = True
    block = {"EventBridgePutRawEventsParameters": {}}
    emu = fire(bus, block, Input='{"order": 7}', DeadLetterConfig={"Arn": DLQ})
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.error_message, attempt.retryable) == (
        "ResourceNotFoundException",
        "No such bus",
        False,
    )
    (letter,) = emu.dead_letters()
    assert letter.delivered
    ((operation, message),) = bus.sqs_calls
    assert operation == "AmazonSQS.SendMessage"
    assert message["MessageAttributes"]["ERROR_CODE"]["StringValue"] == "ResourceNotFoundException"
    assert json.loads(message["MessageBody"]) == attempt.request
    assert letter.attributes["ERROR_CODE"] == "ResourceNotFoundException"
    assert letter.attributes["TARGET_ARN"] == BUS
