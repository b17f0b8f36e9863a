"""Where a caller's mistake passes on its way out, the module hides its frames.

A misspelt name or a template that cannot load is reported at the test's own line
(``errors.raised_for_the_caller``): every module of the wings such an error is raised in
or passes through sets ``__tracebackhide__`` to that test, a new module as well as those
there are now. (What the report then shows is ``tests/plugin/test_short_reports.py``'s.)
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from pytest_schedemu.errors import raised_for_the_caller

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent

#: The wings whose errors are all about what the caller asked, and the modules elsewhere
#: a caller's lookup passes through.
WINGS = ("stacks", "provisioning", "records", "iam")
#: (``state.iam`` holds what a test declares of IAM by hand: a policy it cannot read.)
MODULES = ("emulator", "dispatch.firing", "state.iam")
#: Modules of those wings that raise nothing and call nothing that does: re-exports, the
#: records themselves, and the history the read side consults.
NO_ERRORS = {
    "stacks",
    "provisioning",
    "records",
    "records.types",
    "records.invocations",
    "records.drops",
    "records.history",
    "records.known",
    "records.logs",
    # The instants at which a definition could fire: worked out, never refused.
    "records.chances",
    # IAM: its error, and what evaluates policies already read (a malformed one is refused
    # where it is read: policy, conditions, principals, declarations).
    "iam",
    "iam.errors",
    "iam.decision",
    "iam.evaluation",
    "iam.patterns",
    "iam.request",
    "iam.role",
}


def _modules() -> list[str]:
    found = list(MODULES)
    for wing in WINGS:
        for path in sorted((PACKAGE / wing).glob("*.py")):
            name = wing if path.stem == "__init__" else f"{wing}.{path.stem}"
            found.append(name)
    return [name for name in found if name not in NO_ERRORS]


@pytest.mark.parametrize("module", _modules())
def test_a_module_a_callers_mistake_passes_through_hides_its_frames(module: str) -> None:
    loaded = importlib.import_module(f"pytest_schedemu.{module}")
    assert getattr(loaded, "__tracebackhide__", None) is raised_for_the_caller
