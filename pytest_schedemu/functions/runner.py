"""One run of a function's handler in process, as Lambda would call it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pytest_schedemu.functions.definition import FunctionDefinition


@dataclass(frozen=True)
class Invocation:
    """What one run of the handler did."""

    result: Any  # the handler's return value (JSON-able), None on error
    error_type: str | None  # e.g. "ValueError", "Sandbox.Timedout"
    error_message: str | None
    stack_trace: tuple[str, ...]
    logs: str  # what it printed and logged


def run_handler(
    definition: FunctionDefinition,
    event: Any,
    *,
    now: datetime,
    request_id: str,
    region: str,
    account: str,
) -> Invocation:
    """Run ``definition``'s handler on ``event``. The handler's own errors are an
    ``Invocation`` with ``error_type``; only the emulator's own trouble raises."""
    raise NotImplementedError("run_handler is being written")
