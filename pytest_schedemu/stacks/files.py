"""Reading a stack's files with a bound: only regular files, and only so many bytes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pytest_schedemu.errors import StackError, raised_for_the_caller

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: What a file that is not a regular one is, by the test of its mode.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a fifo"),
    (stat.S_ISSOCK, "a socket"),
)
# Opening a fifo that no one writes would wait for a writer, and opening a device can act.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class NotARegularFile(ValueError):
    """A path that names a directory, a device, a fifo or a socket: never opened to be read
    as a stack's file."""


def check_regular(path: Path, what: str) -> os.stat_result:
    """``path``'s status: StackError, starting with ``what`` (how the message names the
    file), unless it is a regular file; looked at without opening it."""
    try:
        status = path.stat()
        _require_regular(status)
    except NotARegularFile as error:
        raise StackError(f"{what}: {error}") from None
    except OSError as error:
        raise StackError(f"{what}: cannot be read: {error.strerror or error}") from None
    return status


def check_bounded(path: Path, limit: int, what: str) -> None:
    """StackError, starting with ``what``, unless ``path`` is a regular file of at most
    ``limit`` bytes; looked at without opening it."""
    if check_regular(path, what).st_size > limit:
        raise _too_large(limit, what)


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (one more than the limit
    tells the caller it is over); NotARegularFile, before it is opened, for anything else,
    and OSError when it cannot be read."""
    _require_regular(path.stat())
    descriptor = os.open(path, _OPEN_FLAGS)
    with os.fdopen(descriptor, "rb") as file:
        # The path may name another file by now: what is read is checked again, by its
        # descriptor.
        _require_regular(os.fstat(descriptor))
        return file.read(limit + 1)


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them: StackError,
    starting with ``what``, for anything else, before a byte is read."""
    check_bounded(path, limit, what)
    try:
        content = read_regular(path, limit)
    except NotARegularFile as error:
        raise StackError(f"{what}: {error}") from None
    except OSError as error:
        raise StackError(f"{what}: cannot be read: {error.strerror or error}") from None
    if len(content) > limit:
        # It grew since it was looked at.
        raise _too_large(limit, what)
    return content


def confined(directory: Path, named: str, what: str, container: str) -> tuple[Path, Path]:
    """The path ``named`` (relative to ``directory``), as named and resolved: StackError,
    starting with ``what`` (how the message names the file and its field) and calling the
    directory ``container`` ("the assembly"), for a path that leads outside ``directory``
    by any way out (an absolute path, ``..``, a symbolic link), before anything opens it."""
    if Path(named).is_absolute():
        raise StackError(
            f"{what} {named!r} is outside {container}: an absolute path, where "
            f"{container} names its files relative to its directory "
            f"{directory}"
        )
    path = directory / named
    try:
        resolved, root = path.resolve(), directory.resolve()
    except (OSError, RuntimeError, ValueError) as error:
        # A loop of symbolic links, or a name no file system takes (a NUL byte).
        raise StackError(f"{what} {named!r} cannot be resolved: {error}") from None
    if not resolved.is_relative_to(root):
        raise StackError(
            f"{what} {named!r} is outside {container} {directory}: it leads to {resolved}"
        )
    return path, resolved


def _require_regular(status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _KINDS if test(status.st_mode)), "a special file")
        raise NotARegularFile(f"not a regular file: it is {kind}")


def _too_large(limit: int, what: str) -> StackError:
    return StackError(f"{what}: too large: over the limit of {_bytes(limit)}")


def _bytes(count: int) -> str:
    """``16 MiB`` for a count of whole mebibytes, else the count of bytes."""
    mebibyte = 1024 * 1024
    if count >= mebibyte and count % mebibyte == 0:
        return f"{count // mebibyte} MiB ({count:,} bytes)"
    return f"{count:,} bytes"
