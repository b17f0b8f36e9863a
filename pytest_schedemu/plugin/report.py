"""A test's timeline in its pytest report: when to write it, where, and how the report
(and pytest-html's, when it is installed) points at it.

The plugin's hooks call these; ``--schedemu-timeline`` (ini ``schedemu_timeline``) says
when, ``--schedemu-timeline-dir`` where.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_schedemu.settings.values import ALWAYS, FAILED

if TYPE_CHECKING:
    from pytest_schedemu.emulator import Emulator

#: The folder under pytest's base temporary folder that holds the timelines.
FOLDER_NAME = "schedemu-timelines"
#: The report section that names the file.
SECTION = "schedemu"
# A file name keeps a test id's readable characters and a bounded length.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MOST_NAME = 150


def wanted(mode: str, failed: bool) -> bool:
    """Whether a test's report gets a timeline: ``always``, or ``failed`` and it failed."""
    return mode == ALWAYS or (mode == FAILED and failed)


def default_folder(config: Any) -> Path:
    """``schedemu-timelines`` under pytest's base temporary folder (``--basetemp``).

    The factory is the one pytest's ``tmp_path_factory`` fixture hands out; read from the
    config, it is there without making every schedemu test depend on that fixture, and a
    run with ``-p no:tmpdir`` falls back to the system's temporary folder.
    """
    factory = getattr(config, "_tmp_path_factory", None)
    base = Path(tempfile.gettempdir()) if factory is None else factory.getbasetemp()
    return Path(base) / FOLDER_NAME


def timeline_path(folder: Path, nodeid: str) -> Path:
    """The file of a test's timeline: its id made safe for a file name."""
    name = _UNSAFE.sub("_", nodeid).strip("_.") or "test"
    if len(name) > _MOST_NAME:
        name = name[: _MOST_NAME // 2 - 1] + "__" + name[-(_MOST_NAME // 2 - 1) :]
    return folder / f"{name}.html"


def write_timeline(emulator: Emulator, folder: Path, nodeid: str, outcome: str) -> Path:
    """Write the test's timeline into ``folder`` and return the file."""
    return emulator.timeline(timeline_path(folder, nodeid), title=f"{nodeid} ({outcome})")


def section_text(path: Path) -> str:
    return f"timeline: {path}\nopen it in a browser: {path.as_uri()}"


def attach_to_html_report(report: Any, path: Path, svg: str | None) -> None:
    """Add the timeline to pytest-html's report of this test, if pytest-html is there: a
    link to the file, and the picture itself when ``svg`` is given."""
    try:
        from pytest_html import extras
    except ImportError:
        return
    found = list(getattr(report, "extras", None) or [])
    found.append(extras.url(path.as_uri(), name="schedemu timeline"))
    if svg is not None:
        found.append(
            extras.html(f'<div class="schedemu-timeline" style="overflow-x:auto">{svg}</div>')
        )
    report.extras = found
