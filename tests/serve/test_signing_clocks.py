"""Real clients sign with the machine's clock: ``schedemu serve --verify-signatures`` takes
their requests wherever its virtual clock stands, and answers with the machine's time in
``Date``, so an SDK that corrects its clock by that header keeps signing with the
machine's.

Each client is driven after the clock moves years forward (``clock/move-to``) and years
back (``reset`` with an earlier ``start``), as a suite against a served emulator would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from freezegun import freeze_time

from pytest_schedemu.protocol.signing import SKEW
from tests.serve.test_serve import Served

KEY, SECRET = "AKIDREALCLIENT", "real-client-secret"
JS_SDK = Path(__file__).parent / "js_sdk"
#: How far the machine's clock may move while one request is signed, sent and answered.
LEEWAY = timedelta(minutes=1)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    credentials = tmp_path_factory.mktemp("signing") / "credentials.json"
    credentials.write_text(json.dumps({KEY: SECRET}))
    served = Served("--clock", "virtual", "--verify-signatures", "--credentials", str(credentials))
    yield served
    served.stop()


def machine_now() -> datetime:
    return datetime.now(timezone.utc)


def signed_request(served: Served, method: str, path: str, body: Any = None) -> Any:
    """A request to ``path`` signed with botocore on the machine's clock (or the frozen one
    a test holds it at)."""
    data = b"" if body is None else json.dumps(body).encode()
    request = AWSRequest(
        method=method,
        url=served.url + path,
        data=data,
        headers={"Content-Type": "application/json"},
    )
    SigV4Auth(Credentials(KEY, SECRET), "scheduler", "us-east-1").add_auth(request)
    prepared = request.prepare()
    return urllib.request.Request(
        prepared.url, data=prepared.body or None, headers=dict(prepared.headers), method=method
    )


def control(served: Served, method: str, path: str, body: Any = None) -> Any:
    with urllib.request.urlopen(
        signed_request(served, method, f"/_schedemu/{path}", body), timeout=10
    ) as answer:
        return json.loads(answer.read())


def stamped(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def at_moved_clocks(served: Served) -> Iterator[int]:
    """Put the virtual clock at the machine's time, four years ahead, then five years back;
    yield the virtual year at each."""
    start = machine_now()
    assert control(served, "POST", "reset", {"start": stamped(start)})["now"] == stamped(start)
    yield start.year
    ahead = stamped(start + timedelta(days=4 * 365))
    assert control(served, "POST", "clock/move-to", {"time": ahead})["now"] == ahead
    yield start.year + 4
    back = stamped(start - timedelta(days=5 * 365))
    assert control(served, "POST", "reset", {"start": back})["now"] == back
    yield start.year - 5


def check_client(served: Served, call: Callable[[str], list[str]]) -> None:
    """``call(group)`` creates ``group`` and answers the names of the groups listed after."""
    for year in at_moved_clocks(served):
        assert control(served, "GET", "clock")["now"].startswith(str(year))
        group = f"group-{year}"
        assert group in call(group)


def test_boto3_verifies_after_moves_forward_and_back(served: Served) -> None:
    client = boto3.client(
        "scheduler",
        endpoint_url=served.url,
        region_name="us-east-1",
        aws_access_key_id=KEY,
        aws_secret_access_key=SECRET,
    )

    def call(group: str) -> list[str]:
        client.create_schedule_group(Name=group)
        return [g["Name"] for g in client.list_schedule_groups()["ScheduleGroups"]]

    check_client(served, call)
    client.close()


def client_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a client process: the test's key, and no AWS configuration."""
    return {
        **os.environ,
        "AWS_ACCESS_KEY_ID": KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        # The SDK's notice about node versions to come says nothing about the calls.
        "NODE_NO_WARNINGS": "1",
    }


@pytest.mark.skipif(shutil.which("aws") is None, reason="needs the AWS CLI (aws)")
def test_the_aws_cli_verifies_after_moves_forward_and_back(served: Served, tmp_path: Path) -> None:
    environment = client_environment(tmp_path)

    def aws(*args: str) -> Any:
        command = ["aws", "scheduler", *args, "--endpoint-url", served.url, "--output", "json"]
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=60, env=environment
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def call(group: str) -> list[str]:
        aws("create-schedule-group", "--name", group)
        return [g["Name"] for g in aws("list-schedule-groups")["ScheduleGroups"]]

    check_client(served, call)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.skipif(
    not (JS_SDK / "node_modules" / "@aws-sdk" / "client-scheduler").is_dir(),
    reason="needs @aws-sdk/client-scheduler: npm ci in tests/serve/js_sdk",
)
def test_the_js_sdk_verifies_after_moves_forward_and_back(served: Served, tmp_path: Path) -> None:
    environment = client_environment(tmp_path)

    def call(group: str) -> list[str]:
        result = subprocess.run(
            ["node", "client.mjs", served.url, KEY, SECRET, group],
            cwd=JS_SDK,
            capture_output=True,
            text=True,
            timeout=60,
            env=environment,
            check=True,
        )
        outcome = json.loads(result.stdout)
        assert "error" not in outcome, outcome["error"]
        # The SDK corrects its clock by the answers' Date header: it must stay the machine's.
        assert abs(outcome["offset"]) < LEEWAY.total_seconds() * 1000
        groups: list[str] = outcome["groups"]
        return groups

    check_client(served, call)


def test_answers_carry_the_machine_s_time_in_date_wherever_the_clock_is(served: Served) -> None:
    for _year in at_moved_clocks(served):
        for request in (
            signed_request(served, "GET", "/schedule-groups"),
            urllib.request.Request(served.url + "/schedule-groups"),
        ):
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    date = answer.headers["Date"]
            except urllib.error.HTTPError as refused:
                refused.close()
                assert refused.code == 403
                date = refused.headers["Date"]
            assert abs(parsedate_to_datetime(date) - machine_now()) < LEEWAY


@pytest.mark.parametrize(
    ("minutes", "message"),
    [
        (-20, r"Signature expired: (\w+) is now earlier than (\w+) \((\w+) - 15 min\.\)"),
        (20, r"Signature not yet current: (\w+) is still later than (\w+) \((\w+) \+ 15 min\.\)"),
    ],
)
def test_a_signature_twenty_real_minutes_away_is_refused(
    served: Served, minutes: int, message: str
) -> None:
    for _year in at_moved_clocks(served):
        with freeze_time(machine_now() + timedelta(minutes=minutes)):
            request = signed_request(served, "GET", "/schedule-groups")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        answer = json.loads(refused.value.read())
        refused.value.close()
        assert (refused.value.code, answer["__type"]) == (403, "InvalidSignatureException")
        matched = re.fullmatch(message, answer["Message"])
        assert matched is not None, answer["Message"]
        _stamp, bound, clock = (
            datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
            for text in matched.groups()
        )
        assert matched.group(1) == request.headers["X-amz-date"]
        # Judged by the machine's clock (or a virtual one standing at it), as AWS judges it.
        assert abs(clock - machine_now()) < LEEWAY
        assert bound - clock == SKEW * (1 if minutes > 0 else -1)
