"""Opt-in SigV4 verification against the virtual clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from freezegun import freeze_time

from pytest_schedemu import Emulator

START = "2026-03-01T08:00:00Z"
CREDENTIALS = {"AKIDGOOD": "secret-good", "111122223333": "secret-other"}


@pytest.fixture(params=["http", "inprocess"])
def signed(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    with Emulator(
        start=START,
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
    with freeze_time(START):
        signed.client().create_schedule_group(Name="g")
        other = plain_client(signed, "111122223333", "secret-other")
        assert other.create_schedule_group(Name="g")["ScheduleGroupArn"].split(":")[4] == (
            "111122223333"
        )
        # Labels that need percent-encoding are signed over the encoded path.
        arn = "arn:aws:scheduler:us-east-1:111122223333:schedule-group/g"
        assert other.list_tags_for_resource(ResourceArn=arn)["Tags"] == []


def test_unknown_key_is_unrecognized(signed: Emulator, plain_client: Any) -> None:
    with freeze_time(START), pytest.raises(Exception) as excinfo:
        plain_client(signed, "AKIDUNKNOWN", "whatever").list_schedules()
    assert error(excinfo) == (
        "UnrecognizedClientException",
        403,
        "The security token included in the request is invalid.",
    )


def test_wrong_secret_is_an_invalid_signature(signed: Emulator, plain_client: Any) -> None:
    with freeze_time(START), pytest.raises(Exception) as excinfo:
        plain_client(signed, "AKIDGOOD", "not-the-secret").list_schedules()
    code, status, message = error(excinfo)
    assert (code, status) == ("InvalidSignatureException", 403)
    assert message.startswith("The request signature we calculated does not match")


def test_tampered_body_is_an_invalid_signature(signed: Emulator, plain_client: Any) -> None:
    client = plain_client(signed, "AKIDGOOD", "secret-good")

    def tamper(request: Any, **_: Any) -> None:
        request.body = request.body.replace(b"g1", b"g2")

    client.meta.events.register_last("before-send.scheduler", tamper)
    with freeze_time(START), pytest.raises(Exception) as excinfo:
        client.create_schedule_group(Name="g1", Tags=[{"Key": "k", "Value": "g1"}])
    assert error(excinfo)[0] == "InvalidSignatureException"


def test_signature_more_than_fifteen_minutes_away_from_the_virtual_clock(
    signed: Emulator, plain_client: Any
) -> None:
    client = plain_client(signed, "AKIDGOOD", "secret-good")
    with freeze_time("2026-03-01T08:14:00Z"):
        client.list_schedules()
    with freeze_time("2026-03-01T08:16:00Z"), pytest.raises(Exception) as excinfo:
        client.list_schedules()
    assert error(excinfo) == (
        "InvalidSignatureException",
        403,
        "Signature not yet current: 20260301T081600Z is still later than 20260301T081500Z "
        "(20260301T080000Z + 15 min.)",
    )
    signed.clock.advance(hours=1)
    with freeze_time("2026-03-01T08:40:00Z"), pytest.raises(Exception) as excinfo:
        client.list_schedules()
    assert error(excinfo)[2] == (
        "Signature expired: 20260301T084000Z is now earlier than 20260301T084500Z "
        "(20260301T090000Z - 15 min.)"
    )


def test_unsigned_request_is_refused(signed: Emulator) -> None:
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(signed.endpoint_url + "/schedules")
    excinfo.value.close()
    assert excinfo.value.code == 403
    assert excinfo.value.headers["x-amzn-ErrorType"] == "MissingAuthenticationTokenException"


def test_signatures_are_not_checked_by_default(plain_client: Any) -> None:
    with Emulator(start=START) as emu:
        now = datetime(2001, 1, 1, tzinfo=timezone.utc)
        with freeze_time(now):
            plain_client(emu, "anything", "anything").list_schedules()
        assert emu.clock.now() - now > timedelta(days=9000)


def test_verification_needs_credentials() -> None:
    with pytest.raises(ValueError, match="needs credentials"):
        Emulator(verify_signatures=True)
