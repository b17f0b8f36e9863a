"""Writing a template for a test, and reading it back as a stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_schedemu.stacks import ResolvedStack, read_stack

ACCOUNT = "123456789012"
REGION = "us-east-1"
SEED = 7


def write(directory: Path, template: dict[str, Any] | str, name: str = "template") -> Path:
    """``template`` written into ``directory``: a dict as JSON, a string as YAML."""
    if isinstance(template, str):
        path = directory / f"{name}.yaml"
        path.write_text(template)
    else:
        path = directory / f"{name}.json"
        path.write_text(json.dumps(template))
    return path


def read(directory: Path, template: dict[str, Any] | str, **options: Any) -> ResolvedStack:
    """The stack ``template`` makes, in ``ACCOUNT`` and ``REGION`` unless told otherwise."""
    options = {"account": ACCOUNT, "region": REGION, "seed": SEED, **options}
    return read_stack(write(directory, template), **options)


def resources(**definitions: dict[str, Any]) -> dict[str, Any]:
    """A template of just these resources."""
    return {"Resources": definitions}
