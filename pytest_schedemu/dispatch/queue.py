"""The dispatcher's queue of due work, bucketed by due second.

Schedules crowd onto the same instants (every hourly schedule fires at :00), so a plain
heap of every item pays log(n) tuple comparisons per push and pop, and that grows with
the number of schedules. Here a heap holds only the distinct due seconds; the items of one
second sit in a list that is sorted once, when that second comes up, and then drained
front to back. An item added to the second being drained is inserted in order.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterator
from typing import Any

# (incarnation, nominal, attempt number, kind, sequence, subject, plan version): the
# reference's tie-break order within one due second; the sequence makes entries unique,
# so comparisons never reach the subject.
Entry = tuple[int, int, int, int, int, Any, int]


class WorkQueue:
    def __init__(self) -> None:
        self._dues: list[int] = []
        self._buckets: dict[int, list[Entry]] = {}
        # The second being drained, its sorted bucket, and how far it has been drained.
        self._head_due: int | None = None
        self._cursor = 0

    def __len__(self) -> int:
        return sum(len(b) for b in self._buckets.values()) - self._cursor

    def clear(self) -> None:
        self._dues.clear()
        self._buckets.clear()
        self._head_due = None
        self._cursor = 0

    def push(self, due: int, entry: Entry) -> None:
        bucket = self._buckets.get(due)
        if bucket is None:
            self._buckets[due] = [entry]
            heapq.heappush(self._dues, due)
        elif due == self._head_due:
            bisect.insort(bucket, entry, lo=self._cursor)
        else:
            bucket.append(entry)

    def peek(self) -> tuple[int, Entry] | None:
        """The earliest entry and its due second, without removing it."""
        while self._dues:
            due = self._dues[0]
            bucket = self._buckets[due]
            if due != self._head_due:
                bucket.sort()
                self._head_due = due
                self._cursor = 0
            if self._cursor < len(bucket):
                return due, bucket[self._cursor]
            heapq.heappop(self._dues)
            del self._buckets[due]
            self._head_due = None
        return None

    def pop(self) -> tuple[int, Entry]:
        """Remove and return the earliest entry; call ``peek`` first."""
        assert self._head_due is not None
        due = self._head_due
        entry = self._buckets[due][self._cursor]
        self._cursor += 1
        return due, entry

    def entries(self) -> Iterator[tuple[int, Entry]]:
        """Every entry not yet popped, in no particular order."""
        for due, bucket in self._buckets.items():
            start = self._cursor if due == self._head_due else 0
            for entry in bucket[start:]:
                yield due, entry
