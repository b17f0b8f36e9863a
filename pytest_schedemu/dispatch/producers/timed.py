"""Work another wing puts on the clock at one instant: the smallest producer.

A ``Producer`` is the definition of something that generates occurrences from an
expression (a schedule, a rule's target): it has a timeline, a target and a retry policy
that settlement climbs. Lambda's own retries of an asynchronous invocation have none of
these: each is one piece of work at one instant, decided by the functions wing when the
previous run failed, with its own ladder, age limit and destinations. Forcing them into a
``Producer`` would mean a fake schedule per failed event and attempt records that are not
Scheduler's or EventBridge's; so the queue takes a ``TimedWork`` instead, and the planner,
the clock's moves (item by item, never in bulk), the real-time loop and ``pending`` treat
it as they treat any due item without asking what made it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from pytest_schedemu.records import PendingWork


class TimedWork(ABC):
    """One piece of work due at one instant of the clock."""

    @property
    @abstractmethod
    def live(self) -> bool:
        """Whether it will still do something when it comes up (a reset drops it)."""

    @abstractmethod
    def pending_work(self, due: int) -> PendingWork:
        """How ``Emulator.pending`` lists it, due at the epoch second ``due``."""

    @abstractmethod
    def run(self) -> None:
        """Do it, with the clock at its instant. Called outside the store's lock by a
        clock move: it may run a stack's own code, which may call the emulator's APIs."""
