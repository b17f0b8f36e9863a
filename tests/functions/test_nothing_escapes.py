"""A handler's own AWS clients: Scheduler and EventBridge's rule operations reach the
emulator that runs it, other services reach moto under mock_aws, and anything else is
refused before it is sent, naming the service; never AWS."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from moto import mock_aws

from pytest_schedemu import Emulator
from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.runner import Invocation
from tests.constants import ACCOUNT, QUEUE, ROLE, START, T0
from tests.functions.writing import REGION, function, write_code

SCHEDULES = f"""\
import boto3

def handler(event, context):
    client = boto3.client("scheduler")
    client.create_schedule(
        Name=event["name"],
        ScheduleExpression="at(2026-03-02T08:00:00)",
        FlexibleTimeWindow={{"Mode": "OFF"}},
        Target={{"Arn": "{QUEUE}", "RoleArn": "{ROLE}"}},
    )
    return [s["Name"] for s in client.list_schedules()["Schedules"]]
"""
QUEUES = """\
import boto3

def handler(event, context):
    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="charges")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="charged")
    return sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"]
"""


def run(emu: Emulator, definition: FunctionDefinition, event: Any = None) -> Invocation:
    return emu.debug.functions.run(
        definition,
        {} if event is None else event,
        now=T0,
        request_id="r-1",
        region=REGION,
        account=ACCOUNT,
    )


def test_a_handlers_scheduler_client_reaches_the_emulator_that_runs_it(tmp_path: Path) -> None:
    code = write_code(tmp_path, app=SCHEDULES)
    with Emulator(start=START) as emu:
        invocation = run(emu, function(code), {"name": "follow-up"})
        assert (invocation.error_type, invocation.result) == (None, ["follow-up"])
        assert [schedule.name for schedule in emu.schedules()] == ["follow-up"]


def test_another_services_client_is_refused_naming_it_without_moto(tmp_path: Path) -> None:
    code = write_code(tmp_path, app=QUEUES)
    with Emulator(start=START) as emu:
        refused = run(emu, function(code))
    assert refused.error_type == "SchedemuError"
    assert "its sqs client's CreateQueue was refused without being sent" in (
        refused.error_message or ""
    )


def test_another_services_client_reaches_moto_under_mock_aws(tmp_path: Path) -> None:
    code = write_code(tmp_path, app=QUEUES)
    with Emulator(start=START) as emu, mock_aws():
        assert run(emu, function(code)).result == "charged"


def test_a_client_of_a_local_endpoint_is_the_handlers_own_choice(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="""\
        import boto3
        import botocore.exceptions

        def handler(event, context):
            client = boto3.client("sqs", endpoint_url="http://127.0.0.1:9")
            try:
                client.list_queues()
            except botocore.exceptions.EndpointConnectionError:
                return "tried the local endpoint"
        """,
    )
    with Emulator(start=START) as emu:
        assert run(emu, function(code)).result == "tried the local endpoint"


def test_an_sdk_the_function_bundles_gives_way_to_the_process_s(tmp_path: Path) -> None:
    code = write_code(tmp_path, app=QUEUES)
    for package in ("boto3", "botocore"):
        (code / package).mkdir()
        (code / package / "__init__.py").write_text(f"raise RuntimeError('a bundled {package}')\n")
    with Emulator(start=START) as emu:
        refused = run(emu, function(code))
    assert refused.error_type == "SchedemuError"
