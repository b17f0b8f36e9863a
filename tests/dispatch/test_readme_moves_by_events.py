"""The README's section "Moving time by what happens" runs as written."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_schedemu import Emulator

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- example: moving-by-events -->"


def example() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(re.escape(MARKER) + r"\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found, f"README.md has no python block after {MARKER}"
    return found.group(1)


def test_the_readme_example_of_moving_by_events_runs(emu: Emulator) -> None:
    exec(compile(example(), str(README), "exec"), {"emu": emu})
    assert len(emu.deliveries(schedule="report")) == 4  # three on the clock, one fired
