"""The history's bounded logs, and activity packed as plain values.

Each kind of record is kept in a ``Log``, oldest first, bounded by ``max_records``: beyond it
the oldest go (a twentieth at once) and are counted. Activity is kept packed: a service that
sees millions of schedules come and go records two changes for each, and a tuple of plain
values is half the size of a record.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Generic, Optional, TypeVar

from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.records.types import Activity, producer_fields

T = TypeVar("T")


class Log(Generic[T]):
    """One kind of record, oldest first. Used only under the history's lock."""

    def __init__(self) -> None:
        self.items: list[T] = []
        self.dropped = 0

    def extend(self, new: Iterable[T], cap: int | None) -> None:
        items = self.items
        items.extend(new)
        if cap is not None and len(items) > cap:
            # Drop the oldest twentieth at once: trimming one record per append would make
            # every append past the cap cost a full list shift.
            excess = len(items) - cap + max(1, cap // 20)
            del items[:excess]
            self.dropped += excess


#: An Activity as kept: (kind, at, what made it as one key (``MadeBy.producer_key``),
#: scheduled time, detail), times in whole microseconds since the epoch.
Packed = tuple[str, int, str, Optional[int], str]
_MICROSECOND = timedelta(microseconds=1)


def _microseconds(instant: datetime, last: list[Any]) -> int:
    # Records made at one virtual instant share one integer: the clock stands still while
    # a service sees many changes, and each integer would cost as much as the rest.
    if last[0] != instant:
        last[:] = [instant, (instant - EPOCH) // _MICROSECOND]
    value: int = last[1]
    return value


def pack(activity: Activity, last: list[Any]) -> Packed:
    scheduled = activity.scheduled_time
    return (
        activity.kind,
        _microseconds(activity.at, last),
        activity.producer_key,
        None if scheduled is None else (scheduled - EPOCH) // _MICROSECOND,
        activity.detail,
    )


def unpack(packed: Packed) -> Activity:
    kind, at, key, scheduled, detail = packed
    return Activity(
        kind,
        EPOCH + at * _MICROSECOND,
        scheduled_time=None if scheduled is None else EPOCH + scheduled * _MICROSECOND,
        detail=detail,
        **producer_fields(key),
    )


def same(item: Any) -> Any:
    return item
