"""An ``Authorization`` header is read one way only: the credential that is verified is the
one whose account and region the request acts in.

Every SDK sends ``AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…``; anything
else (a parameter repeated, unknown or out of place) is refused before any check of the
signature, with AWS's 403 ``IncompleteSignatureException``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from freezegun import freeze_time

from pytest_schedemu import Emulator
from tests.api.test_signing import SIGNED_AT, send
from tests.constants import QUEUE, ROLE
from tests.helpers import schedule_args

VICTIM, VICTIM_SECRET = "111111111111", "victim-secret"
ATTACKER, ATTACKER_SECRET = "222222222222", "attacker-secret"
DATE = "20260301"
PAYROLL = "/schedules/payroll"
TARGET = {"Arn": QUEUE, "RoleArn": ROLE, "Input": '{"token": "s3cret"}'}


@pytest.fixture(scope="module")
def accounts() -> Iterator[Emulator]:
    with Emulator(
        start=SIGNED_AT,
        verify_signatures=True,
        credentials={VICTIM: VICTIM_SECRET, ATTACKER: ATTACKER_SECRET},
    ) as emu:
        yield emu


@pytest.fixture
def victim(accounts: Emulator) -> Iterator[Any]:
    """The victim's client, after it created its ``payroll`` schedule."""
    accounts.reset(start=SIGNED_AT)
    client = boto3.client(
        "scheduler",
        endpoint_url=accounts.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id=VICTIM,
        aws_secret_access_key=VICTIM_SECRET,
    )
    with freeze_time(SIGNED_AT):
        client.create_schedule(**schedule_args("payroll", Target=TARGET))
    yield client
    client.close()


def signed(emu: Emulator, method: str, path: str, key: str, secret: str) -> dict[str, str]:
    request = AWSRequest(method=method, url=emu.endpoint_url + path)
    with freeze_time(SIGNED_AT):
        SigV4Auth(Credentials(key, secret), "scheduler", "us-east-1").add_auth(request)
    return dict(request.prepare().headers.items())


def scope(key: str) -> str:
    return f"Credential={key}/{DATE}/us-east-1/scheduler/aws4_request"


def test_a_second_credential_cannot_reach_another_account(accounts: Emulator, victim: Any) -> None:
    for method in ("GET", "DELETE"):
        # The attacker's own valid signature, behind a first Credential naming the victim.
        headers = signed(accounts, method, PAYROLL, ATTACKER, ATTACKER_SECRET)
        own = headers["Authorization"]
        headers["Authorization"] = own.replace(
            "AWS4-HMAC-SHA256 ", f"AWS4-HMAC-SHA256 {scope(VICTIM)}, ", 1
        )
        answer = send(accounts, method, PAYROLL, b"", headers)
        assert answer[:2] == (403, "IncompleteSignatureException")
        assert answer[2].startswith(
            "Authorization header gives the 'Credential' parameter more than once."
        )
    with freeze_time(SIGNED_AT):
        kept = victim.get_schedule(Name="payroll")
    assert kept["Target"]["Input"] == '{"token": "s3cret"}'


def test_the_account_is_the_verified_credentials(accounts: Emulator, victim: Any) -> None:
    headers = signed(accounts, "GET", PAYROLL, ATTACKER, ATTACKER_SECRET)
    assert send(accounts, "GET", PAYROLL, b"", headers)[:2] == (404, "ResourceNotFoundException")
    headers = signed(accounts, "GET", PAYROLL, VICTIM, VICTIM_SECRET)
    status, answer = send(accounts, "GET", PAYROLL, b"", headers)
    assert (status, answer["Arn"].split(":")[4]) == (200, VICTIM)


def rewritten(header: str) -> dict[str, str]:
    """The parts of a valid header, to rebuild it wrongly."""
    rest = header.partition(" ")[2]
    return dict(part.split("=", 1) for part in rest.split(", "))


MALFORMED = {
    "repeated SignedHeaders": (
        "Credential={c}, SignedHeaders={h}, SignedHeaders={h}, Signature={s}",
        "Authorization header gives the 'SignedHeaders' parameter more than once. ",
    ),
    "repeated Signature": (
        "Credential={c}, SignedHeaders={h}, Signature=00, Signature={s}",
        "Authorization header gives the 'Signature' parameter more than once. ",
    ),
    "unknown parameter": (
        "Credential={c}, SignedHeaders={h}, Signature={s}, Region=eu-west-1",
        "Authorization header has an unknown parameter 'Region'. ",
    ),
    "out of order": (
        "Signature={s}, Credential={c}, SignedHeaders={h}",
        "Authorization header must give 'Credential', 'SignedHeaders' and 'Signature' in that "
        "order. ",
    ),
    "no equal sign": (
        "Credential={c}, SignedHeaders={h}, Signature={s}, Extra",
        "'Extra' not a valid key=value pair (missing equal-sign) in Authorization header: ",
    ),
}


@pytest.mark.parametrize("form", MALFORMED.values(), ids=MALFORMED)
@pytest.mark.parametrize("path", ["/schedules", "/_schedemu/schedules"])
def test_a_header_in_any_other_form_is_refused(
    accounts: Emulator, victim: Any, form: tuple[str, str], path: str
) -> None:
    headers = signed(accounts, "GET", path, VICTIM, VICTIM_SECRET)
    parts = rewritten(headers["Authorization"])
    headers["Authorization"] = "AWS4-HMAC-SHA256 " + form[0].format(
        c=parts["Credential"], h=parts["SignedHeaders"], s=parts["Signature"]
    )
    answer = send(accounts, "GET", path, b"", headers)
    assert answer[:2] == (403, "IncompleteSignatureException")
    assert answer[2].startswith(form[1])


def test_commas_without_spaces_are_read_as_aws_reads_them(accounts: Emulator, victim: Any) -> None:
    headers = signed(accounts, "GET", PAYROLL, VICTIM, VICTIM_SECRET)
    headers["Authorization"] = headers["Authorization"].replace(", ", ",")
    assert send(accounts, "GET", PAYROLL, b"", headers)[0] == 200


def test_a_presigned_url_is_no_way_around_the_header(accounts: Emulator, victim: Any) -> None:
    request = AWSRequest(method="GET", url=accounts.endpoint_url + PAYROLL)
    with freeze_time(SIGNED_AT):
        SigV4QueryAuth(Credentials(VICTIM, VICTIM_SECRET), "scheduler", "us-east-1").add_auth(
            request
        )
    path = request.url.split(accounts.endpoint_url, 1)[1]
    assert "X-Amz-Credential=" in path
    assert send(accounts, "GET", path, b"", {})[:2] == (403, "MissingAuthenticationTokenException")


def test_without_verification_a_malformed_header_names_the_default_partition() -> None:
    with Emulator(start=SIGNED_AT) as emu:
        client = boto3.client(
            "scheduler",
            endpoint_url=emu.endpoint_url,
            region_name="eu-west-1",
            aws_access_key_id=VICTIM,
            aws_secret_access_key="anything",
        )

        def doubled(request: Any, **_: Any) -> None:
            header = request.headers["Authorization"].decode()
            request.headers["Authorization"] = header.replace(
                "AWS4-HMAC-SHA256 ", f"AWS4-HMAC-SHA256 {scope(ATTACKER)}, ", 1
            )

        arn = client.create_schedule_group(Name="named")["ScheduleGroupArn"]
        assert arn.split(":")[3:5] == ["eu-west-1", VICTIM]
        client.meta.events.register_last("before-send.scheduler", doubled)
        arn = client.create_schedule_group(Name="doubled")["ScheduleGroupArn"]
        assert arn.split(":")[3:5] == ["us-east-1", emu.settings.account_id]
        client.close()
