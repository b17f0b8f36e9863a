"""The emulator's insides, as its own tests look at them: one narrow door per part."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from pytest_schedemu.commands.call import Call
    from pytest_schedemu.dispatch.dispatcher import Dispatcher
    from pytest_schedemu.dispatch.realtime import RealTimeService
    from pytest_schedemu.model.resources import Schedule
    from pytest_schedemu.records import History
    from pytest_schedemu.scheduler_api.app import SchedulerApp
    from pytest_schedemu.scheduler_api.operations import Document
    from pytest_schedemu.state.listeners import StoreObserver
    from pytest_schedemu.state.store import Store


class DebugView:
    """The insides the emulator's own tests look at or steer, each through one narrow door;
    not for application tests: nothing here is a promise."""

    def __init__(
        self,
        app: SchedulerApp,
        store: Store,
        history: History,
        dispatcher: Dispatcher,
        real_time: RealTimeService | None,
    ) -> None:
        self._app, self._store, self._history = app, store, history
        self._dispatcher, self._real_time = dispatcher, real_time

    @property
    def operation_handlers(self) -> dict[str, Callable[[Call, Document], Document]]:
        """The API's handler of each operation, by name: a test replaces one (with
        ``monkeypatch.setitem``) to make the server fail as a bug in it would."""
        return self._app.operations.handlers

    @property
    def events_operation_handlers(self) -> dict[str, Callable[[Call, Document], Document]]:
        """EventBridge's handler of each rule operation, by name, replaced the same way."""
        return self._app.events.operations.handlers

    def planned_schedules(self) -> list[Schedule]:
        """The schedules the dispatcher holds a plan for."""
        with self._store.lock:
            return [plan.schedule for plan in self._dispatcher.planner.plans.values()]

    def queued_items(self) -> int:
        """The dispatcher's queued work items, stale ones not yet swept out included."""
        with self._store.lock:
            return len(self._dispatcher.planner.queue)

    def play_in_bulk_from(self, seconds: int | None) -> None:
        """Play a quiet stretch in bulk once it spans ``seconds`` (None: never)."""
        with self._store.lock:
            self._dispatcher.bulk_min_span = seconds

    @property
    def bulk_runs(self) -> int:
        """How many quiet stretches were played in bulk."""
        return self._dispatcher.bulk_runs

    def real_time_backlog(self) -> int:
        """Deliveries handed to the real-time workers that none has taken yet."""
        return 0 if self._real_time is None else self._real_time.waiting()

    @property
    def writes_state(self) -> bool:
        """Whether a journal of the store's changes or a sink of the history's records is on."""
        return self._store.journal is not None or self._history.sink is not None

    def state_snapshot(self) -> tuple[Any, ...]:
        """Everything stored, comparable: equal snapshots mean nothing stored changed."""
        return self._store.snapshot()

    @property
    def store_observer(self) -> StoreObserver | None:
        """Who the store tells of each change (the planner); a test may wrap it to log them."""
        return self._store.observer

    @store_observer.setter
    def store_observer(self, observer: StoreObserver | None) -> None:
        with self._store.lock:
            self._store.observer = observer
