"""Lost occurrences, and the note of those a test asserted.

An occurrence is lost when it ends failed and no dead letter reaches a queue: its schedule
has no dead-letter queue (``dropped``: retries exhausted, a permanent failure, an event
older than its maximum age), or sending the dead letter failed (``dlq_failed``). The
pytest plugin fails a test at teardown for each loss the test did not assert.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from pytest_schedemu.errors import HandlerError
from pytest_schedemu.records.types import Activity

#: The kinds of activity that record a lost occurrence.
DROP_KINDS = frozenset({"dropped", "dlq_failed"})

#: How the detail of a drop begins when a target handler raised something other than
#: ``DeliveryError``: the attempt's error code is the exception's name. That error already
#: fails the test that made the attempt, so its drop goes without saying.
_HANDLER_BUG = HandlerError.__name__ + ":"


class AssertedDrops:
    """The drops a passing ``assert_dropped`` matched, for one generation of the history.

    A reset clears the history and starts a new generation, which forgets them: nothing is
    carried from one test to the next.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._drops: set[Activity] = set()

    def add(self, generation: int, drops: Iterable[Activity]) -> None:
        with self._lock:
            if generation != self._generation:
                self._generation, self._drops = generation, set()
            self._drops.update(drops)

    def unasserted(self, generation: int, drops: Iterable[Activity]) -> list[Activity]:
        """Those of ``drops`` (of the history's ``generation``) that no assertion matched
        and no handler's bug caused."""
        with self._lock:
            asserted = self._drops if generation == self._generation else set()
            return [
                drop
                for drop in drops
                if drop not in asserted and not drop.detail.startswith(_HANDLER_BUG)
            ]
