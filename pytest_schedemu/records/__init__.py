"""What happened, and the read side that answers questions about it.

The dispatcher writes the ``History``; ``Records`` reads it for the emulator's inspection
methods, the assertions, the control API and the timeline, none of which sees anything
else of the emulator.
"""

from pytest_schedemu.records.history import (
    RECORD_KINDS,
    DroppedRecords,
    History,
)
from pytest_schedemu.records.reader import Records
from pytest_schedemu.records.types import (
    ACTIVITY_KINDS,
    CANCELLED,
    INVOCATION_ERROR,
    PENDING,
    PENDING_KINDS,
    RETRYING,
    SOURCES,
    SUCCESS,
    Activity,
    Attempt,
    DeadLetter,
    Execution,
    ExecutionSource,
    MoveAttempts,
    PendingWork,
)

__all__ = [
    "ACTIVITY_KINDS",
    "CANCELLED",
    "INVOCATION_ERROR",
    "PENDING",
    "PENDING_KINDS",
    "RECORD_KINDS",
    "RETRYING",
    "SOURCES",
    "SUCCESS",
    "Activity",
    "Attempt",
    "DeadLetter",
    "DroppedRecords",
    "Execution",
    "ExecutionSource",
    "History",
    "MoveAttempts",
    "PendingWork",
    "Records",
]
