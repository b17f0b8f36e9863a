"""A function's handler run in process as Lambda runs it: its own modules, Lambda's
environment and context, what it prints and logs, and its errors as Lambda reports them."""

from __future__ import annotations

import os
import sys
import types
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.modules import WarmModules
from pytest_schedemu.functions.runner import FunctionNotRunnable, Invocation, run_handler
from tests.constants import ACCOUNT, T0
from tests.functions.writing import ARN, NAME, REGION, function, write_code

REQUEST_ID = "5f1c3e2a-0000-4000-8000-000000000001"


def run(definition: FunctionDefinition, event: Any = None, **options: Any) -> Invocation:
    options = {"now": T0, "request_id": REQUEST_ID, "region": REGION, "account": ACCOUNT, **options}
    return run_handler(definition, {} if event is None else event, **options)


def test_the_handler_gets_the_event_and_its_result_is_kept(tmp_path: Path) -> None:
    code = write_code(tmp_path, app="def handler(event, context):\n    return {'got': event}\n")
    assert run(function(code), {"customer": "c-1"}).result == {"got": {"customer": "c-1"}}


def test_a_helper_module_of_the_function_is_its_own_not_the_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests_helper = types.ModuleType("billing_helpers")
    tests_helper.WHOSE = "the test's"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "billing_helpers", tests_helper)
    code = write_code(
        tmp_path,
        app="import billing_helpers\n"
        "def handler(event, context):\n    return billing_helpers.WHOSE\n",
        billing_helpers='WHOSE = "the function\'s"\n',
    )
    assert run(function(code)).result == "the function's"
    assert sys.modules["billing_helpers"] is tests_helper
    assert "app" not in sys.modules
    assert str(code) not in sys.path


def test_two_functions_with_a_module_of_the_same_name_each_import_their_own(
    tmp_path: Path,
) -> None:
    first = write_code(tmp_path / "first", app="def handler(e, c):\n    return 'first'\n")
    second = write_code(tmp_path / "second", app="def handler(e, c):\n    return 'second'\n")
    warm = WarmModules()
    other = function(second, arn=ARN + "-other", name=NAME + "-other")
    assert run(function(first), warm=warm).result == "first"
    assert run(other, warm=warm).result == "second"
    assert run(function(first), warm=warm).result == "first"


def test_a_warm_function_keeps_its_module_from_one_call_to_the_next(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="CALLS = []\n"
        "def handler(event, context):\n    CALLS.append(event)\n    return len(CALLS)\n",
    )
    warm = WarmModules()
    assert [run(function(code), warm=warm).result for _ in range(3)] == [1, 2, 3]
    # Without a warm store every call starts cold, as after a reset.
    assert [run(function(code)).result for _ in range(2)] == [1, 1]


def test_the_functions_variables_and_lambdas_own_are_set_for_the_call_only(
    tmp_path: Path,
) -> None:
    code = write_code(
        tmp_path,
        app="import os\ndef handler(event, context):\n    return dict(os.environ)\n",
    )
    assert "TABLE_NAME" not in os.environ
    seen = run(function(code, environment={"TABLE_NAME": "charges"}, memory_mb=512), now=T0).result
    assert seen["TABLE_NAME"] == "charges"
    assert seen["AWS_LAMBDA_FUNCTION_NAME"] == NAME
    assert seen["AWS_LAMBDA_FUNCTION_VERSION"] == "$LATEST"
    assert seen["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "512"
    assert seen["AWS_REGION"] == seen["AWS_DEFAULT_REGION"] == REGION
    assert seen["AWS_LAMBDA_LOG_GROUP_NAME"] == f"/aws/lambda/{NAME}"
    assert seen["AWS_LAMBDA_LOG_STREAM_NAME"].startswith("2026/03/01/[$LATEST]")
    assert seen["_HANDLER"] == "app.handler"
    assert seen["AWS_EXECUTION_ENV"] == "AWS_Lambda_python3.12"
    assert seen["LAMBDA_TASK_ROOT"] == str(code)
    assert "TABLE_NAME" not in os.environ
    assert os.environ.get("AWS_LAMBDA_FUNCTION_NAME") is None


def test_lambdas_own_variables_win_over_the_functions(tmp_path: Path) -> None:
    code = write_code(
        tmp_path, app="import os\ndef handler(e, c):\n    return os.environ['AWS_REGION']\n"
    )
    assert run(function(code, environment={"AWS_REGION": "mars-1"})).result == REGION


def test_a_variable_the_test_set_is_the_tests_again_after_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAGE", "test")
    code = write_code(
        tmp_path, app="import os\ndef handler(e, c):\n    return os.environ['STAGE']\n"
    )
    assert run(function(code, environment={"STAGE": "prod"})).result == "prod"
    assert os.environ["STAGE"] == "test"


def test_the_context_says_which_call_it_is(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="""\
        def handler(event, context):
            return {
                "request": context.aws_request_id,
                "name": context.function_name,
                "version": context.function_version,
                "arn": context.invoked_function_arn,
                "memory": context.memory_limit_in_mb,
                "group": context.log_group_name,
                "stream": context.log_stream_name,
                "left": context.get_remaining_time_in_millis(),
            }
        """,
    )
    seen = run(function(code, timeout_seconds=30, memory_mb=256)).result
    assert seen == {
        "request": REQUEST_ID,
        "name": NAME,
        "version": "$LATEST",
        "arn": ARN,
        "memory": "256",
        "group": f"/aws/lambda/{NAME}",
        "stream": seen["stream"],
        "left": 30_000,
    }
    assert seen["stream"] == run(function(code)).result["stream"]


def test_the_remaining_time_counts_down_on_the_emulators_clock(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="def handler(e, context):\n    return context.get_remaining_time_in_millis()\n",
    )
    later = T0 + timedelta(seconds=2, milliseconds=500)
    assert run(function(code, timeout_seconds=10), clock=lambda: later).result == 7_500


def test_a_call_that_ends_past_its_timeout_on_the_clock_timed_out(tmp_path: Path) -> None:
    code = write_code(tmp_path, app="def handler(e, c):\n    return 'done'\n")
    past = T0 + timedelta(seconds=4)
    timed_out = run(function(code, timeout_seconds=3), clock=lambda: past)
    assert (timed_out.result, timed_out.error_type) == (None, "Sandbox.Timedout")
    assert timed_out.error_message == "Task timed out after 3.00 seconds"
    assert run(function(code, timeout_seconds=5), clock=lambda: past).result == "done"


def test_a_handler_that_does_not_return_is_abandoned_at_the_wall_deadline(
    tmp_path: Path,
) -> None:
    code = write_code(
        tmp_path,
        app="import threading\nGATE = threading.Event()\n"
        "def handler(e, c):\n    print('waiting')\n    GATE.wait(5)\n    return 'late'\n",
    )
    timed_out = run(function(code, timeout_seconds=900), wall_timeout=0.2)
    assert timed_out.error_type == "Sandbox.Timedout"
    assert timed_out.error_message == "Task timed out after 900.00 seconds"
    assert timed_out.logs == "waiting\n"


def test_an_async_handler_runs_to_completion(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="""\
        import asyncio

        async def handler(event, context):
            await asyncio.sleep(0)
            return {"awaited": event["n"] * 2}
        """,
    )
    assert run(function(code), {"n": 21}).result == {"awaited": 42}


def test_what_the_handler_prints_and_logs_is_the_invocations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = write_code(
        tmp_path,
        app="""\
        import logging
        import sys

        logger = logging.getLogger("billing")
        print("cold start")

        def handler(event, context):
            print("charging", event["customer"])
            print("to stderr", file=sys.stderr)
            logger.warning("card declined for %s", event["customer"])
            return None
        """,
    )
    logs = run(function(code), {"customer": "c-7"}).logs
    assert logs == (
        "cold start\n"
        "charging c-7\n"
        "to stderr\n"
        f"[WARNING]\t2026-03-01T10:00:00.000Z\t{REQUEST_ID}\tcard declined for c-7\n"
    )
    assert "charging" not in capsys.readouterr().out


def test_an_exception_is_the_invocations_error(tmp_path: Path) -> None:
    code = write_code(
        tmp_path,
        app="""\
        def handler(event, context):
            charge(event)

        def charge(event):
            raise ValueError(f"no card for {event['customer']}")
        """,
    )
    failed = run(function(code), {"customer": "c-9"})
    assert (failed.result, failed.error_type, failed.error_message) == (
        None,
        "ValueError",
        "no card for c-9",
    )
    assert [line.splitlines()[0] for line in failed.stack_trace] == [
        f'  File "{code / "app.py"}", line 2, in handler',
        f'  File "{code / "app.py"}", line 5, in charge',
    ]


@pytest.mark.parametrize(
    ("source", "handler", "error_type", "message"),
    [
        (
            "x = 1\n",
            "missing.handler",
            "Runtime.ImportModuleError",
            "Unable to import module 'missing'",
        ),
        (
            "x = 1\n",
            "app.handler",
            "Runtime.HandlerNotFound",
            "Handler 'handler' missing on module 'app'",
        ),
        (
            "def handler(e, c):\n    return object()\n",
            "app.handler",
            "Runtime.MarshalError",
            "Unable to marshal response",
        ),
        ("raise KeyError('CONFIG')\n", "app.handler", "KeyError", "'CONFIG'"),
    ],
    ids=["no-module", "no-handler", "not-json", "init-error"],
)
def test_what_lambdas_runtime_reports_is_an_error_of_its_type(
    tmp_path: Path, source: str, handler: str, error_type: str, message: str
) -> None:
    code = write_code(tmp_path, app=source)
    failed = run(function(code, handler=handler))
    assert failed.error_type == error_type
    assert (failed.error_message or "").startswith(message)


def test_inline_code_is_the_module_index(tmp_path: Path) -> None:
    inline = function(
        None,
        handler="index.handler",
        inline_code="def handler(event, context):\n    return ['inline', event]\n",
    )
    assert run(inline, 7).result == ["inline", 7]
    assert "index" not in sys.modules


def test_a_function_that_does_not_run_is_not_run() -> None:
    node = function(None, runtime="nodejs20.x", not_runnable="runtime nodejs20.x")
    with pytest.raises(FunctionNotRunnable, match=r"does not run: runtime nodejs20\.x"):
        run(node)
