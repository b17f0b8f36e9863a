"""One run of a function's handler in process, as Lambda would call it.

The call: the handler's module imported from the function's code for the call only
(``modules``), Lambda's environment variables and context object (``environment``), what
it prints and logs kept (``capture``), an ``async def`` handler run to completion in its
own event loop, its return value marshalled as Lambda marshals it (to JSON and back).

Timeouts: Lambda's ``Timeout`` is measured on the emulator's clock. The deadline is the
call's start plus ``Timeout``; ``context.get_remaining_time_in_millis()`` counts down to it
from the clock, and a call that ends with the clock past it timed out (on the virtual clock
no call can move the clock, so only a real-time emulator's slow handler reaches it). A
handler that never returns, which no clock can stop, is abandoned after ``wall_timeout``
seconds (the emulator's ``delivery_timeout``) in the emulator's handler thread, and reported
as Lambda reports a timeout: ``Sandbox.Timedout``, "Task timed out after N.00 seconds".
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType, TracebackType
from typing import Any

from pytest_schedemu.delivery.handler_thread import HandlerThread
from pytest_schedemu.delivery.handlers import Unanswered
from pytest_schedemu.formats.times import to_utc
from pytest_schedemu.functions.calling import RUNNING_FUNCTION
from pytest_schedemu.functions.capture import LogCapture
from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.environment import (
    LambdaContext,
    environment_set,
    lambda_variables,
)
from pytest_schedemu.functions.modules import WarmModules, importable

TIMED_OUT = "Sandbox.Timedout"
IMPORT_FAILED = "Runtime.ImportModuleError"
HANDLER_NOT_FOUND = "Runtime.HandlerNotFound"
MARSHAL_FAILED = "Runtime.MarshalError"
EXITED = "Runtime.ExitError"

# sys.modules, sys.path, os.environ, sys.stdout and the root logger are the process's, not
# a thread's: one function call at a time changes them, and puts them back.
_PROCESS = threading.Lock()
# The handlers run here, so that one that never returns can be abandoned at a deadline,
# and so that an async handler gets an event loop of its own whatever thread calls.
_HANDLER_THREAD = HandlerThread()


@dataclass(frozen=True)
class Invocation:
    """What one run of the handler did."""

    result: Any  # the handler's return value (JSON-able), None on error
    error_type: str | None  # e.g. "ValueError", "Sandbox.Timedout"
    error_message: str | None
    stack_trace: tuple[str, ...]
    logs: str  # what it printed and logged

    @property
    def failed(self) -> bool:
        return self.error_type is not None


class FunctionNotRunnable(ValueError):
    """``run_handler`` was given a function that does not run (``not_runnable`` says why)."""


def run_handler(
    definition: FunctionDefinition,
    event: Any,
    *,
    now: datetime,
    request_id: str,
    region: str,
    account: str,
    clock: Callable[[], datetime] | None = None,
    wall_timeout: float | None = None,
    warm: WarmModules | None = None,
) -> Invocation:
    """Run ``definition``'s handler on ``event``, as Lambda would at ``now``.

    The handler's own errors (an exception, a timeout, a module that does not import, a
    result that is not JSON) are an ``Invocation`` with ``error_type``; only the emulator's
    own trouble raises (``FunctionNotRunnable`` for a function that does not run).
    ``clock`` is the emulator's clock (``now`` unless given), which the context's remaining
    time counts on; ``wall_timeout`` the seconds after which a handler that has not
    returned is abandoned; ``warm`` keeps the function's modules from one call to the next.
    """
    if definition.not_runnable is not None or definition.handler is None:
        raise FunctionNotRunnable(
            f"function {definition.name} does not run: {definition.not_runnable or 'no handler'}"
        )
    read_clock = clock or (lambda: now)
    context = LambdaContext(definition, request_id=request_id, now=now, clock=read_clock)
    capture = LogCapture(_log_time(now), request_id)
    variables = lambda_variables(definition, now=now, region=region, account=account)
    handler = definition.handler
    with (
        _PROCESS,
        environment_set(variables),
        importable(definition, warm) as load,
        capture.installed(),
    ):

        def call() -> tuple[Any, BaseException | None]:
            capture.adopt_current_thread()
            RUNNING_FUNCTION.set(definition.name)
            return _call(load, handler, event, context)

        try:
            result, error = _HANDLER_THREAD.run(call, wall_timeout)
        except Unanswered:
            return _timed_out(definition, capture)
    if error is not None:
        return _failed(error, capture)
    if to_utc(read_clock()) > context.deadline:
        return _timed_out(definition, capture)
    return Invocation(result, None, None, (), capture.text)


def _call(
    load: Callable[[str], ModuleType], handler: str, event: Any, context: LambdaContext
) -> tuple[Any, BaseException | None]:
    """The handler's marshalled result, or what it raised; in the handler's thread."""
    module_name, _, function_name = handler.rpartition(".")
    module_name = module_name.replace("/", ".")
    try:
        module = load(module_name)
    except ImportError as error:
        return None, _LambdaError(
            IMPORT_FAILED, f"Unable to import module '{module_name}': {error}"
        )
    except (Exception, SystemExit) as error:
        return None, error
    function = getattr(module, function_name, None)
    if not callable(function):
        return None, _LambdaError(
            HANDLER_NOT_FOUND, f"Handler '{function_name}' missing on module '{module_name}'"
        )
    try:
        result = function(event, context)
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
    except SystemExit as error:
        return None, _LambdaError(EXITED, f"Runtime exited with error: exit status {error.code}")
    except Exception as error:
        return None, error
    try:
        return json.loads(json.dumps(result)), None
    except (TypeError, ValueError) as error:
        return None, _LambdaError(MARSHAL_FAILED, f"Unable to marshal response: {error}")


class _LambdaError(Exception):
    """An error Lambda's runtime reports with a type of its own (``Runtime.*``)."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def _failed(error: BaseException, capture: LogCapture) -> Invocation:
    if isinstance(error, _LambdaError):
        return Invocation(None, error.error_type, str(error), (), capture.text)
    return Invocation(
        None,
        type(error).__name__,
        str(error),
        _stack_trace(error.__traceback__),
        capture.text,
    )


def _timed_out(definition: FunctionDefinition, capture: LogCapture) -> Invocation:
    message = f"Task timed out after {definition.timeout_seconds:.2f} seconds"
    return Invocation(None, TIMED_OUT, message, (), capture.text)


def _stack_trace(trace: TracebackType | None) -> tuple[str, ...]:
    """The handler's frames, as Lambda lists them: the runtime's own (here, this module's)
    left out."""
    frames = [
        frame
        for frame in traceback.extract_tb(trace)
        if frame.filename != __file__ and not frame.filename.startswith("<frozen ")
    ]
    return tuple(traceback.format_list(frames))


def _log_time(now: datetime) -> str:
    utc = to_utc(now)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"
