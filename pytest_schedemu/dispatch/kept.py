"""What one clock move keeps of the attempts it makes, and when it collects the rest."""

from __future__ import annotations

import gc
from typing import Callable

from pytest_schedemu.dispatch.bulk import SLICE_ATTEMPTS
from pytest_schedemu.records import Attempt, MoveAttempts

#: How many dropped records that outlived a young collection a move may leave for the next
#: full one (``KeptAttempts``): about 45 MiB of attempts and their occurrences.
_OLD_GARBAGE = SLICE_ATTEMPTS


class KeptAttempts:
    """The attempts of one move as it goes: the newest ``keep`` of them (None: all), and
    how many it made.

    A move runs with the cyclic collector off, and an attempt's record and its occurrence
    refer to each other, so what the history drops is freed only by a collection. With
    ``collect``, ``collect_if_due`` collects the young generations every
    ``SLICE_ATTEMPTS`` attempts if the history dropped records since (``dropped`` counts
    them; what it keeps is no garbage), a cost that follows the attempts made since, not
    the history. What was alive at a collection (at most what the move and the history
    keep) and dropped later is old, and waits for a full collection: one comes once the
    collections since the last could have left ``_OLD_GARBAGE`` records so, so a long
    move's garbage stays within that many records whatever ``keep`` is, and a full
    collection, whose cost follows what is kept, comes no more often than that buys.
    """

    def __init__(self, keep: int | None, collect: bool, dropped: Callable[[], int]) -> None:
        self._keep = keep
        self._collect = collect
        self._dropped = dropped
        self._dropped_at = dropped() if collect else 0
        self._collected_at = 0
        # Records that outlived a young collection since the last full one, at most.
        self._old = 0
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
        # What the move holds (up to twice ``keep`` before a trim) outlives this collection.
        self._old += 2 * self._keep if self._keep is not None else self.count
        if self._old >= _OLD_GARBAGE:
            self._old = 0
            gc.collect(2)
        else:
            gc.collect(1)

    def result(self) -> MoveAttempts:
        keep = self._keep
        kept = self.kept if keep is None or len(self.kept) <= keep else self.kept[-keep:]
        return MoveAttempts(kept, self.count)


class JoinedMoves:
    """What a series of moves made, gathered move by move as one move's answer: the newest
    ``keep`` attempts (None: all), and how many were made in all. A verb that makes a move
    per step holds no more than one move keeps, however many steps it takes."""

    def __init__(self, keep: int | None) -> None:
        self._kept = KeptAttempts(keep, False, lambda: 0)
        self.made = 0

    def add(self, move: list[Attempt]) -> None:
        self.made += getattr(move, "attempts_made", len(move))
        self._kept.extend(move)

    def result(self) -> MoveAttempts:
        return MoveAttempts(self._kept.result(), self.made)
