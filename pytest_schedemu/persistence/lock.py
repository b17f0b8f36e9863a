"""One owner per state file: a lock file across processes, a hand-over within one.

``<file>-lock`` beside the file itself (its path with every symbolic link resolved) is
locked for as long as a process has the state open for writing, so a second ``schedemu
serve`` or ``state import`` on the same file, by whatever path, stops at once instead of
interleaving its writes with the first's; the lock goes with the process, however it
ends. A file with a second hard link is refused: its other name would lead to another lock
file, and SQLite's own write-ahead log and shared memory are named after the path too, so
two names of one file corrupt it even without schedemu. Within one
process the newest opener takes the file over: an emulator dropped without ``stop()`` (as
a test that restarts one may do) would otherwise hold it until the garbage collector finds
it. The one taken over writes no more, and says so if asked to.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import IO

from pytest_schedemu.errors import StateError

logger = logging.getLogger("pytest_schedemu.persistence")


class Hold:
    """This process's hold on one state file; ``owner`` is the one that may write."""

    def __init__(self, key: str, handle: IO[bytes]) -> None:
        self.key = key
        self.handle = handle
        self.owner: object | None = None


_HELD: dict[str, Hold] = {}
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_GUARD = threading.Lock()


def acquire(path: str, *, take_over: bool = True) -> Hold:
    """This process's hold on ``path``, locking the file if it has none yet; StateError
    when another process holds it (or, without ``take_over``, another opener here)."""
    key = os.path.realpath(path)
    _refuse_hard_links(path)
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            if not take_over and held.owner is not None:
                raise StateError(
                    f"The state file {path!r} is open by another Emulator of this process; "
                    "stop it first"
                )
            return held
        held = _HELD[key] = Hold(key, _lock(path, key))
        return held


def own(held: Hold, owner: object, path: str) -> None:
    """Make ``owner`` the one that writes the file, taking it over from any other."""
    with _GUARD:
        if held.owner is not None:
            logger.warning(
                "the state file %s was still open by an Emulator that was not stopped; the "
                "new one takes it over and the old one no longer writes to it",
                path,
            )
        held.owner = owner


def release(held: Hold, owner: object | None) -> None:
    """Let the file go, if ``owner`` is still the one holding it (None: nobody took it)."""
    with _GUARD:
        if held.owner is not owner or _HELD.get(held.key) is not held:
            return
        del _HELD[held.key]
        held.handle.close()  # closing the descriptor releases the lock


def _refuse_hard_links(path: str) -> None:
    try:
        links = os.stat(path).st_nlink
    except FileNotFoundError:
        return  # a new file: SQLite makes it, with one name
    except OSError as error:
        raise StateError(f"Cannot read the state file {path!r}: {error}") from None
    if links > 1:
        raise StateError(
            f"Refused the state file {path!r}: it has {links} hard links, and two names of "
            "one SQLite file corrupt it (each name has its own write-ahead log and lock); "
            "keep one name, or use a symbolic link"
        )


def _lock(path: str, resolved: str) -> IO[bytes]:
    lock_path = resolved + "-lock"
    try:
        # Not through a link planted in its place: the lock would be taken on its target.
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT | _NO_FOLLOW, 0o600)
        handle = os.fdopen(descriptor, "r+b")
    except OSError as error:
        raise StateError(f"Cannot create the lock file {lock_path!r}: {error}") from None
    try:
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StateError(
            f"The state file {path!r} is in use by another schedemu process ({lock_path} is "
            "locked); stop it first, or give another state path"
        ) from None
    return handle
