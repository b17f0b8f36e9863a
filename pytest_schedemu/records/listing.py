"""Names listed in messages: the likeliest first, and cut when there are many."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_first(word: str, candidates: Iterable[str]) -> list[str]:
    """``candidates`` ordered by likeness to ``word``, the likeliest first."""
    ratio = {c: difflib.SequenceMatcher(None, word, c).ratio() for c in set(candidates)}
    return sorted(ratio, key=lambda c: (-ratio[c], c))


def listing(items: list[str], limit: int = 10) -> str:
    """``items`` joined, the first ``limit`` of them when that hides two or more."""
    if len(items) <= limit + 1:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"
