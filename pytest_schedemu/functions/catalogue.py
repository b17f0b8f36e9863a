"""The functions an emulator runs: those of the stacks loaded with ``run_functions``, found
by the ARN a target names (qualified or not), with the warm modules of each."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any

from pytest_schedemu.functions import runner
from pytest_schedemu.functions.definition import FunctionDefinition
from pytest_schedemu.functions.modules import WarmModules
from pytest_schedemu.functions.runner import Invocation

#: ``arn:aws:lambda:region:account:function:name`` has seven parts; a version or alias
#: is an eighth.
_UNQUALIFIED_PARTS = 7


def unqualified(arn: str) -> str:
    """The function's ARN without a version or alias (``:$LATEST``, ``:1``, ``:live``)."""
    parts = arn.split(":")
    return ":".join(parts[:_UNQUALIFIED_PARTS]) if len(parts) > _UNQUALIFIED_PARTS else arn


class FunctionCatalogue:
    """The definitions of the functions that run, and their warm modules; one lock.

    ``served`` is what a call runs inside so that the handler's own Scheduler and
    EventBridge clients reach the emulator that runs it (its interception's route)."""

    def __init__(self, served: Callable[[], AbstractContextManager[None]] = nullcontext) -> None:
        self._served = served
        self._lock = threading.Lock()
        self._functions: dict[str, FunctionDefinition] = {}
        #: Each function's modules between its invocations, as a warm Lambda container
        #: keeps them; a reset starts every function cold.
        self.warm = WarmModules()

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._functions)

    def add(self, *definitions: FunctionDefinition) -> None:
        with self._lock:
            for definition in definitions:
                self._functions[unqualified(definition.arn)] = definition

    def get(self, arn: str) -> FunctionDefinition | None:
        """The function ``arn`` invokes, qualified or not; None when none is known."""
        with self._lock:
            return self._functions.get(unqualified(arn))

    def find(self, function: str) -> FunctionDefinition | None:
        """The function named by its ARN, its name, its stack's logical id or
        ``stack/logical id``."""
        for definition in self.all():
            named = (
                unqualified(definition.arn),
                definition.name,
                definition.logical_id,
                f"{definition.stack}/{definition.logical_id}",
            )
            if unqualified(function) in named:
                return definition
        return None

    def run(
        self,
        definition: FunctionDefinition,
        event: Any,
        *,
        now: datetime,
        request_id: str,
        region: str,
        account: str,
        clock: Callable[[], datetime] | None = None,
        wall_timeout: float | None = None,
    ) -> Invocation:
        """``run_handler`` for this emulator: the function's warm modules reused, its
        clients served by the emulator."""
        with self._served():
            # Looked up on the module at each call: a test may stand in for the runner.
            return runner.run_handler(
                definition,
                event,
                now=now,
                request_id=request_id,
                region=region,
                account=account,
                clock=clock,
                wall_timeout=wall_timeout,
                warm=self.warm,
            )

    def all(self) -> list[FunctionDefinition]:
        with self._lock:
            return list(self._functions.values())

    def clear(self) -> None:
        with self._lock:
            self._functions.clear()
        self.warm.clear()
