"""When a failed attempt is tried again: Scheduler's retry ladder, and EventBridge's.

Each takes the number of the attempt that failed and the second it was made at, and gives
the next attempt's number and due second. Neither service publishes its backoff; both are
deterministic choices (no jitter), so a test sees the same ladder on every run.
"""

from __future__ import annotations

from typing import Callable

#: (failed attempt's number, its second) -> (next attempt's number, its due second).
Ladder = Callable[[int, int], "tuple[int, int]"]

#: EventBridge's longest wait between two attempts: with it, 185 retries (the default
#: ``MaximumRetryAttempts``) take 84,991 seconds, inside the default 24 hours.
EVENTBRIDGE_LONGEST_WAIT = 480


def next_attempt(number: int, attempted_at: int) -> tuple[int, int]:
    """Scheduler's ladder (reference §6.2): 60 s after attempt 1, the wait doubling with
    each retry, at most a day."""
    retries_made = number - 1
    return number + 1, attempted_at + (86400 if retries_made >= 11 else 60 << retries_made)


def eventbridge_next_attempt(number: int, attempted_at: int) -> tuple[int, int]:
    """EventBridge's ladder for rule targets: AWS says "exponential back off and jitter"
    for "24 hours and up to 185 times" (docs/eventbridge-rules.md). 1 s after attempt 1,
    the wait doubling to at most 8 minutes, so that the default 185 retries fill the
    default day as AWS describes, and no jitter."""
    retries_made = number - 1
    wait = EVENTBRIDGE_LONGEST_WAIT if retries_made >= 9 else 1 << retries_made
    return number + 1, attempted_at + min(wait, EVENTBRIDGE_LONGEST_WAIT)
