"""A stand-in for the handler runner, and the functions the tests define: what Lambda does
around a run (acceptance, retries, destinations, records) is under test here, not the run
itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.runner import Invocation
from tests.constants import FUNCTION

#: (event, the run's number for this request id) -> the handler's result; raising fails it.
Behaviour = Callable[[Any, int], Any]


@dataclass
class Run:
    function: str
    event: Any
    now: datetime
    request_id: str


@dataclass
class Handlers:
    """What each function's handler does, by name, and every run made."""

    behaviours: dict[str, Behaviour] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)

    def __call__(
        self,
        definition: FunctionDefinition,
        event: Any,
        *,
        now: datetime,
        request_id: str,
        region: str,
        account: str,
        **keywords: Any,
    ) -> Invocation:
        self.runs.append(Run(definition.name, event, now, request_id))
        number = sum(1 for run in self.runs if run.request_id == request_id)
        try:
            result = self.behaviours[definition.name](event, number)
        except Exception as error:
            trace = (f'  File "/var/task/app.py", line 3, in handler ({definition.name})',)
            return Invocation(None, type(error).__name__, str(error), trace, "START\n")
        return Invocation(result, None, None, (), f"handled {request_id}\n")


def function(name: str = "remind", **changes: Any) -> FunctionDefinition:
    """A Python function of a stack, ``FUNCTION`` unless told otherwise, Lambda's defaults."""
    arn = FUNCTION if name == "remind" else FUNCTION.replace("remind", name)
    made = FunctionDefinition(
        arn=arn,
        name=name,
        logical_id=name.capitalize(),
        stack="app",
        runtime="python3.12",
        handler="app.handler",
        code_dir=None,
        inline_code="def handler(event, context): pass",
        environment={},
        timeout_seconds=3,
        memory_mb=128,
        maximum_retry_attempts=2,
        maximum_event_age_seconds=21600,
        on_success=None,
        on_failure=None,
        dead_letter_arn=None,
        not_runnable=None,
    )
    return replace(made, **changes)


def failing(event: Any, number: int) -> Any:
    raise ValueError(f"cannot remind about {event!r}")
