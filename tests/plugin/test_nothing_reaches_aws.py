"""Nothing a schedemu test sends reaches AWS: a marker alone brings the emulator, a client
built before the plugin loaded is served, a module-level client gets a region and test
credentials on a machine without AWS configuration (so that no credential lookup leaves
it), and what cannot be served fails at once saying why."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import boto3
import botocore.session
import pytest

from pytest_schedemu import Emulator, SchedemuError
from pytest_schedemu.plugin import lending
from pytest_schedemu.wire.intercept import interception
from tests.constants import ACCOUNT

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

ROLE = "arn:aws:iam::123456789012:role/r"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:q"
SCHEDULE = {
    "ScheduleExpression": "at(2026-03-02T08:00:00)",
    "FlexibleTimeWindow": {"Mode": "OFF"},
    "Target": {"Arn": QUEUE, "RoleArn": ROLE},
}


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without AWS configuration: no credentials, no region, no profile."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


# -- the marker alone ------------------------------------------------------------------------

MARKED_ONLY = f"""
import boto3
import pytest

# Application code: a module-level client, built at collection.
CLIENT = boto3.client("scheduler")

@pytest.mark.schedemu(start="2026-03-01T08:00:00Z", region="eu-west-1")
def test_trial_reminder(request):
    CLIENT.create_schedule(Name="trial-ends", **{SCHEDULE!r})
    assert CLIENT.get_schedule(Name="trial-ends")["Name"] == "trial-ends"
    emulator = request.getfixturevalue("schedemu")
    assert [s.name for s in emulator.schedules()] == ["trial-ends"]
    assert emulator.clock.now().isoformat() == "2026-03-01T08:00:00+00:00"
    # A client built during the test gets the test's region, not the one lent to the run.
    assert boto3.client("scheduler").meta.region_name == "eu-west-1"

def test_unmarked_tests_are_left_alone(request):
    assert "schedemu" not in request.fixturenames
"""


def test_a_marked_test_uses_the_emulator_without_naming_the_fixture(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    pytester.makepyfile(MARKED_ONLY)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_marked_test_gets_the_emulator_after_wider_fixtures_and_before_its_own(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
import os
import pytest

ORDER = []

@pytest.fixture(scope="session")
def session_wide():
    ORDER.append(("session", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))

@pytest.fixture
def own():
    ORDER.append(("own", os.environ.get("AWS_ENDPOINT_URL_SCHEDULER")))

@pytest.mark.schedemu
def test_marked(own, session_wide, request):
    endpoint = request.getfixturevalue("schedemu").endpoint_url
    assert ORDER == [("session", None), ("own", endpoint)]
"""
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_marked_test_that_names_the_fixture_sets_it_up_where_it_names_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
import pytest

ORDER = []

@pytest.fixture
def first():
    ORDER.append("first")

@pytest.fixture
def schedemu(schedemu):
    ORDER.append("schedemu")
    return schedemu

@pytest.mark.schedemu(seed=3)
def test_order(first, schedemu):
    assert ORDER == ["first", "schedemu"]
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


# -- clients built before the plugin loaded ------------------------------------------------

EARLY_PLUGIN = """
import sys

import botocore.session

# Another plugin, loaded before pytest-schedemu: its session and its clients exist before
# the interception is installed.
assert "pytest_schedemu" not in sys.modules
SESSION = botocore.session.Session()
UNSIGNED = SESSION.create_client("scheduler", region_name="us-east-1")
SIGNED = SESSION.create_client(
    "scheduler", region_name="us-east-1",
    aws_access_key_id="AKIAIOSFODNN7EXAMPLE", aws_secret_access_key="secret",
)
"""

USES_EARLY_CLIENTS = f"""
import pytest

import early

@pytest.mark.schedemu
def test_served(request):
    early.UNSIGNED.create_schedule(Name="without-credentials", **{SCHEDULE!r})
    early.SIGNED.create_schedule(Name="with-credentials", **{SCHEDULE!r})
    emulator = request.getfixturevalue("schedemu")
    assert sorted(s.name for s in emulator.schedules()) == [
        "with-credentials", "without-credentials"
    ]
"""


def test_clients_of_a_session_made_before_the_plugin_loaded_are_served(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    pytester.makepyfile(early=EARLY_PLUGIN, test_early=USES_EARLY_CLIENTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "early")
    result.assert_outcomes(passed=1)


def test_a_client_that_cannot_be_served_fails_at_once_saying_why(
    schedemu: Emulator, unconfigured: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on a botocore too old to sign one request with other credentials than its client's,
    # for an emulator that checks signatures (one that does not needs none).
    monkeypatch.setattr(interception, "_can_lend_credentials", False)
    session = botocore.session.Session()
    assert session.get_credentials() is None
    client = session.create_client("scheduler", "us-east-1")
    checking = Emulator(verify_signatures=True, credentials={"testing": "testing"})
    with (
        checking,
        checking.intercept(),
        pytest.raises(
            SchedemuError,
            match="could not intercept this scheduler client: it has no credentials, and botocore",
        ),
    ):
        client.list_schedules()
    client.close()


def test_a_client_without_credentials_needs_none_where_signatures_are_not_checked(
    schedemu: Emulator, unconfigured: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(interception, "_can_lend_credentials", False)
    session = botocore.session.Session()
    assert session.get_credentials() is None
    client = session.create_client("scheduler", "us-east-1")
    client.create_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    client.close()
    assert [s.arn for s in schedemu.schedules()] == [
        f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule/default/s1"
    ]


# -- a region for clients built before any test ----------------------------------------------

APPLICATION = """
import boto3

CLIENT = boto3.client("scheduler")
"""
CONFTEST = "import application  # builds its client while pytest starts\n"
USES_APPLICATION = f"""
import application

def test_served(schedemu):
    region = application.CLIENT.meta.region_name
    application.CLIENT.create_schedule(
        Name="s1",
        ScheduleExpression="rate(1 hour)",
        FlexibleTimeWindow={{"Mode": "OFF"}},
        Target={{"Arn": f"arn:aws:sqs:{{region}}:123456789012:q", "RoleArn": {ROLE!r}}},
    )
    assert [s.region for s in schedemu.schedules()] == [region]
"""


@pytest.mark.parametrize(
    ("arguments", "environment", "region"),
    [
        ((), {}, "us-east-1"),
        (("--schedemu-region=ap-south-1",), {}, "ap-south-1"),
        (("-o", "schedemu_region=eu-north-1"), {}, "eu-north-1"),
        ((), {"AWS_REGION": "ca-central-1"}, "ca-central-1"),
    ],
    ids=["default", "command-line", "ini", "AWS_REGION"],
)
def test_clients_built_as_pytest_starts_get_a_region_on_a_machine_without_one(
    pytester: pytest.Pytester,
    unconfigured: None,
    monkeypatch: pytest.MonkeyPatch,
    arguments: tuple[str, ...],
    environment: dict[str, str],
    region: str,
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(application=APPLICATION, conftest=CONFTEST, test_app=USES_APPLICATION)
    pytester.makepyfile(
        test_region=f"""
import application

def test_region():
    assert application.CLIENT.meta.region_name == {region!r}
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *arguments)
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize(
    "opt_out",
    [("--schedemu-set-default-region=false",), ("-o", "schedemu_set_default_region=0")],
    ids=["command-line", "ini"],
)
def test_the_default_region_can_be_turned_off(
    pytester: pytest.Pytester, unconfigured: None, opt_out: tuple[str, ...]
) -> None:
    pytester.makepyfile(application=APPLICATION, test_app=USES_APPLICATION)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *opt_out)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*NoRegionError*"])


def test_the_region_lent_to_a_run_is_taken_back_when_it_ends(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    pytester.makepyfile(
        "import os\n\ndef test_lent():\n    assert os.environ['AWS_DEFAULT_REGION'] == 'us-east-1'"
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert "AWS_DEFAULT_REGION" not in os.environ


def test_a_lent_region_a_test_changes_is_put_back_after_it(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    # The emulator's region is the lent one, so the fixture has nothing to write; what the
    # test itself writes is taken back all the same.
    pytester.makepyfile(
        """
import os

def test_changes(schedemu):
    os.environ["AWS_DEFAULT_REGION"] = "eu-west-1"

def test_after():
    assert os.environ["AWS_DEFAULT_REGION"] == "us-east-1"
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_region_botocore_finds_is_left_alone(
    pytester: pytest.Pytester, unconfigured: None, tmp_path: Path
) -> None:
    (tmp_path / "no-config").write_text("[default]\nregion = sa-east-1\n")
    pytester.makepyfile(
        "import os\n\ndef test_kept():\n    assert 'AWS_DEFAULT_REGION' not in os.environ\n"
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_bad_default_region_switch_is_a_usage_error(
    pytester: pytest.Pytester, unconfigured: None
) -> None:
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--schedemu-set-default-region=maybe")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*Unsupported --schedemu-set-default-region 'maybe'*"])


# -- no credential lookup leaves the machine ---------------------------------------------------

MACHINE_KEY = "ASIAMACHINEROLEKEY01"


class _CredentialEndpoint(BaseHTTPRequestHandler):
    """An instance metadata service and a container credentials endpoint in one, as a
    machine with a role has them: each request is kept, and answered with credentials."""

    requests: list[str]

    def do_PUT(self) -> None:
        self._answer("a-session-token")

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("security-credentials"):
            self._answer("machine-role")
        else:
            self._answer(
                json.dumps(
                    {
                        "Code": "Success",
                        "AccessKeyId": MACHINE_KEY,
                        "SecretAccessKey": "machine-secret",
                        "Token": "machine-token",
                        "Expiration": "2099-01-01T00:00:00Z",
                    }
                )
            )

    def _answer(self, text: str) -> None:
        self.requests.append(f"{self.command} {self.path}")
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def credential_endpoint() -> Iterator[tuple[str, list[str]]]:
    """A local credential endpoint: its URL, and the requests it was sent."""
    requests: list[str] = []
    handler = type("Endpoint", (_CredentialEndpoint,), {"requests": requests})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()
    server.server_close()
    thread.join()


# Application code's clients, built while pytest collects, and a call through the plugin.
ROLE_APPLICATION = """
import boto3

CLIENT = boto3.client("scheduler")
QUEUES = boto3.client("sqs")
"""
USES_ROLE_APPLICATION = f"""
import application

def test_served(schedemu):
    application.CLIENT.create_schedule(Name="s1", **{SCHEDULE!r})
    assert [s.name for s in schedemu.schedules()] == ["s1"]
"""


@pytest.mark.parametrize(
    ("variable", "path"),
    [
        ("AWS_EC2_METADATA_SERVICE_ENDPOINT", "/"),
        ("AWS_CONTAINER_CREDENTIALS_FULL_URI", "/v2/credentials"),
    ],
    ids=["instance-metadata", "container"],
)
@pytest.mark.parametrize(
    "opt_out",
    [
        (),
        ("--schedemu-set-default-credentials=false",),
        ("-o", "schedemu_set_default_credentials=0"),
    ],
    ids=["lent", "opt-out-command-line", "opt-out-ini"],
)
def test_no_credential_lookup_reaches_the_machines_endpoints(
    pytester: pytest.Pytester,
    unconfigured: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    credential_endpoint: tuple[str, list[str]],
    variable: str,
    path: str,
    opt_out: tuple[str, ...],
) -> None:
    url, requests = credential_endpoint
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(variable, url + path)
    pytester.makepyfile(
        application=ROLE_APPLICATION,
        conftest="import application\n",
        test_app=USES_ROLE_APPLICATION,
        test_credentials=f"""
import os

import application

def test_credentials():
    key = application.QUEUES._request_signer._credentials.access_key
    assert key == ({MACHINE_KEY!r} if {bool(opt_out)!r} else "testing")
    assert ("AWS_EC2_METADATA_DISABLED" in os.environ) is not {bool(opt_out)!r}
""",
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *opt_out)
    result.assert_outcomes(passed=2)
    if opt_out:
        # Without the plugin's credentials, botocore asks the machine as the client is built.
        assert requests
    else:
        assert requests == []


def test_credentials_botocore_finds_are_left_alone(
    pytester: pytest.Pytester, unconfigured: None, tmp_path: Path
) -> None:
    (tmp_path / "no-credentials").write_text(
        "[default]\naws_access_key_id = AKIAFROMTHEFILE\naws_secret_access_key = s\n"
    )
    pytester.makepyfile(
        """
import os

import boto3

def test_kept():
    assert "AWS_ACCESS_KEY_ID" not in os.environ
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"  # the fixture's own
    assert boto3.session.Session().get_credentials().access_key == "AKIAFROMTHEFILE"
"""
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "profile",
    [
        "credential_process = /bin/false",
        "role_arn = arn:aws:iam::123456789012:role/r\nsource_profile = other",
        "sso_session = work",
        "aws_access_key_id = AKIAFROMCONFIG\naws_secret_access_key = s",
    ],
    ids=["credential-process", "assume-role", "sso", "keys"],
)
def test_a_profiles_own_way_to_credentials_counts_as_found_without_being_run(
    unconfigured: None, tmp_path: Path, profile: str
) -> None:
    # Nothing here can run: /bin/false, a role and SSO with nothing to reach them by.
    (tmp_path / "no-config").write_text(f"[default]\n{profile}\n")
    assert lending.botocore_finds_credentials()


def test_a_profile_without_credentials_finds_none(unconfigured: None, tmp_path: Path) -> None:
    (tmp_path / "no-config").write_text("[default]\nregion = eu-west-1\noutput = json\n")
    assert not lending.botocore_finds_credentials()


def test_the_credentials_lent_to_a_run_are_taken_back_when_it_ends(
    pytester: pytest.Pytester, unconfigured: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    pytester.makepyfile(
        """
import os

def test_lent():
    assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"
"""
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    lent = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_EC2_METADATA_DISABLED")
    assert not set(lent) & set(os.environ)


# -- exceptions ------------------------------------------------------------------------------


def test_the_fixture_clients_exceptions_are_the_ones_application_clients_raise(
    scheduler_client: object,
) -> None:
    application = boto3.client("scheduler")  # application code, from the test's environment
    application.create_schedule(Name="s1", **SCHEDULE)
    with pytest.raises(scheduler_client.exceptions.ConflictException):  # type: ignore[attr-defined]
        application.create_schedule(Name="s1", **SCHEDULE)


def test_boto3_delivery_to_an_endpoint_asks_no_credential_endpoint(
    unconfigured: None,
    credential_endpoint: tuple[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ``schedemu serve --delivery boto3 --delivery-endpoint-url ...`` on a machine with a
    # role and no configuration: its clients use test credentials, found nowhere else.
    from pytest_schedemu.dispatch.forwarding import Boto3Delivery

    url, requests = credential_endpoint
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", url)
    delivery = Boto3Delivery("http://127.0.0.1:9", timeout=1.0)
    try:
        client = delivery._client("sqs", "us-east-1")
        assert client._request_signer._credentials.access_key == "testing"
    finally:
        delivery.close()
    assert requests == []
