"""What a stack's own function did each time Lambda invoked it (``Emulator.invocations``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class FunctionInvocation:
    """One run of a function's handler for an event Lambda accepted asynchronously: the
    first, or one of Lambda's retries of the same event (``attempt`` 2, 3)."""

    #: The function's unqualified ARN and its name.
    function_arn: str
    function_name: str
    #: The event as the handler received it (the payload parsed as JSON, where it is).
    event: Any = field(hash=False)
    #: What the handler returned; None when it failed.
    result: Any = field(hash=False)
    #: The error's type (``ValueError``, ``Sandbox.Timedout``) and message; None on success.
    error_type: str | None
    error_message: str | None
    #: 1 for the first run, 2 and 3 for Lambda's retries of the same event.
    attempt: int
    invoked_at: datetime
    #: Lambda's request id: the same for every retry of one event.
    request_id: str
    #: What the handler printed and logged during the run.
    logs: str
    #: The frames of the error's stack trace, innermost last; empty on success.
    stack_trace: tuple[str, ...] = ()
    #: The execution id of the schedule's or rule target's attempt whose event Lambda
    #: accepted (``Attempt.execution_id``); None for a run a destination asked for.
    execution_id: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.error_type is None


def runs_by_execution(
    invocations: Iterable[FunctionInvocation],
) -> dict[str, list[FunctionInvocation]]:
    """The runs each attempt caused, by the attempt's ``execution_id``, in the order they
    ran; a run a destination asked for was caused by no attempt and is left out."""
    caused: dict[str, list[FunctionInvocation]] = {}
    for run in invocations:
        if run.execution_id is not None:
            caused.setdefault(run.execution_id, []).append(run)
    return caused
