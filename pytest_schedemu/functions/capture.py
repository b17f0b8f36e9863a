"""What a handler prints and logs, kept per invocation.

``sys.stdout``, ``sys.stderr`` and the root logger belong to the process: while a call
runs they are routed by thread, so that what the handler's thread writes is its
invocation's and what other threads write (the test's, a server's) goes where it went.
"""

from __future__ import annotations

import io
import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


class _Routed(io.TextIOBase):
    """A stream that sends the calling thread's text to its invocation's log, and any
    other thread's to the stream it stands in for."""

    def __init__(self, original: TextIO, capture: LogCapture) -> None:
        super().__init__()
        self._original = original
        self._capture = capture

    def write(self, text: str) -> int:
        if self._capture.is_handler_thread():
            return self._capture.write(text)
        return self._original.write(text)

    def flush(self) -> None:
        self._original.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


class _LambdaLogFormat(logging.Formatter):
    """Lambda's Python runtime's line: ``[LEVEL]\\t<time>\\t<request id>\\t<message>``, the
    time the emulator's, not the wall clock's."""

    def __init__(self, timestamp: str, request_id: str) -> None:
        super().__init__()
        self._prefix = (timestamp, request_id)

    def format(self, record: logging.LogRecord) -> str:
        timestamp, request_id = self._prefix
        message = super().format(record)
        return f"[{record.levelname}]\t{timestamp}\t{request_id}\t{message}"


class LogCapture(logging.Handler):
    """One invocation's log: what its handler's thread prints, and the records it logs."""

    def __init__(self, timestamp: str, request_id: str) -> None:
        super().__init__()
        self._text = io.StringIO()
        self._lock_text = threading.Lock()
        self._thread: int | None = None
        self.setFormatter(_LambdaLogFormat(timestamp, request_id))

    def adopt_current_thread(self) -> None:
        """The calling thread is the handler's from now on."""
        self._thread = threading.get_ident()

    def is_handler_thread(self) -> bool:
        return threading.get_ident() == self._thread

    def write(self, text: str) -> int:
        with self._lock_text:
            return self._text.write(text)

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._thread:
            self.write(self.format(record) + "\n")

    @property
    def text(self) -> str:
        with self._lock_text:
            return self._text.getvalue()

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Route the process's streams and root logger through this capture while the
        block runs; the caller holds the process's lock."""
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = _Routed(stdout, self)
        sys.stderr = _Routed(stderr, self)
        root = logging.getLogger()
        root.addHandler(self)
        try:
            yield
        finally:
            root.removeHandler(self)
            sys.stdout, sys.stderr = stdout, stderr
