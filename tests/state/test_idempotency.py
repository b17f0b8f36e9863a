"""The answers kept for ClientTokens come back exactly as they were given."""

from __future__ import annotations

import hashlib

from pytest_schedemu.state.idempotency import StoredResponse, TokenStore

KEY = ("123456789012", "us-east-1", "CreateSchedule", "token-1")


def test_an_answer_comes_back_as_it_was_given() -> None:
    tokens = TokenStore(lambda: 10)
    fingerprint = hashlib.sha256(b"request").hexdigest()
    answer = StoredResponse(fingerprint, 200, b'{"ScheduleArn":"arn:aws:scheduler:x"}')
    tokens.put(KEY, answer)
    assert tokens.get(KEY) == answer
    assert tokens.snapshot() == ((KEY, answer),)


def test_an_answer_whose_fingerprint_is_not_a_digest_comes_back_unchanged() -> None:
    tokens = TokenStore(lambda: 10)
    for fingerprint, status in (("F" * 64, 200), ("short", 409), ("", 200), ("a" * 64, 70000)):
        answer = StoredResponse(fingerprint, status, b"{}")
        tokens.put(KEY, answer)
        assert tokens.get(KEY) == answer


def test_the_oldest_answers_are_forgotten_past_the_limit() -> None:
    tokens = TokenStore(lambda: 2)
    keys = [(*KEY[:3], f"token-{n}") for n in range(3)]
    for key in keys:
        forgotten = tokens.put(key, StoredResponse("0" * 64, 200, b""))  # type: ignore[arg-type]
    assert forgotten == [keys[0]]
    assert tokens.get(keys[0]) is None  # type: ignore[arg-type]
    assert tokens.get(keys[2]) == StoredResponse("0" * 64, 200, b"")  # type: ignore[arg-type]
