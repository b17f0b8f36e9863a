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
from typing import Any, Callable, NamedTuple

# Work-item kinds, in the reference's tie-break order (§5.1); then work another wing put on
# the clock (``producers.timed``).
GENERATE, FIRST_ATTEMPT, RETRY, GROUP_REMOVAL, COMPLETION_CHECK, TIMED = range(6)


class WorkItem(NamedTuple):
    """One unit of due work. Items of one due second sort by their fields, in this order."""

    #: The incarnation the item belongs to (``NEVER`` for a group removal).
    seq: int
    #: The occurrence's nominal time, in epoch seconds.
    nominal: int
    #: The attempt number (0 for items that are not attempts).
    number: int
    kind: int
    #: Insertion order: makes items unique, so comparisons never reach ``subject``.
    sequence: int
    #: A ``Plan`` (generate, completion check), an ``Occurrence`` (attempts), a
    #: ``ScheduleGroup`` (group removal) or a ``TimedWork`` (timed).
    subject: Any
    #: The plan version the item was made for: a newer definition makes it stale.
    version: int


class WorkQueue:
    def __init__(self) -> None:
        self._dues: list[int] = []
        self._buckets: dict[int, list[WorkItem]] = {}
        # For each bucket sorted so far, how far it has been drained. A bucket can stop
        # being the head half-drained (work pushed for an earlier second, e.g. by an API
        # call timed just before the clock moved on) and must resume where it stopped.
        self._cursors: dict[int, int] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def clear(self) -> None:
        self._dues.clear()
        self._buckets.clear()
        self._cursors.clear()
        self._size = 0

    def push(self, due: int, item: WorkItem) -> None:
        self._size += 1
        bucket = self._buckets.get(due)
        if bucket is None:
            self._buckets[due] = [item]
            heapq.heappush(self._dues, due)
            return
        cursor = self._cursors.get(due)
        if cursor is None:
            bucket.append(item)
        else:
            bisect.insort(bucket, item, lo=cursor)

    def peek(self) -> tuple[int, WorkItem] | None:
        """The earliest item and its due second, without removing it."""
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

    def pop(self) -> tuple[int, WorkItem]:
        """Remove and return the earliest item; call ``peek`` first."""
        due = self._dues[0]
        cursor = self._cursors[due]
        self._cursors[due] = cursor + 1
        self._size -= 1
        return due, self._buckets[due][cursor]

    def items(self) -> Iterator[tuple[int, WorkItem]]:
        """Every item not yet popped, in no particular order."""
        for due, bucket in self._buckets.items():
            yield from ((due, item) for item in bucket[self._cursors.get(due, 0) :])

    def compact(self, keep: Callable[[WorkItem], bool]) -> int:
        """Drop every item ``keep`` refuses; return how many went."""
        before = self._size
        kept = [(due, item) for due, item in self.items() if keep(item)]
        self.clear()
        for due, item in kept:
            self.push(due, item)
        return before - self._size
