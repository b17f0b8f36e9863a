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


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``did you mean X?`` for the candidates close to ``word`` (those a typo would give),
    or "" when none is: a list of unrelated names guesses nothing."""
    close = difflib.get_close_matches(word, list(dict.fromkeys(candidates)), n=5, cutoff=0.6)
    if not close:
        return ""
    others = f" ({', '.join(close[1:])} are close too)" if len(close) > 1 else ""
    return f"did you mean {close[0]}?{others}"


def suggestion(word: str, candidates: Iterable[str], title: str) -> str:
    """What a message about a name nothing has adds: ``did you mean X?``, where a candidate
    is close, and the candidates under ``title`` (``none`` when there are none)."""
    names = sorted(set(candidates))
    guess = did_you_mean(word, names)
    listed = f"{title}: {listing(names) or 'none'}"
    return f"{guess} {listed[:1].upper()}{listed[1:]}" if guess else listed
