"""What a loaded stack says of its functions, where their code is found, what does not
run and why, and that only a stack loaded with run_functions has its functions run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.functions.catalogue import FunctionCatalogue
from pytest_schedemu.functions.definition import FunctionDefinition
from tests.constants import START
from tests.functions.writing import write_code

HANDLER = "def handler(event, context):\n    return event\n"


def load(template: Path, **options: object) -> list[FunctionDefinition]:
    with Emulator(start=START) as emu:
        emu.load_stack(template, **options)  # type: ignore[arg-type]
        return emu.debug.functions.all()


def sam(directory: Path, functions: str, *, extra: str = "") -> Path:
    path = directory / "template.yaml"
    path.write_text(
        "Transform: AWS::Serverless-2016-10-31\n"
        + textwrap.dedent(extra)
        + "Resources:\n"
        + textwrap.indent(textwrap.dedent(functions), "  ")
    )
    return path


def test_a_sam_function_runs_from_its_code_uri_directory(tmp_path: Path) -> None:
    code = write_code(tmp_path / "src" / "charge", app=HANDLER)
    template = sam(
        tmp_path,
        """\
        ChargeFn:
          Type: AWS::Serverless::Function
          Properties:
            FunctionName: charge
            Runtime: python3.12
            Handler: app.handler
            CodeUri: src/charge/
            Timeout: 30
            MemorySize: 512
            Environment:
              Variables:
                TABLE: charges
                RETRIES: 3
            DeadLetterQueue:
              Type: SQS
              TargetArn: arn:aws:sqs:us-east-1:123456789012:charge-dlq
        """,
    )
    (charge,) = load(template, run_functions=True)
    assert charge == FunctionDefinition(
        arn="arn:aws:lambda:us-east-1:123456789012:function:charge",
        name="charge",
        logical_id="ChargeFn",
        stack="template",
        runtime="python3.12",
        handler="app.handler",
        code_dir=code.resolve(),
        inline_code=None,
        environment={"TABLE": "charges", "RETRIES": "3"},
        timeout_seconds=30,
        memory_mb=512,
        maximum_retry_attempts=2,
        maximum_event_age_seconds=21600,
        on_success=None,
        on_failure=None,
        dead_letter_arn="arn:aws:sqs:us-east-1:123456789012:charge-dlq",
        not_runnable=None,
    )


def test_a_code_uri_in_the_globals_is_each_functions(tmp_path: Path) -> None:
    code = write_code(tmp_path / "src", app=HANDLER)
    template = sam(
        tmp_path,
        """\
        ChargeFn:
          Type: AWS::Serverless::Function
          Properties:
            Handler: app.handler
        """,
        extra="Globals:\n  Function:\n    Runtime: python3.12\n    CodeUri: src\n",
    )
    (charge,) = load(template, run_functions=True)
    assert (charge.code_dir, charge.not_runnable) == (code.resolve(), None)


def test_inline_code_is_the_function_of_module_index(tmp_path: Path) -> None:
    template = sam(
        tmp_path,
        """\
        Inline:
          Type: AWS::Lambda::Function
          Properties:
            FunctionName: inline
            Runtime: python3.12
            Handler: index.handler
            Role: arn:aws:iam::123456789012:role/fn
            Code:
              ZipFile: |
                def handler(event, context):
                    return event
        """,
    )
    (inline,) = load(template, run_functions=True)
    assert inline.inline_code == HANDLER
    assert (inline.code_dir, inline.not_runnable) == (None, None)


def test_an_event_invoke_config_sets_the_retries_the_age_and_the_destinations(
    tmp_path: Path,
) -> None:
    write_code(tmp_path / "src", app=HANDLER)
    template = sam(
        tmp_path,
        """\
        ChargeFn:
          Type: AWS::Serverless::Function
          Properties:
            FunctionName: charge
            Runtime: python3.12
            Handler: app.handler
            CodeUri: src
        ChargeInvokeConfig:
          Type: AWS::Lambda::EventInvokeConfig
          Properties:
            FunctionName: !Ref ChargeFn
            Qualifier: $LATEST
            MaximumRetryAttempts: 1
            MaximumEventAgeInSeconds: 600
            DestinationConfig:
              OnSuccess:
                Destination: arn:aws:sqs:us-east-1:123456789012:charged
              OnFailure:
                Destination: arn:aws:sns:us-east-1:123456789012:charge-failed
        """,
    )
    (charge,) = load(template, run_functions=True)
    assert (charge.maximum_retry_attempts, charge.maximum_event_age_seconds) == (1, 600)
    assert charge.on_success == "arn:aws:sqs:us-east-1:123456789012:charged"
    assert charge.on_failure == "arn:aws:sns:us-east-1:123456789012:charge-failed"


@pytest.mark.parametrize(
    ("properties", "reason"),
    [
        (
            "Runtime: nodejs20.x\nHandler: index.handler\nCodeUri: src",
            "runtime nodejs20.x",
        ),
        (
            "PackageType: Image\nImageUri: 123456789012.dkr.ecr.us-east-1.amazonaws.com/charge:1",
            "an image",
        ),
        (
            "Runtime: python3.12\nHandler: app.handler\nCodeUri: s3://artifacts/charge.zip",
            "code not on disk: s3://artifacts/charge.zip",
        ),
        (
            "Runtime: python3.12\nHandler: app.handler\nCodeUri: missing",
            "is not a directory",
        ),
        (
            "Runtime: python3.12\nHandler: app.handler\nCodeUri: ../outside",
            "is outside the template's directory",
        ),
    ],
    ids=["node", "image", "s3", "missing", "outside"],
)
def test_a_function_that_cannot_run_says_why(tmp_path: Path, properties: str, reason: str) -> None:
    write_code(tmp_path / "stack" / "src", app=HANDLER)
    write_code(tmp_path / "outside", app=HANDLER)
    template = sam(
        tmp_path / "stack",
        "Fn:\n  Type: AWS::Serverless::Function\n  Properties:\n"
        + textwrap.indent(properties, "    ")
        + "\n",
    )
    (function,) = load(template, run_functions=True)
    assert reason in (function.not_runnable or "")


def test_without_run_functions_no_function_runs(tmp_path: Path) -> None:
    write_code(tmp_path / "src", app=HANDLER)
    template = sam(
        tmp_path,
        "Fn:\n  Type: AWS::Serverless::Function\n  Properties:\n"
        "    Runtime: python3.12\n    Handler: app.handler\n    CodeUri: src\n",
    )
    assert load(template) == []
    assert load(template, run_functions=False) == []
    assert [function.logical_id for function in load(template, run_functions=True)] == ["Fn"]


def test_the_setting_runs_the_functions_of_the_configured_stacks_after_each_reset(
    tmp_path: Path,
) -> None:
    write_code(tmp_path / "src", app=HANDLER)
    template = sam(
        tmp_path,
        "Fn:\n  Type: AWS::Serverless::Function\n  Properties:\n"
        "    Runtime: python3.12\n    Handler: app.handler\n    CodeUri: src\n",
    )
    with Emulator(start=START, stacks=[str(template)], run_functions=True) as emu:
        assert [f.logical_id for f in emu.debug.functions.all()] == ["Fn"]
        emu.reset()
        assert [f.logical_id for f in emu.debug.functions.all()] == ["Fn"]
    with Emulator(start=START, stacks=[str(template)]) as emu:
        assert emu.debug.functions.all() == []


def test_a_reset_forgets_the_functions_of_stacks_loaded_by_hand(tmp_path: Path) -> None:
    write_code(tmp_path / "src", app=HANDLER)
    template = sam(
        tmp_path,
        "Fn:\n  Type: AWS::Serverless::Function\n  Properties:\n"
        "    Runtime: python3.12\n    Handler: app.handler\n    CodeUri: src\n",
    )
    with Emulator(start=START) as emu:
        emu.load_stack(template, run_functions=True)
        emu.reset()
        assert emu.debug.functions.all() == []


@pytest.mark.parametrize("qualifier", ["", ":$LATEST", ":3", ":live"])
def test_a_qualified_arn_finds_its_function(qualifier: str) -> None:
    catalogue = FunctionCatalogue()
    arn = "arn:aws:lambda:us-east-1:123456789012:function:charge"
    definition = FunctionDefinition(
        arn, "charge", None, None, "python3.12", "app.handler", None, "", {}, 3, 128, 2, 21600,
        None, None, None, None,
    )  # fmt: skip
    catalogue.add(definition)
    assert catalogue.get(arn + qualifier) is definition
    assert catalogue.get(arn + "-other" + qualifier) is None


def test_a_sam_function_and_inline_code_run_when_their_schedules_invoke_them(
    tmp_path: Path,
) -> None:
    write_code(
        tmp_path / "src" / "charge",
        app="import os\n\ndef handler(event, context):\n"
        "    return {'charged': event['customer'], 'table': os.environ['TABLE']}\n",
    )
    template = sam(
        tmp_path,
        """\
        ChargeFn:
          Type: AWS::Serverless::Function
          Properties:
            FunctionName: charge
            Runtime: python3.12
            Handler: app.handler
            CodeUri: src/charge/
            Environment:
              Variables:
                TABLE: charges
        Inline:
          Type: AWS::Lambda::Function
          Properties:
            FunctionName: inline
            Runtime: python3.12
            Handler: index.handler
            Role: arn:aws:iam::123456789012:role/fn
            Code:
              ZipFile: |
                def handler(event, context):
                    return {"echo": event, "request": context.aws_request_id}
        Charge:
          Type: AWS::Scheduler::Schedule
          Properties:
            ScheduleExpression: at(2026-03-01T10:05:00)
            FlexibleTimeWindow: {Mode: "OFF"}
            Target:
              Arn: !GetAtt ChargeFn.Arn
              RoleArn: arn:aws:iam::123456789012:role/scheduler
              Input: '{"customer": "c-1"}'
        Echo:
          Type: AWS::Scheduler::Schedule
          Properties:
            ScheduleExpression: at(2026-03-01T10:10:00)
            FlexibleTimeWindow: {Mode: "OFF"}
            Target:
              Arn: !GetAtt Inline.Arn
              RoleArn: arn:aws:iam::123456789012:role/scheduler
              Input: '{"n": 7}'
        """,
    )
    with Emulator(start=START) as emu:
        emu.load_stack(template, run_functions=True)
        emu.clock.advance(minutes=15)
        (charged,) = emu.invocations("charge")
        (echoed,) = emu.invocations("inline")
    assert (charged.result, charged.invoked_at.isoformat()) == (
        {"charged": "c-1", "table": "charges"},
        "2026-03-01T10:05:00+00:00",
    )
    assert echoed.result == {"echo": {"n": 7}, "request": echoed.request_id}
    assert echoed.invoked_at.isoformat() == "2026-03-01T10:10:00+00:00"
