"""Opt-in SigV4 verification, fresh by the virtual clock or the machine's."""

from __future__ import annotations

import hashlib
import http.client
import json
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from freezegun import freeze_time

from pytest_schedemu import Emulator
from tests.constants import CURL_JSON, JSON_TYPE

#: When requests are signed and the clock starts: the stamps the messages show count from it.
SIGNED_AT = "2026-03-01T08:00:00Z"
CREDENTIALS = {"AKIDGOOD": "secret-good", "111122223333": "secret-other"}


@pytest.fixture(params=["http", "inprocess"])
def signed(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    with Emulator(
        start=SIGNED_AT,
        transport=request.param,
        verify_signatures=True,
        credentials=CREDENTIALS,
    ) as emu:
        yield emu


def error(excinfo: Any) -> tuple[str, int, str]:
    response = excinfo.value.response
    return (
        response["Error"]["Code"],
        response["ResponseMetadata"]["HTTPStatusCode"],
        response["Error"]["Message"],
    )


def test_signed_requests_from_known_keys_pass(signed: Emulator, plain_client: Any) -> None:
    with freeze_time(SIGNED_AT):
        signed.client().create_schedule_group(Name="g")
        other = plain_client(signed, "111122223333", "secret-other")
        assert other.create_schedule_group(Name="g")["ScheduleGroupArn"].split(":")[4] == (
            "111122223333"
        )
        # Labels that need percent-encoding are signed over the encoded path.
        arn = "arn:aws:scheduler:us-east-1:111122223333:schedule-group/g"
        assert other.list_tags_for_resource(ResourceArn=arn)["Tags"] == []


def test_unknown_key_is_unrecognized(signed: Emulator, plain_client: Any) -> None:
    with freeze_time(SIGNED_AT), pytest.raises(Exception) as excinfo:
        plain_client(signed, "AKIDUNKNOWN", "whatever").list_schedules()
    assert error(excinfo) == (
        "UnrecognizedClientException",
        403,
        "The security token included in the request is invalid.",
    )


def test_wrong_secret_is_an_invalid_signature(signed: Emulator, plain_client: Any) -> None:
    with freeze_time(SIGNED_AT), pytest.raises(Exception) as excinfo:
        plain_client(signed, "AKIDGOOD", "not-the-secret").list_schedules()
    code, status, message = error(excinfo)
    assert (code, status) == ("InvalidSignatureException", 403)
    assert message.startswith("The request signature we calculated does not match")


def test_tampered_body_is_an_invalid_signature(signed: Emulator, plain_client: Any) -> None:
    client = plain_client(signed, "AKIDGOOD", "secret-good")

    def tamper(request: Any, **_: Any) -> None:
        request.body = request.body.replace(b"g1", b"g2")

    client.meta.events.register_last("before-send.scheduler", tamper)
    with freeze_time(SIGNED_AT), pytest.raises(Exception) as excinfo:
        client.create_schedule_group(Name="g1", Tags=[{"Key": "k", "Value": "g1"}])
    assert error(excinfo)[0] == "InvalidSignatureException"


@pytest.mark.parametrize("engine", ["freezegun", "time_machine"])
def test_a_client_under_the_frozen_clock_verifies_wherever_the_clock_moves(
    signed: Emulator, engine: str
) -> None:
    # The plugin's freeze holds process time at the virtual clock, so in-process clients
    # sign with the emulator's time, however far it is from the machine's.
    with signed.freeze_time(engine):
        client = signed.client()
        client.create_schedule_group(Name="g")
        signed.clock.advance(days=4 * 365)
        assert len(client.list_schedule_groups()["ScheduleGroups"]) == 2
    assert signed.clock.now().year == 2030


def test_unsigned_request_is_refused(signed: Emulator) -> None:
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(signed.endpoint_url + "/schedules")
    excinfo.value.close()
    assert excinfo.value.code == 403
    assert excinfo.value.headers["x-amzn-ErrorType"] == "MissingAuthenticationTokenException"


def test_signatures_are_not_checked_by_default(plain_client: Any) -> None:
    with Emulator(start=SIGNED_AT) as emu:
        now = datetime(2001, 1, 1, tzinfo=timezone.utc)
        with freeze_time(now):
            plain_client(emu, "anything", "anything").list_schedules()
        assert emu.clock.now() - now > timedelta(days=9000)


def test_verification_needs_credentials() -> None:
    with pytest.raises(ValueError, match="needs credentials"):
        Emulator(verify_signatures=True)


# -- the parts of a signature, checked one by one over raw HTTP -------------------------------

DATE = "20260301"
STAMP = "20260301T080000Z"
SCOPE = f"AKIDGOOD/{DATE}/us-east-1/scheduler/aws4_request"


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=SIGNED_AT, verify_signatures=True, credentials=CREDENTIALS) as emu:
        yield emu


@pytest.fixture
def http_signed(served: Emulator) -> Emulator:
    served.reset(start=SIGNED_AT)
    return served


def send(emu: Emulator, method: str, path: str, body: bytes, headers: dict[str, str]) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", int(emu.endpoint_url.rsplit(":", 1)[1]))
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        parsed = json.loads(response.read())
    finally:
        connection.close()
    if response.status == 200:
        return 200, parsed
    return response.status, parsed["__type"], parsed["Message"]


def signed_headers(
    emu: Emulator,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    service: str = "scheduler",
    secret: str = "secret-good",
    headers: dict[str, str] | None = None,
    at: str = SIGNED_AT,
) -> dict[str, str]:
    """The headers of a request signed the documented way, with botocore's SigV4Auth, at
    ``at`` (by default the instant the clock starts at)."""
    request = AWSRequest(method=method, url=emu.endpoint_url + path, data=body, headers=headers)
    with freeze_time(at):
        SigV4Auth(Credentials("AKIDGOOD", secret), service, "us-east-1").add_auth(request)
    return dict(request.prepare().headers.items())


def send_edited(emu: Emulator, old: str, new: str, header: str = "Authorization") -> Any:
    headers = signed_headers(emu, "GET", "/schedules")
    assert old in headers[header]
    headers[header] = headers[header].replace(old, new)
    return send(emu, "GET", "/schedules", b"", headers)


# -- how fresh a signature must be ------------------------------------------------------------

#: Where the machine's clock stands while a freshness test sends: three months after the
#: virtual clock's SIGNED_AT, as a served emulator's clock may be from the machine's.
MACHINE_NOW = "2026-06-01T12:00:00Z"


def signed_at(emu: Emulator, at: str) -> Any:
    """The answer to a request signed at ``at`` and sent at MACHINE_NOW."""
    headers = signed_headers(emu, "GET", "/schedules", at=at)
    with freeze_time(MACHINE_NOW):
        return send(emu, "GET", "/schedules", b"", headers)


@pytest.mark.parametrize(
    "at",
    [
        "2026-03-01T07:45:00Z",
        "2026-03-01T08:15:00Z",
        "2026-06-01T11:45:00Z",
        "2026-06-01T12:15:00Z",
    ],
)
def test_a_signature_within_fifteen_minutes_of_either_clock_verifies(
    http_signed: Emulator, at: str
) -> None:
    assert signed_at(http_signed, at)[0] == 200


@pytest.mark.parametrize(
    ("at", "message"),
    [
        (
            "2026-03-01T07:44:59Z",
            "Signature expired: 20260301T074459Z is now earlier than 20260301T074500Z "
            "(20260301T080000Z - 15 min.)",
        ),
        (
            "2026-03-01T08:16:00Z",
            "Signature not yet current: 20260301T081600Z is still later than 20260301T081500Z "
            "(20260301T080000Z + 15 min.)",
        ),
        (
            "2026-06-01T11:40:00Z",
            "Signature expired: 20260601T114000Z is now earlier than 20260601T114500Z "
            "(20260601T120000Z - 15 min.)",
        ),
        (
            "2026-06-01T12:15:01Z",
            "Signature not yet current: 20260601T121501Z is still later than 20260601T121500Z "
            "(20260601T120000Z + 15 min.)",
        ),
    ],
)
def test_a_signature_away_from_both_clocks_is_refused_by_the_nearer(
    http_signed: Emulator, at: str, message: str
) -> None:
    assert signed_at(http_signed, at) == (403, "InvalidSignatureException", message)


def test_credential_scoped_to_another_service_is_refused(http_signed: Emulator) -> None:
    headers = signed_headers(http_signed, "GET", "/schedules", service="events")
    assert send(http_signed, "GET", "/schedules", b"", headers) == (
        403,
        "InvalidSignatureException",
        "Credential should be scoped to correct service: 'scheduler'. ",
    )


def test_credential_date_must_be_the_date_of_x_amz_date(http_signed: Emulator) -> None:
    assert send_edited(http_signed, f"/{DATE}/", "/20260228/") == (
        403,
        "InvalidSignatureException",
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
        f"HTTP: '20260228' != '{DATE}', from '{STAMP}'.",
    )


def test_every_wrong_part_of_the_scope_is_named_at_once(http_signed: Emulator) -> None:
    wrong = "AKIDGOOD/20260228/us-east-1/events/aws5_request"
    assert send_edited(http_signed, SCOPE, wrong)[2] == (
        "Credential should be scoped to correct service: 'scheduler'. "
        "Credential should be scoped with a valid terminator: 'aws4_request', not "
        "'aws5_request'. "
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
        f"HTTP: '20260228' != '{DATE}', from '{STAMP}'."
    )


def test_a_credential_of_four_parts_is_incomplete(http_signed: Emulator) -> None:
    assert send_edited(http_signed, SCOPE, f"AKIDGOOD/{DATE}/us-east-1/scheduler") == (
        403,
        "IncompleteSignatureException",
        "Credential must have exactly 5 slash-delimited elements, e.g. "
        f"keyid/date/region/service/term, got 'AKIDGOOD/{DATE}/us-east-1/scheduler'",
    )


def test_missing_parts_of_the_authorization_header_are_listed(http_signed: Emulator) -> None:
    authorization = f"AWS4-HMAC-SHA256 Credential={SCOPE}"
    assert send(http_signed, "GET", "/schedules", b"", {"Authorization": authorization}) == (
        403,
        "IncompleteSignatureException",
        "Authorization header requires 'Signature' parameter. "
        "Authorization header requires 'SignedHeaders' parameter. "
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
        f"Authorization={authorization}",
    )


def test_x_amz_date_must_be_in_iso_8601_basic_format(http_signed: Emulator) -> None:
    status, code, message = send_edited(
        http_signed, STAMP, "2026-03-01T08:00:00Z", header="X-Amz-Date"
    )
    assert (status, code) == (403, "IncompleteSignatureException")
    assert message == (
        "Date must be in ISO-8601 'basic format'. Got '2026-03-01T08:00:00Z'. "
        "See http://en.wikipedia.org/wiki/ISO_8601"
    )


def test_host_must_be_a_signed_header(http_signed: Emulator) -> None:
    assert send_edited(http_signed, "SignedHeaders=host;", "SignedHeaders=") == (
        403,
        "InvalidSignatureException",
        "'Host' must be a 'SignedHeader' in the AWS Authorization.",
    )


def test_only_hmac_sha256_signatures_are_supported(http_signed: Emulator) -> None:
    assert send_edited(http_signed, "AWS4-HMAC-SHA256 ", "AWS4-ECDSA-P256-SHA256 ") == (
        403,
        "IncompleteSignatureException",
        "Unsupported AWS 'algorithm': 'AWS4-ECDSA-P256-SHA256' (only AWS4-HMAC-SHA256 for now). ",
    )


def test_an_authorization_header_that_is_not_sigv4_is_a_missing_token(
    http_signed: Emulator,
) -> None:
    assert send(http_signed, "GET", "/schedules", b"", {"Authorization": "Bearer abc"}) == (
        403,
        "MissingAuthenticationTokenException",
        "Missing Authentication Token",
    )


def test_a_mismatch_shows_the_canonical_request_aws_expected(http_signed: Emulator) -> None:
    headers = signed_headers(http_signed, "GET", "/schedules?MaxResults=5", secret="wrong")
    status, code, message = send(http_signed, "GET", "/schedules?MaxResults=5", b"", headers)
    assert (status, code) == (403, "InvalidSignatureException")
    host = http_signed.endpoint_url.split("//", 1)[1]
    canonical = (
        f"GET\n/schedules\nMaxResults=5\nhost:{host}\nx-amz-date:{STAMP}\n\nhost;x-amz-date\n"
        + hashlib.sha256(b"").hexdigest()
    )
    string_to_sign = (
        f"AWS4-HMAC-SHA256\n{STAMP}\n{DATE}/us-east-1/scheduler/aws4_request\n"
        + hashlib.sha256(canonical.encode()).hexdigest()
    )
    assert message == (
        "The request signature we calculated does not match the signature you provided. "
        "Check your AWS Secret Access Key and signing method. Consult the service "
        "documentation for details.\n\n"
        f"The Canonical String for this request should have been\n'{canonical}'\n\n"
        f"The String-to-Sign should have been\n'{string_to_sign}'\n"
    )


# -- the payload hash ---------------------------------------------------------------------------

BODY = b'{"Tags": []}'


def create_group(emu: Emulator, payload_hash: str, body: bytes = BODY) -> Any:
    headers = signed_headers(
        emu,
        "POST",
        "/schedule-groups/g",
        body,
        headers={"Content-Type": "application/json", "X-Amz-Content-SHA256": payload_hash},
    )
    return send(emu, "POST", "/schedule-groups/g", body, headers)


def test_a_payload_hash_header_that_matches_the_body_is_accepted(http_signed: Emulator) -> None:
    assert create_group(http_signed, hashlib.sha256(BODY).hexdigest())[0] == 200


def test_a_payload_hash_header_must_match_the_body(http_signed: Emulator) -> None:
    assert create_group(http_signed, hashlib.sha256(b"{}").hexdigest()) == (
        403,
        "InvalidSignatureException",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
    )


@pytest.mark.parametrize("value", ["UNSIGNED-PAYLOAD", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"])
def test_a_payload_left_out_of_the_signature_is_refused(http_signed: Emulator, value: str) -> None:
    # Signed over the header's value instead of the body, the body could be anything.
    assert create_group(http_signed, value) == (
        403,
        "InvalidSignatureException",
        f"x-amz-content-sha256 '{value}' is not supported by this service: sign the request "
        "body and send its SHA-256 as lowercase hex, or leave the header out.",
    )
    with freeze_time(SIGNED_AT):
        names = [g["Name"] for g in http_signed.client().list_schedule_groups()["ScheduleGroups"]]
    assert names == ["default"]


# -- the control API ------------------------------------------------------------------------------


def test_the_control_api_needs_a_signature_too(http_signed: Emulator) -> None:
    body = b'{"hours": 1}'
    path = "/_schedemu/clock/advance"
    assert send(http_signed, "POST", path, body, {})[:2] == (
        403,
        "MissingAuthenticationTokenException",
    )
    assert http_signed.clock.now() == datetime(2026, 3, 1, 8, tzinfo=timezone.utc)
    # Signed as docs/signing.md shows: botocore's SigV4Auth for the "scheduler" service.
    headers = signed_headers(http_signed, "POST", path, body, headers=JSON_TYPE)
    status, answer = send(http_signed, "POST", path, body, headers)
    assert (status, answer["now"]) == (200, "2026-03-01T09:00:00Z")


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_curl_signs_requests_the_emulator_accepts() -> None:
    # curl signs with the wall clock; a virtual clock started without start= is near it.
    with Emulator(verify_signatures=True, credentials=CREDENTIALS) as emu:

        def curl(*args: str, user: str = "AKIDGOOD:secret-good") -> Any:
            command = ["curl", "-s", "--aws-sigv4", "aws:amz:us-east-1:scheduler", "--user", user]
            result = subprocess.run(
                [*command, *args], capture_output=True, text=True, timeout=30, check=True
            )
            return json.loads(result.stdout)

        url = emu.endpoint_url
        assert curl(f"{url}/_schedemu/health")["status"] == "ok"
        before = emu.clock.now()
        # Within the 15 minutes a signature stays valid, as curl signs with the wall clock.
        curl("-X", "POST", f"{url}/_schedemu/clock/advance", "-d", '{"minutes": 5}', *CURL_JSON)
        assert emu.clock.now() - before == timedelta(minutes=5)
        body = '{"Tags": []}'
        digest = hashlib.sha256(body.encode()).hexdigest()
        created = curl(
            "-X",
            "POST",
            f"{url}/schedule-groups/g",
            "-H",
            "Content-Type: application/json",
            "-H",
            f"x-amz-content-sha256: {digest}",
            "-d",
            body,
        )
        assert created["ScheduleGroupArn"].endswith(":schedule-group/g")
        refused = curl(f"{url}/schedules", user="AKIDGOOD:wrong")
        assert refused["__type"] == "InvalidSignatureException"


def test_auth_errors_can_be_injected(plain_client: Any) -> None:
    with Emulator(start=SIGNED_AT) as emu:
        emu.inject_api_error(code="UnrecognizedClientException", message="expired")
        with pytest.raises(Exception) as excinfo:
            plain_client(emu).list_schedules()
        assert error(excinfo) == ("UnrecognizedClientException", 403, "expired")
