"""The guide's examples of moving time by what happens, and of async code, run as written
(docs/guide/moving-time.md, docs/guide/async.md), and do what they say."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_schedemu import Emulator

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide"


def example(page: str, name: str) -> tuple[str, Path]:
    """The python block after ``<!-- example: name -->`` on a page of the guide."""
    marker = f"<!-- example: {name} -->"
    path = GUIDE / page
    text = path.read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r"\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found, f"{page} has no python block after {marker}"
    return found.group(1), path


def test_the_guide_example_of_moving_by_events_runs(emu: Emulator) -> None:
    code, path = example("moving-time.md", "moving-by-events")
    exec(compile(code, str(path), "exec"), {"emu": emu})
    assert len(emu.deliveries(schedule="report")) == 4  # three on the clock, one fired


def test_the_guide_example_of_async_code_runs(emu: Emulator) -> None:
    code, path = example("async.md", "async")
    scope = {"emu": emu}
    exec(compile(code, str(path), "exec"), scope)
    assert len(scope["seen"]) == 4
