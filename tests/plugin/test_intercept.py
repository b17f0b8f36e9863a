"""Interception: every botocore scheduler client in the process reaches the test's emulator."""

from __future__ import annotations

import asyncio
import inspect
import socket
import threading
from collections.abc import Iterator
from typing import Any, Callable

import boto3
import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from botocore.signers import RequestSigner

from pytest_schedemu import Emulator
from pytest_schedemu.wire.intercept import Interception, interception
from pytest_schedemu.wire.transport import ANSWERED_HOST, answer_in_process
from tests.constants import QUEUE, ROLE

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

TARGET = {"Arn": QUEUE, "RoleArn": ROLE}
SCHEDULE = {"ScheduleExpression": "rate(1 hour)", "FlexibleTimeWindow": {"Mode": "OFF"}}
NO_RETRIES = Config(retries={"total_max_attempts": 1, "mode": "standard"})


@pytest.fixture
def dead_url() -> str:
    """An endpoint nothing listens on: a request that gets there fails to connect."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def build() -> Iterator[Callable[..., Any]]:
    """Scheduler clients built as application code builds them, closed after the test."""
    made: list[Any] = []

    def build(**options: Any) -> Any:
        options = {
            "region_name": "us-east-1",
            "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
            "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "config": NO_RETRIES,
            **options,
        }
        client = boto3.client("scheduler", **options)
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


@pytest.fixture
def no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def arns(emu: Emulator) -> list[str]:
    return [schedule.arn for schedule in emu.schedules()]


# -- inside a test that uses schedemu ----------------------------------------------------------


def test_client_with_the_aws_endpoint_is_served_without_a_socket(
    schedemu: Emulator, build: Callable[..., Any], no_socket: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL_SCHEDULER")
    client = build()
    assert client.meta.endpoint_url == "https://scheduler.us-east-1.amazonaws.com"
    client.create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
    assert arns(schedemu) == ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"]


def test_client_pointed_elsewhere_is_served(
    schedemu: Emulator, build: Callable[..., Any], dead_url: str
) -> None:
    build(endpoint_url=dead_url).create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
    assert len(schedemu.schedules()) == 1


def test_region_and_account_come_from_the_client(
    schedemu: Emulator, build: Callable[..., Any], dead_url: str
) -> None:
    client = build(endpoint_url=dead_url, region_name="eu-west-1", aws_access_key_id="111122223333")
    client.create_schedule(
        Name="s1",
        Target={"Arn": "arn:aws:sqs:eu-west-1:111122223333:q", "RoleArn": ROLE},
        **SCHEDULE,
    )
    assert arns(schedemu) == ["arn:aws:scheduler:eu-west-1:111122223333:schedule/default/s1"]


def test_client_built_and_called_in_another_thread_is_served(
    schedemu: Emulator, build: Callable[..., Any], dead_url: str
) -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            build(endpoint_url=dead_url).create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []
    assert len(schedemu.schedules()) == 1


@pytest.mark.skipif(
    "request_credentials" not in inspect.signature(RequestSigner.get_auth_instance).parameters,
    reason="this botocore cannot sign one request with other credentials than its client's",
)
def test_client_without_credentials_is_served_in_the_default_account(
    schedemu: Emulator, dead_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    session = botocore.session.Session()
    assert session.get_credentials() is None
    client = session.create_client("scheduler", "us-east-1", endpoint_url=dead_url)
    client.create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
    client.close()
    assert arns(schedemu) == ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"]


@pytest.mark.schedemu(transport="inprocess")
def test_emulator_in_process_client_is_answered_once(
    schedemu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[object] = []
    handlers = schedemu.debug.operation_handlers
    list_schedules = handlers["ListSchedules"]

    def counted(*args: Any) -> Any:
        calls.append(args)
        return list_schedules(*args)

    monkeypatch.setitem(handlers, "ListSchedules", counted)
    schedemu.client().list_schedules()
    assert len(calls) == 1


def test_another_emulators_own_client_still_reaches_it(schedemu: Emulator) -> None:
    with Emulator() as other:
        other.client().create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
        assert len(other.schedules()) == 1
    assert schedemu.schedules() == []


def test_innermost_interception_answers_until_it_ends(
    schedemu: Emulator, build: Callable[..., Any], dead_url: str
) -> None:
    client = build(endpoint_url=dead_url)
    with Emulator() as inner:
        with inner.intercept():
            client.create_schedule(Name="inner", Target=TARGET, **SCHEDULE)
        client.create_schedule(Name="outer", Target=TARGET, **SCHEDULE)
        assert [s.name for s in inner.schedules()] == ["inner"]
    assert [s.name for s in schedemu.schedules()] == ["outer"]


def test_an_emulator_that_checks_signatures_gets_them_signed(
    build: Callable[..., Any], dead_url: str
) -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    with Emulator(verify_signatures=True, credentials={"111122223333": secret}) as checking:
        with checking.intercept():
            build(
                endpoint_url=dead_url,
                aws_access_key_id="111122223333",
                aws_secret_access_key=secret,
            ).create_schedule(Name="signed", Target=TARGET, **SCHEDULE)
            forged = build(
                endpoint_url=dead_url,
                aws_access_key_id="111122223333",
                aws_secret_access_key="not-the-secret",
            )
            with pytest.raises(forged.exceptions.ClientError) as refused:
                forged.create_schedule(Name="forged", Target=TARGET, **SCHEDULE)
        assert refused.value.response["Error"]["Code"] == "InvalidSignatureException"
        assert [s.name for s in checking.schedules()] == ["signed"]


def test_requests_an_emulator_does_not_check_go_unsigned_with_their_scope(
    schedemu: Emulator, build: Callable[..., Any], dead_url: str
) -> None:
    seen: list[str] = []
    client = build(endpoint_url=dead_url, region_name="eu-west-1", aws_access_key_id="111122223333")
    client.meta.events.register_first(
        "before-send.scheduler",
        lambda request, **_: seen.append(request.headers["Authorization"].decode()),
    )
    client.list_schedules()
    (authorization,) = seen
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=111122223333/")
    assert "/eu-west-1/scheduler/aws4_request" in authorization
    assert "Signature=unsigned-in-process" in authorization


def test_an_exempt_client_keeps_signing_while_an_unchecking_emulator_intercepts(
    schedemu: Emulator,
) -> None:
    # The other emulator's own HTTP client reaches it over its socket, and it checks
    # signatures: an interception that does not must not leave that client unsigned.
    with Emulator(
        transport="http", verify_signatures=True, credentials={"AKID": "secret"}
    ) as other:
        other.client(aws_access_key_id="AKID", aws_secret_access_key="secret").create_schedule(
            Name="s1", Target=TARGET, **SCHEDULE
        )
        assert len(other.schedules()) == 1
    assert schedemu.schedules() == []


# -- outside ---------------------------------------------------------------------------------


def test_client_outside_a_schedemu_test_is_untouched(
    build: Callable[..., Any], dead_url: str
) -> None:
    with pytest.raises(EndpointConnectionError):
        build(endpoint_url=dead_url).list_schedules()


def test_emulator_intercepts_a_block_without_pytest_fixtures(
    build: Callable[..., Any], dead_url: str
) -> None:
    client = build(endpoint_url=dead_url)
    with Emulator() as emu:
        with emu.intercept():
            client.create_schedule(Name="s1", Target=TARGET, **SCHEDULE)
        assert len(emu.schedules()) == 1
        with pytest.raises(EndpointConnectionError):
            client.list_schedules()


def test_routes_nest_and_leave_in_any_order() -> None:
    registry = Interception()
    first, second = object(), object()
    assert registry.active_app() is None
    with registry.route(first):  # type: ignore[arg-type]
        outer = registry.route(second)  # type: ignore[arg-type]
        outer.__enter__()
        assert registry.active_app() is second
    assert registry.active_app() is second
    outer.__exit__(None, None, None)
    assert registry.active_app() is None


def test_install_is_idempotent() -> None:
    from botocore.endpoint import Endpoint

    interception.install()
    installed = Endpoint.make_request
    interception.install()
    assert Endpoint.make_request is installed


def test_answer_serves_aiobotocore_too_and_readdresses_the_request() -> None:
    # The answer's shape only; real aiobotocore clients are served in tests/async_clients.
    from botocore.awsrequest import AWSRequest

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "application/json")])
        return [environ["PATH_INFO"].encode()]

    request = AWSRequest("GET", "https://scheduler.us-east-1.amazonaws.com/schedules").prepare()
    response = answer_in_process(app, request)
    assert response.content == b"/schedules"  # botocore reads it

    async def read() -> bytes:
        return await response.content  # type: ignore[no-any-return]  # aiobotocore awaits it

    assert asyncio.run(read()) == b"/schedules"
    assert request.url == f"https://{ANSWERED_HOST}/schedules"


# -- opting out, through the plugin ----------------------------------------------------------

OPT_OUT = """
import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

DEAD = "{dead_url}"

def call():
    boto3.client(
        "scheduler", endpoint_url=DEAD, config=Config(retries={{"total_max_attempts": 1}})
    ).list_schedules()

def test_default(schedemu):
    {default}

@pytest.mark.schedemu(intercept=False)
def test_marked_off(schedemu):
    with pytest.raises(EndpointConnectionError):
        call()

@pytest.mark.schedemu(intercept=True)
def test_marked_on(schedemu):
    call()
"""
INTERCEPTED = "call()"
PASSED_THROUGH = "with pytest.raises(EndpointConnectionError):\n        call()"


def test_marker_opts_a_test_out(pytester: pytest.Pytester, dead_url: str) -> None:
    pytester.makepyfile(OPT_OUT.format(dead_url=dead_url, default=INTERCEPTED))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_command_line_opts_out_and_the_marker_wins(
    pytester: pytest.Pytester, dead_url: str
) -> None:
    pytester.makepyfile(OPT_OUT.format(dead_url=dead_url, default=PASSED_THROUGH))
    result = pytester.runpytest("-p", "no:cacheprovider", "--schedemu-intercept=false")
    result.assert_outcomes(passed=3)


def test_ini_opts_out(pytester: pytest.Pytester, dead_url: str) -> None:
    pytester.makeini("[pytest]\nschedemu_intercept = false\n")
    pytester.makepyfile(OPT_OUT.format(dead_url=dead_url, default=PASSED_THROUGH))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


@pytest.mark.parametrize("value", ["0", '"0"', "False", '"false"', '"off"'])
def test_a_marker_turns_interception_off_whatever_form_off_takes(
    pytester: pytest.Pytester, dead_url: str, value: str
) -> None:
    pytester.makepyfile(
        OPT_OUT.format(dead_url=dead_url, default=INTERCEPTED).replace(
            "intercept=False", f"intercept={value}"
        )
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_a_marker_intercept_of_one_keeps_it_on(pytester: pytest.Pytester, dead_url: str) -> None:
    pytester.makepyfile(
        OPT_OUT.format(dead_url=dead_url, default=INTERCEPTED).replace(
            "intercept=True", "intercept=1"
        )
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_a_bad_marker_intercept_value_fails_the_test_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import pytest\n\n@pytest.mark.schedemu(intercept=2)\ndef test_it(schedemu):\n    pass\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Unsupported intercept 2: expected one of*"])


def test_unknown_intercept_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_it(schedemu):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--schedemu-intercept=maybe")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Unsupported --schedemu-intercept 'maybe'*"])


def test_client_built_at_collection_is_served(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SCHEDULER"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(
        f"""
import socket
import boto3

# Application code: a module-level client, built while the test module is collected.
CLIENT = boto3.client(
    "scheduler", region_name="us-east-1",
    aws_access_key_id="AKIAIOSFODNN7EXAMPLE", aws_secret_access_key="secret",
)

def refuse(*args, **kwargs):
    raise AssertionError("a socket was opened")

def test_served(schedemu, monkeypatch):
    assert CLIENT.meta.endpoint_url == "https://scheduler.us-east-1.amazonaws.com"
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    CLIENT.create_schedule(Name="s1", Target={TARGET!r}, **{SCHEDULE!r})
    assert [s.name for s in schedemu.schedules()] == ["s1"]
"""
    )
    # A process of its own: nothing has installed the handlers before the plugin loads.
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


# -- beside moto -----------------------------------------------------------------------------

SCENARIO_UNDER_MOTO = f"""
import boto3

ACCOUNT = "123456789012"

def moto_schedules():
    from moto.scheduler.models import scheduler_backends
    groups = scheduler_backends[ACCOUNT]["us-east-1"].schedule_groups.values()
    return [name for group in groups for name in group.schedules]

def run_scenario(emu):
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
    scheduler = boto3.client("scheduler", region_name="us-east-1")
    scheduler.create_schedule(
        Name="s1",
        ScheduleExpression="at(2026-03-01T10:00:00)",
        FlexibleTimeWindow={{"Mode": "OFF"}},
        Target={{"Arn": f"arn:aws:sqs:us-east-1:{{ACCOUNT}}:jobs", "RoleArn": {ROLE!r},
                 "Input": '{{"job": 1}}'}},
    )
    assert [s.name for s in emu.schedules()] == ["s1"]
    assert moto_schedules() == []
    sqs.send_message(QueueUrl=url, MessageBody="from the test")
    emu.clock.tick()
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    return sorted(m["Body"] for m in messages)
"""


@pytest.fixture
def aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SCHEDULER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


@pytest.mark.parametrize("mock_aws_first", [True, False], ids=["mock_aws-outer", "mock_aws-inner"])
def test_under_mock_aws_scheduler_reaches_the_emulator_and_the_rest_moto(
    aws_environment: None, mock_aws_first: bool
) -> None:
    from contextlib import ExitStack

    from moto import mock_aws

    namespace: dict[str, Any] = {}
    exec(SCENARIO_UNDER_MOTO, namespace)
    with (
        Emulator(start="2026-03-01T10:00:00Z", delivery="boto3", allow_aws_delivery=True) as emu,
        ExitStack() as stack,
    ):
        contexts = [mock_aws(), emu.intercept()]
        for context in contexts if mock_aws_first else reversed(contexts):
            stack.enter_context(context)
        assert namespace["run_scenario"](emu) == ["from the test", '{"job": 1}']


def test_moto_imported_before_the_plugin(pytester: pytest.Pytester, aws_environment: None) -> None:
    pytester.makepyfile(moto_first="import moto\n")
    pytester.makepyfile(
        SCENARIO_UNDER_MOTO
        + """
from moto import mock_aws

def test_scenario(schedemu):
    schedemu.reset(start="2026-03-01T10:00:00Z")
    with mock_aws():
        assert run_scenario(schedemu) == ["from the test"]  # the emulator only recorded
    assert schedemu.attempts()[0].succeeded
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "moto_first")
    result.assert_outcomes(passed=1)
