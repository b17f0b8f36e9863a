"""ClientToken idempotency (§1.9): the answers given to requests that carried a token.

Owned by the store and used under its lock: a token's answer is stored in the same
critical section as the change it answered. The newest ``max_idempotency_tokens`` are
kept: a retry comes seconds after its request, while a service that runs for weeks must
not keep every token it ever saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

TokenKey = tuple[str, str, str, str]  # (account, region, operation, token)


@dataclass(frozen=True)
class StoredResponse:
    fingerprint: str
    status: int
    body: bytes


class TokenStore:
    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._answers: dict[TokenKey, StoredResponse] = {}

    def get(self, key: TokenKey) -> StoredResponse | None:
        return self._answers.get(key)

    def put(self, key: TokenKey, response: StoredResponse) -> list[TokenKey]:
        """Keep ``response``; return the keys forgotten to make room (the oldest)."""
        answers = self._answers
        answers[key] = response
        forgotten = []
        while len(answers) > self._limit():
            oldest = next(iter(answers))  # dicts keep insertion order
            del answers[oldest]
            forgotten.append(oldest)
        return forgotten

    def clear(self) -> None:
        self._answers.clear()

    def snapshot(self) -> tuple[Any, ...]:
        return tuple(sorted(self._answers.items()))
