"""No tracked text file holds an unresolved merge conflict.

A conflict is a line starting with seven ``<`` (then a space or the line's end), up to a line
starting with seven ``>`` likewise; between them, a line of seven ``=`` alone (or the
``|||||||`` of a three-way conflict) splits the sides. A lone line of seven ``=`` elsewhere is
left alone: reStructuredText and Markdown underline headings with it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Written without the markers at a line's start, so this file does not hold one.
OPENING = re.compile(r"^<{7}(?: |$)")
CLOSING = re.compile(r"^>{7}(?: |$)")
SPLITTING = re.compile(r"^(?:={7}|\|{7}(?: .*)?)$")


def conflict_lines(text: str) -> list[int]:
    """The 1-based numbers of the lines that mark a conflict in ``text``."""
    found: list[int] = []
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if OPENING.match(line):
            found.append(number)
            inside = True
        elif CLOSING.match(line):
            found.append(number)
            inside = False
        elif inside and SPLITTING.match(line):
            found.append(number)
    return found


def tracked_text_files() -> dict[str, str]:
    """Each tracked file that is text (UTF-8, no NUL byte), by its path in the repository."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    texts: dict[str, str] = {}
    for name in filter(None, listed.split("\0")):
        path = ROOT / name
        # A link is followed by nothing here: what it points at is tracked, or not ours.
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def test_the_markers_of_a_conflict_are_found_and_a_lone_underline_is_not() -> None:
    seven = {"<": "<" * 7, "=": "=" * 7, ">": ">" * 7}
    conflicted = f"a\n{seven['<']} HEAD\nours\n{seven['=']}\ntheirs\n{seven['>']} branch\nb\n"
    assert conflict_lines(conflicted) == [2, 4, 6]
    assert conflict_lines(f"{seven['<']}\nx\n{seven['>']}\n") == [1, 3]
    heading = f"Title\n{seven['=']}\n\ntext {seven['<']} inline, {seven['>']}\n"
    assert conflict_lines(heading) == []
    assert conflict_lines(f"{seven['<']}<< eight is not a marker\n") == []


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs a git checkout to list the tracked files",
)
def test_no_tracked_file_holds_conflict_markers() -> None:
    texts = tracked_text_files()
    assert "README.md" in texts
    conflicted = {name: lines for name, text in texts.items() if (lines := conflict_lines(text))}
    where = "; ".join(f"{name}: lines {lines}" for name, lines in sorted(conflicted.items()))
    assert not conflicted, f"unresolved merge conflicts in {where}"
