"""The bucketed work queue."""

from __future__ import annotations

from pytest_schedemu.dispatch.queue import WorkItem, WorkQueue


def entry(seq: int, counter: int) -> WorkItem:
    return WorkItem(seq, 0, 0, 0, counter, None, 0)


def drain(queue: WorkQueue) -> list[tuple[int, int]]:
    out = []
    while queue.peek() is not None:
        due, item = queue.pop()
        out.append((due, item[0]))
    return out


def test_pops_in_due_then_key_order() -> None:
    queue = WorkQueue()
    for due, seq in [(20, 2), (10, 3), (20, 1), (10, 1)]:
        queue.push(due, entry(seq, seq))
    assert drain(queue) == [(10, 1), (10, 3), (20, 1), (20, 2)]


def test_entry_pushed_into_the_bucket_being_drained_keeps_its_place() -> None:
    queue = WorkQueue()
    queue.push(10, entry(1, 1))
    queue.push(10, entry(5, 2))
    queue.peek()
    assert queue.pop() == (10, entry(1, 1))
    queue.push(10, entry(3, 3))
    assert drain(queue) == [(10, 3), (10, 5)]


def test_half_drained_bucket_resumes_after_an_earlier_second_is_pushed() -> None:
    queue = WorkQueue()
    for seq in (1, 2, 3):
        queue.push(10, entry(seq, seq))
    queue.peek()
    queue.pop()
    queue.push(5, entry(9, 9))  # work for an earlier second arrives mid-bucket
    assert drain(queue) == [(5, 9), (10, 2), (10, 3)]
    assert len(queue) == 0


def test_entries_lists_only_what_is_left() -> None:
    queue = WorkQueue()
    for seq in (1, 2):
        queue.push(10, entry(seq, seq))
    queue.peek()
    queue.pop()
    assert [item[0] for _, item in queue.items()] == [2]
    assert len(queue) == 1
