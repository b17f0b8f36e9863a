"""The README's sections "Moving time by what happens" and "Async code" run as written."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_schedemu import Emulator

README = Path(__file__).resolve().parents[2] / "README.md"


def example(name: str) -> str:
    """The python block after ``<!-- example: name -->`` in the README."""
    marker = f"<!-- example: {name} -->"
    text = README.read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r"\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found, f"README.md has no python block after {marker}"
    return found.group(1)


def test_the_readme_example_of_moving_by_events_runs(emu: Emulator) -> None:
    exec(compile(example("moving-by-events"), str(README), "exec"), {"emu": emu})
    assert len(emu.deliveries(schedule="report")) == 4  # three on the clock, one fired


def test_the_readme_example_of_async_code_runs(emu: Emulator) -> None:
    scope = {"emu": emu}
    exec(compile(example("async"), str(README), "exec"), scope)
    assert len(scope["seen"]) == 4
