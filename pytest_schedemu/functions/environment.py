"""What a function's handler finds around it, as Lambda sets it: the environment variables
and the context object.

Lambda's own variables ("Defined runtime environment variables" in the Lambda Developer
Guide) are set over the function's ``Environment.Variables``, as Lambda reserves their
names. ``os.environ`` belongs to the process: a call sets them for its length and puts
the environment back after, under the runner's process lock.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta

from pytest_schedemu.formats.times import to_utc
from pytest_schedemu.functions.definition import FunctionDefinition

LATEST_VERSION = "$LATEST"
#: Where Lambda unpacks a function's code; an inline function's directory is none on disk.
TASK_ROOT = "/var/task"
_RUNTIME_DIR = "/var/runtime"
#: The credentials a handler's clients sign with: the account as the key id, which the
#: emulator's endpoint reads as the caller's account, and nothing that is anyone's secret.
_SECRET = "schedemu-function-secret"


def log_group(definition: FunctionDefinition) -> str:
    return f"/aws/lambda/{definition.name}"


def log_stream(definition: FunctionDefinition, now: datetime) -> str:
    """``2026/03/01/[$LATEST]<32 hex digits>``: the day and one stream per function, as a
    container writes to one; derived from the ARN, not from chance."""
    instance = hashlib.sha256(definition.arn.encode()).hexdigest()[:32]
    return f"{to_utc(now):%Y/%m/%d}/[{LATEST_VERSION}]{instance}"


def lambda_variables(
    definition: FunctionDefinition, *, now: datetime, region: str, account: str
) -> dict[str, str]:
    """The function's variables and Lambda's own over them."""
    task_root = TASK_ROOT if definition.code_dir is None else str(definition.code_dir)
    return {
        **definition.environment,
        "AWS_LAMBDA_FUNCTION_NAME": definition.name,
        "AWS_LAMBDA_FUNCTION_VERSION": LATEST_VERSION,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(definition.memory_mb),
        "AWS_LAMBDA_LOG_GROUP_NAME": log_group(definition),
        "AWS_LAMBDA_LOG_STREAM_NAME": log_stream(definition, now),
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "AWS_EXECUTION_ENV": f"AWS_Lambda_{definition.runtime}",
        "AWS_ACCESS_KEY_ID": account,
        "AWS_SECRET_ACCESS_KEY": _SECRET,
        "AWS_SESSION_TOKEN": _SECRET,
        "_HANDLER": definition.handler or "",
        "LAMBDA_TASK_ROOT": task_root,
        "LAMBDA_RUNTIME_DIR": _RUNTIME_DIR,
        "TZ": ":UTC",
    }


@contextmanager
def environment_set(variables: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` with ``variables`` over it while the block runs, as it was after."""
    before = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class LambdaContext:
    """The context object a Python handler receives (the Lambda Developer Guide's "Using
    the Lambda context object to retrieve Python function information")."""

    def __init__(
        self,
        definition: FunctionDefinition,
        *,
        request_id: str,
        now: datetime,
        clock: Callable[[], datetime],
    ) -> None:
        self.aws_request_id = request_id
        self.function_name = definition.name
        self.function_version = LATEST_VERSION
        self.invoked_function_arn = definition.arn
        self.memory_limit_in_mb = str(definition.memory_mb)
        self.log_group_name = log_group(definition)
        self.log_stream_name = log_stream(definition, now)
        self.identity = None
        self.client_context = None
        self._deadline = to_utc(now) + timedelta(seconds=definition.timeout_seconds)
        self._clock = clock

    @property
    def deadline(self) -> datetime:
        return self._deadline

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds from the emulator's clock to the call's deadline (its start plus the
        function's Timeout), never below zero."""
        remaining = self._deadline - to_utc(self._clock())
        return max(0, int(remaining / timedelta(milliseconds=1)))

    def __repr__(self) -> str:
        return f"<LambdaContext {self.function_name} {self.aws_request_id}>"
