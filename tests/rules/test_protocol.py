"""The events JSON 1.1 protocol on the emulator's endpoint: what a raw request gets, what is
refused and how, the account and region a request acts in, and signatures."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, Callable

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from freezegun import freeze_time

from pytest_schedemu import Emulator
from tests.helpers import RawResponse, error_of
from tests.rules.rulebook import target

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
JSON_11 = "application/x-amz-json-1.1"
SERVED = (
    "DeleteRule, DescribeRule, DisableRule, EnableRule, ListRuleNamesByTarget, ListRules, "
    "ListTagsForResource, ListTargetsByRule, PutRule, PutTargets, RemoveTargets, TagResource, "
    "UntagResource"
)
Raw = Callable[..., RawResponse]


def test_a_raw_request_gets_json_1_1_back(raw_events: Raw) -> None:
    body = {"Name": "r1", "ScheduleExpression": "rate(1 hour)"}
    response = raw_events("AWSEvents.PutRule", body)
    assert response.status == 200
    assert response.headers["Content-Type"] == JSON_11
    assert UUID.fullmatch(response.headers["x-amzn-RequestId"])
    assert response.json == {"RuleArn": "arn:aws:events:us-east-1:123456789012:rule/r1"}


def test_an_error_is_a_json_1_1_error(raw_events: Raw) -> None:
    response = raw_events("AWSEvents.DescribeRule", {"Name": "nope"})
    assert (response.status, response.headers["Content-Type"]) == (400, JSON_11)
    assert response.json == {
        "__type": "ResourceNotFoundException",
        "message": "Rule nope does not exist on EventBus default.",
    }


@pytest.mark.parametrize("operation", ["PutEvents", "CreateEventBus", "ListArchives", ""])
def test_other_eventbridge_operations_are_refused_by_name(raw_events: Raw, operation: str) -> None:
    response = raw_events(f"AWSEvents.{operation}", {})
    assert response.status == 400
    assert response.json == {
        "__type": "UnknownOperationException",
        "message": f"The emulator serves only the EventBridge rule operations ({SERVED}); "
        f"{operation or '(none)'} is not one of them.",
    }


def test_put_events_through_the_emulators_client_is_refused(events: Any) -> None:
    with pytest.raises(events.exceptions.ClientError) as excinfo:
        events.put_events(Entries=[{"Source": "app", "DetailType": "d", "Detail": "{}"}])
    assert error_of(excinfo)["code"] == "UnknownOperationException"
    assert "PutEvents is not one of them" in error_of(excinfo)["message"]


def test_another_services_target_is_refused(raw_events: Raw) -> None:
    response = raw_events("AmazonSQS.SendMessage", {})
    assert (response.status, response.json["__type"]) == (400, "UnknownOperationException")
    assert response.json["message"].startswith("Unknown operation X-Amz-Target: AmazonSQS.")


def test_an_operation_is_a_post_to_the_root(raw_events: Raw) -> None:
    response = raw_events("AWSEvents.ListRules", None, method="GET")
    assert (response.status, response.json["__type"]) == (400, "UnknownOperationException")
    assert "sent as POST /" in response.json["message"]


@pytest.mark.parametrize("body", ["{not json", "[1, 2]", '{"Name": 5}'])
def test_a_body_that_cannot_be_read_is_a_serialization_error(raw_events: Raw, body: str) -> None:
    response = raw_events("AWSEvents.DescribeRule", body)
    assert (response.status, response.json["__type"]) == (400, "SerializationException")


def test_an_empty_body_is_a_request_with_no_members(raw_events: Raw) -> None:
    response = raw_events("AWSEvents.ListRules", b"")
    assert (response.status, response.json) == (200, {"Rules": []})


def test_a_form_body_is_refused(raw_events: Raw) -> None:
    response = raw_events("AWSEvents.ListRules", "{}", headers={"Content-Type": "text/plain"})
    assert (response.status, response.json["__type"]) == (415, "UnsupportedMediaTypeException")


def test_a_bug_in_an_operation_is_a_500_kept_for_the_test(
    emu: Emulator, events: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(call: Any, params: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setitem(emu.debug.events_operation_handlers, "ListRules", broken)
    with pytest.raises(events.exceptions.InternalException) as excinfo:
        events.list_rules()
    assert error_of(excinfo)["status"] == 500
    (recorded,) = emu.server_errors
    assert (recorded.operation, str(recorded.exception)) == ("ListRules", "boom")


def test_the_emulators_clients_are_bound_to_it(emu: Emulator, plain_events: Any) -> None:
    events = emu.client("events")
    assert events is emu.client("events")  # built once, reused
    assert events.meta.service_model.service_name == "events"
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    # A client pointed at the endpoint's URL sees the same rules.
    assert [rule["Name"] for rule in plain_events.list_rules()["Rules"]] == ["r1"]


def test_the_region_and_account_come_from_the_credential_scope(emu: Emulator) -> None:
    client = boto3.client(
        "events",
        endpoint_url=emu.endpoint_url,
        region_name="ap-south-1",
        aws_access_key_id="111122223333",
        aws_secret_access_key="x",
        config=Config(retries={"total_max_attempts": 1}),
    )
    try:
        arn = client.put_rule(Name="r1", EventPattern='{"source": ["a"]}')["RuleArn"]
    finally:
        client.close()
    assert arn == "arn:aws:events:ap-south-1:111122223333:rule/r1"


# -- signatures ------------------------------------------------------------------------------

SIGNED_AT = "2026-03-01T08:00:00Z"
CREDENTIALS = {"AKIDGOOD": "secret-good"}


@pytest.fixture(params=["http", "inprocess"])
def signed(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    with Emulator(
        start=SIGNED_AT, transport=request.param, verify_signatures=True, credentials=CREDENTIALS
    ) as emu:
        yield emu


def test_signed_events_requests_are_checked_for_the_events_service(signed: Emulator) -> None:
    with freeze_time(SIGNED_AT):
        events = signed.client("events")
        events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="r1", Targets=[target()])
        assert len(events.list_targets_by_rule(Rule="r1")["Targets"]) == 1
        wrong = signed.client("events", aws_secret_access_key="not-the-secret")
        with pytest.raises(wrong.exceptions.ClientError) as excinfo:
            wrong.list_rules()
    assert error_of(excinfo)["code"] == "InvalidSignatureException"
    # EventBridge answers a signature refusal with 400, where a REST API answers 403.
    assert error_of(excinfo)["status"] == 400


def test_a_request_signed_for_another_service_is_refused(signed: Emulator) -> None:
    request = AWSRequest(
        "POST",
        signed.endpoint_url + "/",
        data=b"{}",
        headers={"X-Amz-Target": "AWSEvents.ListRules", "Content-Type": JSON_11},
    )
    with freeze_time(SIGNED_AT):
        SigV4Auth(Credentials("AKIDGOOD", "secret-good"), "scheduler", "us-east-1").add_auth(
            request
        )
    headers = {key: str(value) for key, value in request.headers.items()}
    sent = urllib.request.Request(signed.endpoint_url + "/", data=b"{}", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(sent)
    assert excinfo.value.code == 400
    assert b"Credential should be scoped to correct service: 'events'." in excinfo.value.read()


def refusal(emu: Emulator, authorization: str | None) -> tuple[int, str]:
    """The status and code an events request with ``authorization`` is refused with."""
    headers = {"X-Amz-Target": "AWSEvents.ListRules", "Content-Type": JSON_11}
    if authorization is not None:
        headers["Authorization"] = authorization
        headers["X-Amz-Date"] = "20260301T080000Z"
    sent = urllib.request.Request(emu.endpoint_url + "/", data=b"{}", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(sent)
    return excinfo.value.code, json.loads(excinfo.value.read())["__type"]


SCOPE = "20260301/us-east-1/events/aws4_request"


@pytest.mark.parametrize(
    ("authorization", "answer"),
    [
        (
            f"AWS4-HMAC-SHA256 Credential=AKIDGOOD/{SCOPE}, SignedHeaders=host",
            (400, "IncompleteSignatureException"),
        ),
        (
            f"AWS4-HMAC-SHA256 Credential=NOBODY/{SCOPE}, SignedHeaders=host, Signature=00",
            (400, "UnrecognizedClientException"),
        ),
        (
            f"AWS4-HMAC-SHA256 Credential=AKIDGOOD/{SCOPE}, SignedHeaders=host, Signature=00",
            (400, "InvalidSignatureException"),
        ),
        # AWS's common errors: a request without any credential is a 403.
        (None, (403, "MissingAuthenticationTokenException")),
    ],
    ids=["incomplete", "unknown-key", "mismatch", "no-header"],
)
def test_signature_refusals_have_eventbridges_status(
    signed: Emulator, authorization: str | None, answer: tuple[int, str]
) -> None:
    with freeze_time(SIGNED_AT):
        assert refusal(signed, authorization) == answer


def test_the_scheduler_api_keeps_403_for_a_signature_refusal(signed: Emulator) -> None:
    with freeze_time(SIGNED_AT):
        wrong = signed.client(aws_secret_access_key="not-the-secret")
        with pytest.raises(wrong.exceptions.ClientError) as excinfo:
            wrong.list_schedules()
    assert (error_of(excinfo)["code"], error_of(excinfo)["status"]) == (
        "InvalidSignatureException",
        403,
    )
