"""The functions of the stacks loaded to run them: found by the ARN a target names."""

from __future__ import annotations

import threading

from pytest_schedemu.functions.definition import FunctionDefinition


def unqualified(arn: str) -> str:
    """A function's ARN without its version or alias (``:$LATEST``, ``:1``, ``:live``)."""
    parts = arn.split(":")
    return ":".join(parts[:7]) if len(parts) > 7 else arn


class FunctionCatalogue:
    """Every known function, by its unqualified ARN; its own lock for every read and write."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._functions: dict[str, FunctionDefinition] = {}

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._functions)

    def add(self, definition: FunctionDefinition) -> None:
        with self._lock:
            self._functions[unqualified(definition.arn)] = definition

    def get(self, arn: str) -> FunctionDefinition | None:
        """The function ``arn`` names, qualified or not; None when none is known."""
        with self._lock:
            return self._functions.get(unqualified(arn))

    def find(self, function: str) -> FunctionDefinition | None:
        """The function named by its ARN, its name or ``stack/logical id``."""
        with self._lock:
            known = list(self._functions.values())
        for definition in known:
            named = (
                unqualified(definition.arn),
                definition.name,
                f"{definition.stack}/{definition.logical_id}",
            )
            if unqualified(function) in named:
                return definition
        return None

    def clear(self) -> None:
        with self._lock:
            self._functions.clear()
