"""The HTTP surface: routes, error wire format, parsing failures, response conventions."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import ROLE
from tests.helpers import schedule_args

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def test_success_is_json_with_a_request_id(raw: Any) -> None:
    response = raw("GET", "/schedule-groups")
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/json"
    assert UUID.fullmatch(response.headers["x-amzn-RequestId"])


def test_request_ids_differ_between_requests(raw: Any) -> None:
    first = raw("GET", "/schedule-groups").headers["x-amzn-RequestId"]
    assert raw("GET", "/schedule-groups").headers["x-amzn-RequestId"] != first


def test_error_has_type_header_capital_message_and_request_id(raw: Any) -> None:
    response = raw("GET", "/schedules/nope")
    assert response.status == 404
    assert response.headers["x-amzn-ErrorType"] == "ResourceNotFoundException"
    assert UUID.fullmatch(response.headers["x-amzn-RequestId"])
    assert response.headers["Content-Type"] == "application/json"
    assert response.json == {
        "Message": "Schedule nope does not exist.",
        "__type": "ResourceNotFoundException",
    }


def test_botocore_raises_the_modelled_exception_with_message(client: Any) -> None:
    with pytest.raises(client.exceptions.ResourceNotFoundException) as excinfo:
        client.get_schedule(Name="nope")
    assert excinfo.value.response["Message"] == "Schedule nope does not exist."
    assert UUID.fullmatch(excinfo.value.response["ResponseMetadata"]["RequestId"])


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/nothing-here"),
        ("PUT", "/tags/arn%3Aaws%3Ascheduler%3Aus-east-1%3A123456789012%3Aschedule-group%2Fg"),
        ("PATCH", "/schedules/s1"),
        ("POST", "/schedules"),
    ],
)
def test_unknown_route_or_method_is_a_json_404(raw: Any, method: str, path: str) -> None:
    response = raw(method, path)
    assert response.status == 404
    assert response.headers["x-amzn-ErrorType"] == "UnknownOperationException"
    decoded = path.replace("%3A", ":").replace("%2F", "/")
    assert response.json["Message"] == f"Unknown operation {method} {decoded}."


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[1, 2]",
        b'"text"',
        b"\xff\xfe",
    ],
)
def test_unparseable_body_is_a_serialization_exception(raw: Any, body: bytes) -> None:
    response = raw("POST", "/schedule-groups/g", body=body)
    assert response.status == 400
    assert response.json == {
        "Message": "Unable to parse request body.",
        "__type": "SerializationException",
    }


@pytest.mark.parametrize(
    "overrides",
    [
        {"Target": {"Arn": "arn:aws:sqs:us-east-1:123456789012:q", "RoleArn": ROLE, "Input": {}}},
        {
            "Target": {
                "Arn": "arn:aws:sqs:us-east-1:123456789012:q",
                "RoleArn": ROLE,
                "RetryPolicy": {"MaximumRetryAttempts": "3"},
            }
        },
        {
            "Target": {
                "Arn": "arn:aws:sqs:us-east-1:123456789012:q",
                "RoleArn": ROLE,
                "RetryPolicy": {"MaximumRetryAttempts": 3.0},
            }
        },
        {"StartDate": "tomorrow"},
        {"StartDate": "2030-01-01T00:00:00"},
        {"StartDate": True},
        {"FlexibleTimeWindow": "OFF"},
        {"Description": 5},
    ],
)
def test_wrong_json_types_are_serialization_exceptions(raw: Any, overrides: Any) -> None:
    body = schedule_args(**overrides)
    del body["Name"]
    response = raw("POST", "/schedules/s1", body=body)
    assert response.status == 400
    assert response.headers["x-amzn-ErrorType"] == "SerializationException"


def test_wrong_type_for_tags_is_a_serialization_exception(raw: Any) -> None:
    response = raw("POST", "/schedule-groups/g", body={"Tags": 5})
    assert response.json["__type"] == "SerializationException"


def test_empty_body_on_a_body_operation_is_an_empty_object(raw: Any) -> None:
    response = raw("POST", "/schedule-groups/g", body=b"")
    assert response.status == 200
    assert response.json == {
        "ScheduleGroupArn": "arn:aws:scheduler:us-east-1:123456789012:schedule-group/g"
    }


def test_null_members_mean_absent(raw: Any) -> None:
    body = schedule_args(Description=None, State=None)
    del body["Name"]
    assert raw("POST", "/schedules/s1", body=body).status == 200
    got = raw("GET", "/schedules/s1").json
    assert "Description" not in got
    assert got["State"] == "ENABLED"


def test_unknown_body_members_are_ignored(raw: Any) -> None:
    body = schedule_args(Colour="blue")
    del body["Name"]
    assert raw("POST", "/schedules/s1", body=body).status == 200
    assert "Colour" not in raw("GET", "/schedules/s1").json


def test_iso_start_date_with_offset_is_accepted_and_echoed_as_a_number(raw: Any) -> None:
    body = schedule_args(StartDate="2026-03-02T00:00:00.250Z")
    del body["Name"]
    assert raw("POST", "/schedules/s1", body=body).status == 200
    assert raw("GET", "/schedules/s1").json["StartDate"] == 1772409600.25


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-02T01:00:00+01",
        "2026-03-02T01:00:00+0100",
        "2026-03-02t01:00:00+01:00",
        "2026-03-01T19:00:00-05:00",
        "2026-03-02t00:00:00z",
    ],
)
def test_iso_start_date_offset_forms(raw: Any, text: str) -> None:
    body = schedule_args(StartDate=text)
    del body["Name"]
    assert raw("POST", "/schedules/s1", body=body).status == 200
    assert raw("GET", "/schedules/s1").json["StartDate"] == 1772409600


@pytest.mark.parametrize("text", ["2026-03-02T00:00:00", "2026-03-02", "2026-03-02T00:00:00+1"])
def test_iso_start_date_without_a_full_offset_is_a_serialization_error(raw: Any, text: str) -> None:
    body = schedule_args(StartDate=text)
    del body["Name"]
    response = raw("POST", "/schedules/s1", body=body)
    assert (response.status, response.json["__type"]) == (400, "SerializationException")


def test_body_over_one_mebibyte_is_a_json_413(raw: Any) -> None:
    body = b'{"Description":"' + b"x" * (1024 * 1024) + b'"}'
    response = raw("POST", "/schedules/s1", body=body)
    assert response.status == 413
    assert response.headers["x-amzn-ErrorType"] == "RequestEntityTooLargeException"
    assert response.json["__type"] == "RequestEntityTooLargeException"


def test_name_with_a_slash_reaches_validation(raw: Any) -> None:
    response = raw("GET", "/schedule-groups/a%2Fb")
    assert response.status == 400
    assert response.json["Message"] == (
        "1 validation error detected: Value 'a/b' at 'name' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: ^[0-9a-zA-Z-_.]+$"
    )


def test_percent_encoded_name_is_decoded_once(client: Any) -> None:
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule_group(Name="my group")
    assert "Value 'my group' at 'name'" in excinfo.value.response["Message"]


def test_responses_leave_out_absent_members_and_sort_keys(raw: Any) -> None:
    body = schedule_args()
    del body["Name"]
    raw("POST", "/schedules/s1", body=body)
    text = raw("GET", "/schedules/s1").body.decode()
    assert "null" not in text
    document = json.loads(text)
    assert list(document) == sorted(document)
    assert list(document["Target"]) == sorted(document["Target"])


def test_internal_error_is_a_json_500_and_is_recorded(
    emu: Emulator, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(call: Any, params: Any) -> Any:
        raise RuntimeError("bug in handler")

    monkeypatch.setitem(emu.debug.operation_handlers, "ListScheduleGroups", broken)
    response = raw("GET", "/schedule-groups")
    assert response.status == 500
    assert response.json == {
        "Message": "Unexpected error occurred while processing the request",
        "__type": "InternalServerException",
    }
    assert len(emu.server_errors) == 1
    recorded = emu.server_errors[0]
    assert recorded.operation == "ListScheduleGroups"
    assert isinstance(recorded.exception, RuntimeError)
    assert "bug in handler" in recorded.traceback


def test_reset_clears_recorded_server_errors(
    emu: Emulator, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(emu.debug.operation_handlers, "ListScheduleGroups", None)
    raw("GET", "/schedule-groups")
    assert emu.server_errors
    emu.reset()
    assert emu.server_errors == []


def test_injected_throttling_reaches_botocore_as_the_modelled_exception(
    emu: Emulator, client: Any
) -> None:
    emu.inject_api_error("CreateScheduleGroup", "ThrottlingException", "Rate exceeded", times=1)
    with pytest.raises(client.exceptions.ThrottlingException) as excinfo:
        client.create_schedule_group(Name="g")
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
    # Only the next call failed, and nothing was created by it.
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_schedule_group(Name="g")
    client.create_schedule_group(Name="g")


def test_injected_internal_server_exception_is_a_500(emu: Emulator, client: Any) -> None:
    emu.inject_api_error(code="InternalServerException", message="boom")
    with pytest.raises(client.exceptions.InternalServerException):
        client.list_schedules()
    assert emu.server_errors == []


def test_injecting_an_unknown_code_is_refused(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="Unsupported error code 'Nope'"):
        emu.inject_api_error(code="Nope")


_SCOPE = "111122223333/20260301/eu-west-2/scheduler/aws4_request"


@pytest.mark.parametrize(
    "authorization",
    [
        # As every SDK writes it.
        f"AWS4-HMAC-SHA256 Credential={_SCOPE}, SignedHeaders=host;x-amz-date, Signature=ab12",
        # Other spacing, which AWS reads alike.
        f"AWS4-HMAC-SHA256 Credential={_SCOPE},SignedHeaders=host,Signature=ab12",
        f"  AWS4-HMAC-SHA256   Credential={_SCOPE} ,\tSignedHeaders=host,  Signature=ab12  ",
        # A value holding an "=".
        f"AWS4-HMAC-SHA256 Credential={_SCOPE}, SignedHeaders=host, Signature=ab=12",
    ],
)
def test_an_unchecked_request_acts_in_the_partition_its_credential_names(
    raw: Any, authorization: str
) -> None:
    response = raw("POST", "/schedule-groups/g", {}, {"Authorization": authorization})
    assert response.status == 200
    assert response.json == {
        "ScheduleGroupArn": "arn:aws:scheduler:eu-west-2:111122223333:schedule-group/g"
    }


@pytest.mark.parametrize(
    "authorization",
    [
        f"AWS4-HMAC-SHA256 Credential={_SCOPE}, Credential={_SCOPE}, Signature=ab12",
        f"AWS4-HMAC-SHA256 Credential={_SCOPE}, SignedHeaders=host, Signature=ab12, Region=x",
        "AWS4-HMAC-SHA256 Credential=111122223333/eu-west-2, SignedHeaders=host, Signature=ab12",
    ],
)
def test_an_unchecked_request_whose_credential_cannot_be_read_acts_in_the_emulators_own(
    emu: Emulator, raw: Any, authorization: str
) -> None:
    response = raw("POST", "/schedule-groups/g", {}, {"Authorization": authorization})
    assert response.status == 200
    assert response.json == {
        "ScheduleGroupArn": f"arn:aws:scheduler:{emu.region}:{emu.account_id}:schedule-group/g"
    }
