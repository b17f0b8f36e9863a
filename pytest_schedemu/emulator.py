"""The Emulator: the parts wired together, behind one public facade, usable without pytest.

The parts, and the way data flows through them::

    boto3 ──HTTP / in process──▶ api ──▶ store ──(observer)──▶ dispatch ──▶ delivery
                                                                  │
    clock ──advance/tick──▶ dispatch                              ▼
                                               records ◀──────── history
                                                  │
                                 assertions, control API, timeline

Each method below is a doorway into one part; none holds logic of its own.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from collections.abc import Mapping
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable

from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.control_api.app import ControlApi
from pytest_schedemu.delivery.steering import TargetControl, TargetControls
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.firing import Firing
from pytest_schedemu.dispatch.realtime import RealTimeService
from pytest_schedemu.errors import HandlerError, SchedemuError, raised_for_the_caller
from pytest_schedemu.formats.times import Instant, to_utc, wall_clock_now
from pytest_schedemu.functions.catalogue import FunctionCatalogue
from pytest_schedemu.functions.wiring import invoke_functions
from pytest_schedemu.protocol.faults import ServerError
from pytest_schedemu.provisioning.loading import LoadedStacks, StackLoader
from pytest_schedemu.records import Attempt, History, PendingWork, Records
from pytest_schedemu.records.filters import documents_filters
from pytest_schedemu.records.inspection import Inspection
from pytest_schedemu.records.invocations import FunctionInvocation
from pytest_schedemu.scheduler_api.app import SchedulerApp, service_validator
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.stacks.loaded import Stack
from pytest_schedemu.stacks.permissions import declared_iam
from pytest_schedemu.state.iam import IamByHand
from pytest_schedemu.state.store import Store
from pytest_schedemu.timekeeping.clock import ClockWiring, RealClock, VirtualClock
from pytest_schedemu.timekeeping.freeze import TimeFreeze
from pytest_schedemu.wire import intercept as interception
from pytest_schedemu.wire.clients import ClientFactory
from pytest_schedemu.wire.server import ServerThread

if TYPE_CHECKING:
    from pytest_schedemu.commands.call import Call
    from pytest_schedemu.model.resources import Schedule
    from pytest_schedemu.persistence import Journal
    from pytest_schedemu.scheduler_api.operations import Document
    from pytest_schedemu.state.listeners import StoreObserver

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

logger = logging.getLogger("pytest_schedemu")

# The interception handlers are inert until intercept() is entered; given out from the
# import on, they reach the clients an application builds before it enters the block.
interception.install()

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class Emulator(Inspection):
    """An EventBridge Scheduler emulator with a virtual clock.

    Keyword arguments are the settings (``pytest_schedemu.settings.options.Settings`` lists them
    with their defaults); ``emu.settings`` is the current ``Settings``, which ``reset`` and
    ``configure`` replace::

        with Emulator(start="2026-03-01T08:00:00Z") as emu:
            client = emu.client()
            client.create_schedule(...)
    """

    def __init__(self, settings: Settings | None = None, /, **options: Any) -> None:
        if settings is not None:
            options = {**settings.values(), **options}
        # What every reset returns to: the settings as constructed.
        self._own = own = Settings(**options)
        self._settings = live = LiveSettings(own)
        self.clock: VirtualClock | RealClock = (
            RealClock() if own.clock == "real" else VirtualClock(own.start or wall_clock_now())
        )
        # What the parts do to the clock and a test must not (place it, hold its lock).
        self._wiring = wiring = ClockWiring(self.clock)
        self._store = Store(self.clock.now(), live)
        self._history = History(max_records=lambda: live.current.max_records)
        self._iam = IamByHand(self._store.iam)
        self._controls = TargetControls()
        self._dispatcher = Dispatcher(
            store=self._store,
            settings=live,
            history=self._history,
            controls=self._controls,
            set_clock=wiring.set,
            now=self.clock.now,
            clock_observed=lambda: wiring.followed,
            guard=wiring.guard,
        )
        self._store.observer = self._dispatcher.planner
        # The functions of the stacks loaded with run_functions, and their warm modules, run
        # when a Lambda target invokes them (``functions``); a handler's own clients are
        # served by this emulator.
        self._functions = FunctionCatalogue(served=lambda: self.intercept())
        self._invocations = invoke_functions(
            self._functions,
            dispatcher=self._dispatcher,
            history=self._history,
            settings=live,
            now=self.clock.now,
        )
        self._records = Records(
            history=self._history,
            schedules=self._store,
            plans=self._dispatcher,
            identity=lambda: live.current,
            origin=lambda arn: self._stacks.origin(arn),
        )
        self._firing = Firing(dispatcher=self._dispatcher, records=self._records, wiring=wiring)
        self._journal: Journal | None = None
        if own.state is not None:
            from pytest_schedemu.dispatch.state import DispatchState
            from pytest_schedemu.persistence import open_state

            self._journal = open_state(
                own.state,
                store=self._store,
                state=DispatchState(self._dispatcher),
                history=self._history,
                wiring=wiring,
                settings=live,
            )
        commands = Commands(self._store, live)  # the one way in, for the APIs and the stacks
        self._stacks = LoadedStacks(
            StackLoader(service_validator(), commands, self.clock.now, declared_iam),
            self._functions,
        )
        control = ControlApi(
            records=self._records,
            clock=self.clock,
            guard=wiring.guard,
            controls=self._controls,
            settings=live,
            reset=lambda start: self.reset(start),
            schema_version=None if self._journal is None else self._journal.schema_version,
            state_failure=lambda: None if self._journal is None else self._journal.failure,
            stacks=self._stacks,
            pending=self.pending,
            fire=self.fire,
            fire_rule=self.fire_rule,
            rules=self._store.rules.all_rules,
        )
        self._app = SchedulerApp(
            commands=commands, clock=self.clock, settings=live, extra_routes=control
        )
        self._real_time = RealTimeService.drive(wiring, self._dispatcher, live)
        self._clients = ClientFactory(app=self._app, settings=live, url=lambda: self.endpoint_url)
        self._server: ServerThread | None = None
        self._lifecycle = threading.Lock()
        self._debug = DebugView(
            self._app,
            self._store,
            self._history,
            self._dispatcher,
            self._real_time,
            wiring,
            self._functions,
        )
        # A state file may hold the stacks already: a restarted service takes them back.
        try:
            self._stacks.load_configured(own, adopt=self._journal is not None)
        except BaseException:
            self.stop()  # the state file's lock is not kept by an emulator never returned
            raise

    # -- identity --------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The current settings: read-only; ``configure`` and ``reset`` change them."""
        return self._settings.current

    @property
    def own_settings(self) -> Settings:
        """The settings as constructed, which every ``reset`` returns to."""
        return self._own

    @property
    def region(self) -> str:
        """The default region (``settings.region``), short for building ARNs."""
        return self.settings.region

    @property
    def account_id(self) -> str:
        """The default account (``settings.account_id``), short for building ARNs."""
        return self.settings.account_id

    @property
    def transport(self) -> str:
        """How clients from ``client()`` reach the emulator, ``http`` or ``inprocess``
        (``settings.transport``; ``configure(transport=...)`` changes it)."""
        return self.settings.transport

    @property
    def endpoint_url(self) -> str:
        """The emulator's HTTP endpoint, e.g. ``http://127.0.0.1:50123``."""
        server = self._server
        if server is None:
            raise SchedemuError("The emulator is not running: call start() or use it in a with")
        return server.url

    @property
    def running(self) -> bool:
        """Whether the HTTP server is serving (between ``start`` and ``stop``)."""
        return self._server is not None and self._server.running

    @property
    def debug(self) -> DebugView:
        """The insides the emulator's own tests look at; not for application tests."""
        return self._debug

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Emulator:
        """Bind the server (in this thread, so a busy port raises here) and start serving."""
        settings = self.settings
        with self._lifecycle:
            if self._server is None:
                if settings.host not in LOOPBACK_HOSTS:
                    logger.warning(
                        "the Scheduler emulator listens on %s, reachable beyond this machine",
                        settings.host,
                    )
                self._server = ServerThread(self._app, settings)
            if self._real_time is not None:
                self._real_time.start()
        return self

    def stop(self) -> None:
        """Stop serving and join the server's threads. Calling it twice is harmless."""
        with self._lifecycle:
            server, self._server = self._server, None
        # Requests first, then deliveries, which get shutdown_timeout seconds to finish.
        if server is not None:
            server.stop()
        if self._real_time is not None:
            self._real_time.stop()
        self._dispatcher.close()
        if self._journal is not None:
            self._journal.close()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- state -----------------------------------------------------------------------------

    def reset(self, start: Instant | None = None, **settings: Any) -> None:
        """Empty all state; the clock stays where it is, or is placed at ``start``.

        Schedules, groups, tags, tokens, pending work, records, target controls, injected
        errors, recorded server errors and kept handler errors all go; a real-time clock's
        deliveries under way are waited for (up to ``delivery_timeout``), their outcomes
        not recorded. Every setting a test may change returns to the emulator's own value,
        or takes the value given here (None: the emulator's own, where it cannot be None).
        """
        self._wiring.guard.refuse_inside()
        restored = self._own.changed(settings)
        placed = None if start is None else to_utc(start, what="start")
        with self._wiring.operation_lock, self._store.lock:
            if placed is not None:
                self._wiring.place(placed)
            self._settings.replace(restored)
            self._dispatcher.follow_delivery_setting()
            self._dispatcher.reset()
            self._store.reset(self.clock.now())
            self._history.clear()
            self._invocations.reset()
            self._functions.clear()
            self._controls.clear()
            self._app.server_errors.clear()
            self._app.injections.clear()
            if self._journal is not None:
                self._journal.reset()
            self._stacks.clear()
            self._store.iam.clear()
            self._stacks.load_configured(self.settings, adopt=False)
        if self._real_time is not None:
            self._real_time.wait_for_earlier_deliveries()

    def configure(self, **settings: Any) -> None:
        """Change settings a test may change, keeping the state; ``reset`` returns them to
        the emulator's own values.

        All or nothing: an unknown name or a bad value raises and changes nothing. A None
        for a setting that cannot be None keeps its current value.
        """
        self._wiring.guard.refuse_inside()
        # Not in the middle of a clock move or an API call: each sees one set of settings.
        with self._wiring.operation_lock, self._store.lock:
            self._settings.replace(self.settings.changed(settings))
            self._dispatcher.follow_delivery_setting()

    @property
    def server_errors(self) -> list[ServerError]:
        """Unexpected exceptions raised inside the server since the last reset, oldest first."""
        return self._app.server_errors.list()

    @property
    def handler_errors(self) -> list[HandlerError]:
        """Bugs in target handlers since the last reset that no test could see raised (the
        deliveries of a real-time clock, clock moves over HTTP), oldest first."""
        return self._controls.handler_errors.list()

    # -- stacks ----------------------------------------------------------------------------

    def load_stack(
        self,
        source: str | os.PathLike[str],
        *,
        parameters: Mapping[str, str] | None = None,
        stack_name: str | None = None,
        imports: Mapping[str, str] | None = None,
        placeholders: bool = False,
        run_functions: bool | None = None,
    ) -> Stack:
        """Create the schedule groups and schedules a CloudFormation or SAM template, or a
        CDK assembly (``cdk.out``), defines, through CreateSchedule's checks, all or none
        (``StackError`` names the file, the resource and AWS's message). ``placeholders``
        answers a placeholder ARN for resource types the emulator does not know.
        ``run_functions`` (the ``run_functions`` setting when None) runs the stack's Python
        functions in process when a schedule or a rule target invokes them; without it
        none runs."""
        self._wiring.guard.refuse_inside()
        with self._wiring.operation_lock:
            return self._stacks.load(
                source,
                self.settings,
                parameters,
                stack_name,
                imports,
                placeholders,
                run_functions=run_functions,
            )

    def stack(self, name: str) -> Stack:
        """One stack loaded since the last reset, by name (``stacks`` lists them all);
        LookupError lists the loaded ones."""
        return self._stacks.get(name)

    @property
    def stacks(self) -> list[Stack]:
        """The stacks loaded since the last reset, in the order they were loaded."""
        return self._stacks.all()

    # -- time ------------------------------------------------------------------------------

    def tick(self) -> list[Attempt]:
        """Deprecated, going in the next release: ``emu.clock.tick()``, beside the clock's
        other moves, delivers what is due at the current instant."""
        _renamed("emu.tick()", "emu.clock.tick()")
        return self.clock.tick()

    @documents_filters
    def pending(self, limit: int = 100, *, rule: str | None = None) -> list[PendingWork]:
        """The first ``limit`` pieces of work queued ahead of the clock, in order (a recurring
        schedule's next occurrence only)."""
        rules = None if rule is None else self._records.rule_arns(rule)
        return self._dispatcher.agenda.pending(limit, rules)

    @property
    def functions(self) -> FunctionCatalogue:
        """The functions a Lambda target runs in process: those of the stacks loaded to run
        them, and any ``add``-ed by hand (a ``FunctionDefinition``)."""
        return self._functions

    def invocations(self, function: str | None = None) -> list[FunctionInvocation]:
        """Each run of a function's handler (by its name, ARN or ``stack/logical id``; None:
        every function's), oldest first: Lambda's retries of an event are runs too, with
        its request id and ``attempt`` 2 and 3."""
        if function is None:
            return self._invocations.invocations()
        definition = self._functions.find(function)
        if definition is None:
            known = sorted({run.function_name for run in self._invocations.invocations()})
            raise SchedemuError(
                f"No function {function!r} is known (a name, an ARN or 'stack/logical id'); "
                f"functions that ran: {', '.join(known) or 'none'}"
            )
        return self._invocations.invocations(definition.arn)

    def fire(self, schedule: str, group: str | None = None) -> Attempt:
        """Make one occurrence of a schedule (name or ARN) now and return its first attempt;
        retries and dead letters follow as usual, the clock and the schedule's own
        occurrences stay as they are. Names are found as ``executions`` finds them."""
        return self._firing.fire(schedule, group)

    def fire_rule(
        self,
        name: str,
        target_id: str | None = None,
        *,
        account_id: str | None = None,
        region: str | None = None,
    ) -> list[Attempt]:
        """Make one occurrence of the scheduled EventBridge rule ``name`` (or ARN) now, for each
        of its targets or only ``target_id``, and return their first attempts in the order
        of its targets; they share one event, as AWS sends one to every target. Retries and
        dead letters follow as usual; the clock and the rule's own occurrences stay as they
        are. A name held in several accounts or regions is the default one's, unless
        ``account_id`` or ``region`` says."""
        return self._firing.fire_rule(name, target_id, account_id=account_id, region=region)

    def freeze_time(self, engine: str = "freezegun") -> TimeFreeze:
        """Freeze process time at the emulator's clock and keep it there as the clock moves.

        ``engine`` is ``freezegun`` or ``time_machine``. Call ``stop()`` on the result to
        let time run again.
        """
        return TimeFreeze(self.clock, engine)

    # -- steering --------------------------------------------------------------------------

    def target(self, arn: str) -> TargetControl:
        """Steer and inspect one target, by ARN (or ``service:action`` for universal ones)."""
        return TargetControl(self._controls, arn, self._records.attempts_at)

    def unused_target_rules(self) -> list[str]:
        """The targets (and denied roles) steered since the last reset that no attempt used:
        a rule on a mistyped ARN steers nothing."""
        return self._controls.unused()

    def deny_role(self, role_arn: str) -> None:
        """Attempts of schedules using ``role_arn`` now fail permanently (AccessDenied)."""
        self._controls.deny_role(role_arn)

    def allow_role(self, role_arn: str) -> None:
        """Undo ``deny_role``."""
        self._controls.allow_role(role_arn)

    @property
    def iam(self) -> IamByHand:
        """What the emulator knows of IAM, told by hand: ``emu.iam.role(arn, trust=...,
        policies=[...])``, ``emu.iam.resource_policy(arn, policy)``,
        ``emu.iam.task_definition(arn, task_role=..., execution_role=...)``; the ``iam``
        setting says how attempts meet it (docs/iam.md)."""
        return self._iam

    def inject_api_error(
        self,
        operation: str | None = None,
        code: str = "ThrottlingException",
        message: str = "Rate exceeded",
        times: int | None = 1,
    ) -> None:
        """Make the next ``times`` calls of ``operation`` (None: any) fail with ``code``."""
        self._app.injections.add(operation, code, message, times)

    # -- clients ---------------------------------------------------------------------------

    def client(self, service_name: str = "scheduler", **kwargs: Any) -> Any:
        """A boto3 client for ``service_name`` pointed at this emulator.

        It has dummy credentials, the emulator's region and no retries. Keyword arguments
        go to ``boto3.client`` and win; without them the client is built once and reused.
        """
        return self._clients.client(service_name, **kwargs)

    def intercept(self, rules: bool = True) -> AbstractContextManager[None]:
        """While the block runs, every botocore ``scheduler`` client in the process, and the
        rule operations of every ``events`` client unless ``rules`` is false, are served by
        this emulator in process, whatever their endpoint, region or credentials (other
        ``events`` operations go to moto under ``mock_aws``, or fail). Blocks nest, the
        innermost answers; ``client()``'s ``http`` clients keep using the socket.
        """
        return interception.route(self._app, lambda: self.settings.verify_signatures, rules)

    def use_transport(self, transport: str) -> None:
        """Deprecated, going in the next release: ``configure(transport=...)`` chooses how
        clients built by ``client()`` from now on reach the emulator."""
        _renamed("emu.use_transport(t)", "emu.configure(transport=t)")
        self.configure(transport=transport)

    def __repr__(self) -> str:
        where = self._server.url if self._server is not None else "stopped"
        return f"<Emulator {where} region={self.region} now={self.clock.now().isoformat()}>"


def _renamed(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated and goes in the next release: use {new}",
        DeprecationWarning,
        stacklevel=3,  # the line that called the old name
    )


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
        wiring: ClockWiring,
        functions: FunctionCatalogue,
    ) -> None:
        self._app, self._store, self._history = app, store, history
        self._dispatcher, self._real_time, self._wiring = dispatcher, real_time, wiring
        self._functions = functions

    @property
    def functions(self) -> FunctionCatalogue:
        """The functions that run: those of the stacks loaded with ``run_functions``."""
        return self._functions

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

    @property
    def delivering(self) -> bool:
        """Whether a delivery is under way in any thread."""
        return self._wiring.guard.busy

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
