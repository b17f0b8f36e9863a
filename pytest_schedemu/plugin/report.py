"""A test's timeline in its pytest report: when to write it, where, and how the report
(and pytest-html's, when it is installed) points at it.

The plugin's hooks call these; ``--schedemu-timeline`` (ini ``schedemu_timeline``) says
when, ``--schedemu-timeline-dir`` where.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_schedemu.settings.values import ALWAYS, FAILED

if TYPE_CHECKING:
    from pytest_schedemu.emulator import Emulator

#: The folder under pytest's base temporary folder that holds the timelines.
FOLDER_NAME = "schedemu-timelines"
#: The report section that names the file.
SECTION = "schedemu"
# A file name keeps a test id's readable characters and a bounded length; a name changed
# to get there ends with a hash of the whole id, so no two ids share a file.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MOST_NAME = 150
_HASH_LENGTH = 10
# The private folder of a session run without pytest's temporary folders.
_PRIVATE_FOLDER = pytest.StashKey[Path]()


def wanted(mode: str, failed: bool) -> bool:
    """Whether a test's report gets a timeline: ``always``, or ``failed`` and it failed."""
    return mode == ALWAYS or (mode == FAILED and failed)


def default_folder(config: pytest.Config) -> Path:
    """``schedemu-timelines`` under pytest's base temporary folder (``--basetemp``).

    The factory is the one pytest's ``tmp_path_factory`` fixture hands out; read from the
    config, it is there without making every schedemu test depend on that fixture. A run
    with ``-p no:tmpdir`` gets a folder of its own in the system's temporary folder, made
    afresh and readable by its owner only: a fixed name there could be anyone's, or a link
    to anywhere.
    """
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        return Path(factory.getbasetemp()) / FOLDER_NAME
    folder = config.stash.get(_PRIVATE_FOLDER, None)
    if folder is None:
        folder = config.stash[_PRIVATE_FOLDER] = Path(tempfile.mkdtemp(prefix=FOLDER_NAME + "-"))
    return folder


def timeline_path(folder: Path, nodeid: str) -> Path:
    """The file of a test's timeline: its id made safe for a file name, and, when that
    changed or cut it, a hash of the whole id, so each test id has a file of its own."""
    name = _UNSAFE.sub("_", nodeid).strip("_.") or "test"
    if len(name) > _MOST_NAME:
        name = name[: _MOST_NAME // 2 - 1] + "__" + name[-(_MOST_NAME // 2 - 1) :]
    if name != nodeid:
        digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()
        name = f"{name}-{digest[:_HASH_LENGTH]}"
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
