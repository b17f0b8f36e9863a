"""One owner per state file, by whatever path it is reached; a file or folder that cannot be
written is refused at start, in one line."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers import create
from tests.persistence.lives import Lives

SERVE = [sys.executable, "-m", "pytest_schedemu", "serve", "--port", "0"]
IMPORT = [sys.executable, "-m", "pytest_schedemu", "state", "import"]
EXPORT = [sys.executable, "-m", "pytest_schedemu", "state", "export"]


def refused(command: list[str]) -> str:
    """What a command that must stop at once said; it must say it in one line."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr.strip()


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` cannot be written, even by root (an immutable file or folder)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None:
        pytest.skip("as root, only an immutable file is read-only, and chattr is missing")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"this file system keeps no immutable flag: {made.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_second_service_through_a_symbolic_link_is_refused(lives: Lives, tmp_path: Path) -> None:
    create(lives.open().client(), "kept")
    link = tmp_path / "elsewhere.db"
    link.symlink_to(lives.path)
    message = refused([*SERVE, "--state", str(link)])
    assert "in use by another schedemu process" in message
    assert [s.name for s in lives.restart().schedules()] == ["kept"]


def test_a_service_through_a_link_to_the_folder_is_refused(lives: Lives, tmp_path: Path) -> None:
    lives.open()
    folder = tmp_path / "alias"
    folder.symlink_to(tmp_path, target_is_directory=True)
    message = refused([*SERVE, "--state", str(folder / lives.path.name)])
    assert "in use by another schedemu process" in message


def test_an_import_through_a_symbolic_link_is_refused(lives: Lives, tmp_path: Path) -> None:
    create(lives.open().client(), "kept")
    dump = tmp_path / "dump.json"
    subprocess.run([*EXPORT, str(dump), "--state", str(lives.path)], check=True)
    link = tmp_path / "elsewhere.db"
    link.symlink_to(lives.path)
    message = refused([*IMPORT, str(dump), "--state", str(link)])
    assert "in use by another schedemu process" in message


def test_a_state_file_with_a_second_hard_link_is_refused(lives: Lives, tmp_path: Path) -> None:
    create(lives.open().client(), "kept")
    other = tmp_path / "other.db"
    os.link(lives.path, other)
    message = refused([*SERVE, "--state", str(other)])
    assert "2 hard links" in message
    lives.current.stop()  # type: ignore[union-attr]
    assert "2 hard links" in refused([*SERVE, "--state", str(lives.path)])
    other.unlink()
    assert [s.name for s in lives.open().schedules()] == ["kept"]


def test_a_lock_file_planted_as_a_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("untouched")
    (tmp_path / "state.db-lock").symlink_to(target)
    assert "Cannot create the lock file" in refused([*SERVE, "--state", str(tmp_path / "state.db")])
    assert target.read_text() == "untouched"


def test_a_read_only_state_file_is_refused_at_start(lives: Lives) -> None:
    create(lives.open().client(), "kept")
    lives.current.stop()  # type: ignore[union-attr]
    with read_only(lives.path):
        message = refused([*SERVE, "--state", str(lives.path)])
    assert message.startswith("schedemu: Cannot write the state file")
    assert "readonly" in message and "\n" not in message


@pytest.mark.parametrize("existing", [True, False], ids=["existing-file", "new-file"])
def test_a_state_in_a_read_only_folder_is_refused_at_start(tmp_path: Path, existing: bool) -> None:
    folder = tmp_path / "states"
    folder.mkdir()
    path = folder / "state.db"
    if existing:
        lives = Lives(path)
        lives.open()
        lives.close()
    with read_only(folder):
        message = refused([*SERVE, "--state", str(path)])
    assert message.startswith("schedemu: Cannot write beside the state file")
    assert "\n" not in message
