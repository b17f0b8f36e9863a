"""The settings of a running emulator: one immutable ``Settings`` at a time.

The store, the API, the dispatcher and the server's threads all read ``current``; a change
(``Emulator.reset``, ``Emulator.configure``) builds a whole new ``Settings`` and puts it in
place, so a reader sees the old settings or the new ones, never a mix. A reader that needs
several settings for one decision reads ``current`` once and uses that.
"""

from __future__ import annotations

import threading

from pytest_schedemu.settings.options import Settings


class LiveSettings:
    """Holds the emulator's current ``Settings``; replaced whole, under its own lock."""

    def __init__(self, settings: Settings) -> None:
        self._lock = threading.Lock()
        self._current = settings

    @property
    def current(self) -> Settings:
        with self._lock:
            return self._current

    def replace(self, settings: Settings) -> None:
        with self._lock:
            self._current = settings
