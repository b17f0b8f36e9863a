"""ClientToken idempotency (§1.9): the answers given to requests that carried a token.

Owned by the store and used under its lock: a token's answer is stored in the same
critical section as the change it answered. The newest ``max_idempotency_tokens`` are
kept: a retry comes seconds after its request, while a service that runs for weeks must
not keep every token it ever saw. Each answer is kept packed in one bytes object (the
fingerprint as its 32 bytes rather than 64 hex digits, the status, the body): thousands are
kept, and are read again only when a request is retried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from sys import intern
from typing import Any, Callable, Union

TokenKey = tuple[str, str, str, str]  # (account, region, operation, token)


@dataclass(frozen=True)
class StoredResponse:
    fingerprint: str
    status: int
    body: bytes


#: A fingerprint as the API makes them: a SHA-256 digest in lower-case hex.
_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_DIGEST_BYTES = 32
_STATUS_BYTES = 2

#: An answer as kept: packed (digest, status, body), or as given when it cannot be.
_Kept = Union[bytes, StoredResponse]


def _pack(response: StoredResponse) -> _Kept:
    if _HEX_DIGEST.fullmatch(response.fingerprint) and 0 <= response.status < 1 << 16:
        status = response.status.to_bytes(_STATUS_BYTES, "big")
        return bytes.fromhex(response.fingerprint) + status + response.body
    return response


def _unpack(kept: _Kept) -> StoredResponse:
    if isinstance(kept, StoredResponse):
        return kept
    body_start = _DIGEST_BYTES + _STATUS_BYTES
    status = int.from_bytes(kept[_DIGEST_BYTES:body_start], "big")
    return StoredResponse(kept[:_DIGEST_BYTES].hex(), status, kept[body_start:])


class TokenStore:
    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._answers: dict[TokenKey, _Kept] = {}

    def get(self, key: TokenKey) -> StoredResponse | None:
        kept = self._answers.get(key)
        return None if kept is None else _unpack(kept)

    def put(self, key: TokenKey, response: StoredResponse) -> list[TokenKey]:
        """Keep ``response``; return the keys forgotten to make room (the oldest)."""
        answers = self._answers
        account, region, operation, token = key
        # The partition's and the operation's texts are one per request otherwise.
        answers[(intern(account), intern(region), intern(operation), token)] = _pack(response)
        forgotten = []
        while len(answers) > self._limit():
            oldest = next(iter(answers))  # dicts keep insertion order
            del answers[oldest]
            forgotten.append(oldest)
        return forgotten

    def clear(self) -> None:
        self._answers.clear()

    def snapshot(self) -> tuple[Any, ...]:
        return tuple(sorted((key, _unpack(kept)) for key, kept in self._answers.items()))
