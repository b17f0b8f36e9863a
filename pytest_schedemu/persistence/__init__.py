"""Durable state: the emulator's state kept in an SQLite file across restarts (``state=PATH``).

The store and the dispatcher stay the one source of truth, in memory; the ``Journal``
hears what changes in them and writes it at the end of each unit of work, in the critical
section that acknowledges it, so the file never disagrees with what a client was told.
``open_state`` reads a file back into a new emulator's parts and attaches the journal.
``dump`` exports and imports a state as JSON. Of the dispatcher, persistence sees only its
state interface (``dispatch.state``): the rules of planning and retrying stay there.
"""

from __future__ import annotations

from pytest_schedemu.dispatch.state import DispatchState
from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.persistence.journal import Journal
from pytest_schedemu.persistence.restore import restore
from pytest_schedemu.persistence.schema import Database, open_database
from pytest_schedemu.persistence.tables import SCHEMA_VERSION
from pytest_schedemu.records import History
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import ClockWiring

__all__ = ["SCHEMA_VERSION", "Journal", "open_state"]


def open_state(
    path: str,
    *,
    store: Store,
    state: DispatchState,
    history: History,
    wiring: ClockWiring,
    settings: LiveSettings,
) -> Journal:
    """Open the state file at ``path`` (made if new), put what it holds back into the
    emulator's (empty) parts, and journal every change from now on.

    StateError when the file is refused; then nothing was changed, in memory or on disk.
    """
    database = open_database(path)
    journal = Journal(
        database, store=store, state=state, history=history, clock=wiring.clock, settings=settings
    )

    def reload(opened: Database) -> None:
        _load(opened, journal, store=store, state=state, history=history, wiring=wiring)

    journal.reload = reload
    try:
        with store.lock:
            reload(database)
            journal.commit()
    except BaseException:
        store.journal = None
        history.sink = None
        database.close()
        raise
    return journal


def _load(
    database: Database,
    journal: Journal,
    *,
    store: Store,
    state: DispatchState,
    history: History,
    wiring: ClockWiring,
) -> None:
    """Put what the file holds into the emulator's parts, emptied first, and let the
    journal continue from it. Call it under the store lock.

    At start the parts are empty already; after a failed write they hold the change the
    file refused, and emptying them tells the file nothing.
    """
    store.journal = None
    history.sink = None
    state.clear()
    position = restore(database, store=store, state=state, history=history, wiring=wiring)
    journal.adopt(position)
    store.journal = journal
    history.sink = journal.hear
    if wiring.clock.real_time:
        caught = state.catch_up(floor_epoch(wiring.clock.now()))
        for incarnation in caught.incarnations:
            journal.plan_changed(incarnation)
        for occurrence in caught.occurrences:
            journal.occurrence_changed(occurrence)
    state.queue_restored()
    for occurrence in state.finish_giving_up():
        journal.occurrence_changed(occurrence)
