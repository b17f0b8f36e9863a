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
        # For each bucket sorted so far, how far it has been drained. A bucket can stop
        # being the head half-drained (work pushed for an earlier second, e.g. by an API
        # call timed just before the clock moved on) and must resume where it stopped.
        self._cursors: dict[int, int] = {}

    def __len__(self) -> int:
        consumed = sum(self._cursors.values())
        return sum(len(b) for b in self._buckets.values()) - consumed

    def clear(self) -> None:
        self._dues.clear()
        self._buckets.clear()
        self._cursors.clear()

    def push(self, due: int, entry: Entry) -> None:
        bucket = self._buckets.get(due)
        if bucket is None:
            self._buckets[due] = [entry]
            heapq.heappush(self._dues, due)
            return
        cursor = self._cursors.get(due)
        if cursor is None:
            bucket.append(entry)
        else:
            bisect.insort(bucket, entry, lo=cursor)

    def peek(self) -> tuple[int, Entry] | None:
        """The earliest entry and its due second, without removing it."""
        while self._dues:
            due = self._dues[0]
            bucket = self._buckets[due]
            cursor = self._cursors.get(due)
            if cursor is None:
                bucket.sort()
                cursor = self._cursors[due] = 0
            if cursor < len(bucket):
                return due, bucket[cursor]
            heapq.heappop(self._dues)
            del self._buckets[due]
            del self._cursors[due]
        return None

    def pop(self) -> tuple[int, Entry]:
        """Remove and return the earliest entry; call ``peek`` first."""
        due = self._dues[0]
        cursor = self._cursors[due]
        self._cursors[due] = cursor + 1
        return due, self._buckets[due][cursor]

    def entries(self) -> Iterator[tuple[int, Entry]]:
        """Every entry not yet popped, in no particular order."""
        for due, bucket in self._buckets.items():
            yield from ((due, entry) for entry in bucket[self._cursors.get(due, 0) :])
