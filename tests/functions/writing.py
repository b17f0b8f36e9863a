"""Functions for the tests: a code directory written from sources, and its definition."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from pytest_schedemu.functions.definition import FunctionDefinition
from tests.constants import ACCOUNT

REGION = "us-east-1"
NAME = "billing-charge"
ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{NAME}"


def write_code(directory: Path, **modules: str) -> Path:
    """``directory`` holding each module (``app="..."`` for ``app.py``)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in modules.items():
        (directory / f"{name}.py").write_text(textwrap.dedent(source))
    return directory


def function(
    code_dir: Path | None = None, handler: str = "app.handler", **changes: Any
) -> FunctionDefinition:
    """A runnable Python function of ``code_dir`` (or of ``inline_code=``)."""
    fields: dict[str, Any] = {
        "arn": ARN,
        "name": NAME,
        "logical_id": "ChargeFn",
        "stack": "Billing",
        "runtime": "python3.12",
        "handler": handler,
        "code_dir": code_dir,
        "inline_code": None,
        "environment": {},
        "timeout_seconds": 3,
        "memory_mb": 128,
        "maximum_retry_attempts": 2,
        "maximum_event_age_seconds": 21600,
        "on_success": None,
        "on_failure": None,
        "dead_letter_arn": None,
        "not_runnable": None,
    }
    return FunctionDefinition(**{**fields, **changes})
