"""What one clock move keeps of the attempts it makes, and when it collects the rest."""

from __future__ import annotations

import gc
from typing import Callable

from pytest_schedemu.dispatch.bulk import SLICE_ATTEMPTS
from pytest_schedemu.records import Attempt, MoveAttempts

#: One collection in this many during a move is a full one (``KeptAttempts``).
_FULL_EVERY = 20


class KeptAttempts:
    """The attempts of one move as it goes: the newest ``keep`` of them (None: all), and
    how many it made.

    A move runs with the cyclic collector off, and an attempt's record and its occurrence
    refer to each other, so what the history drops is freed only by a collection. With
    ``collect``, ``collect_if_due`` collects the young generations every
    ``SLICE_ATTEMPTS`` attempts if the history dropped records since (``dropped`` counts
    them; what it keeps is no garbage), a cost that follows the attempts made since, not
    the history; what was alive then and dropped later waits for a full collection, one
    in ``_FULL_EVERY``.
    """

    def __init__(self, keep: int | None, collect: bool, dropped: Callable[[], int]) -> None:
        self._keep = keep
        self._collect = collect
        self._dropped = dropped
        self._dropped_at = dropped() if collect else 0
        self._collected_at = 0
        self._collections = 0
        self.kept: list[Attempt] = []
        self.count = 0

    def add(self, attempt: Attempt) -> None:
        self.kept.append(attempt)
        self.count += 1
        self._trim()

    def extend(self, attempts: list[Attempt]) -> None:
        keep = self._keep
        self.kept.extend(attempts if keep is None else attempts[-keep:])
        self.count += len(attempts)
        self._trim()

    def _trim(self) -> None:
        # Trimmed once twice the bound is reached, so a trim costs nothing per attempt.
        keep = self._keep
        if keep is not None and len(self.kept) >= 2 * keep:
            del self.kept[: len(self.kept) - keep]

    def collect_if_due(self) -> None:
        """Collect, if due: call it holding no records the move made but those kept."""
        if not self._collect or self.count - self._collected_at < SLICE_ATTEMPTS:
            return
        self._collected_at = self.count
        dropped = self._dropped()
        if dropped == self._dropped_at:
            return
        self._dropped_at = dropped
        self._collections += 1
        gc.collect(2 if self._collections % _FULL_EVERY == 0 else 1)

    def result(self) -> MoveAttempts:
        keep = self._keep
        kept = self.kept if keep is None or len(self.kept) <= keep else self.kept[-keep:]
        return MoveAttempts(kept, self.count)
