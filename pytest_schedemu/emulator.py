"""The Emulator: store, clock, API and server wired together, usable without pytest."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from types import TracebackType
from typing import Any, Callable

from pytest_schedemu import assertions
from pytest_schedemu import intercept as interception
from pytest_schedemu.api.app import SchedulerApp, ServerError
from pytest_schedemu.api.control import ControlApi
from pytest_schedemu.clock import Instant, RealClock, VirtualClock, to_utc, wall_clock_now
from pytest_schedemu.dispatch.delivery import (
    Delivery,
    RecordingDelivery,
    TargetControl,
    TargetControls,
)
from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.dispatch.history import Activity, Attempt, DeadLetter, Execution, History
from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.model import (
    DEFAULT_ACCOUNT_ID,
    DEFAULT_GROUP,
    DEFAULT_REGION,
    Schedule,
    schedule_arn,
)
from pytest_schedemu.server import InProcessTransport, ServerThread
from pytest_schedemu.settings import Settings
from pytest_schedemu.store import Store

logger = logging.getLogger("pytest_schedemu")

# The interception handlers are inert until intercept() is entered; given out from the
# import on, they reach the clients an application builds before it enters the block.
interception.install()

TRANSPORTS = ("http", "inprocess")
CLOCKS = ("virtual", "real")
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class Emulator:
    """An EventBridge Scheduler emulator with a virtual clock.

    ::

        with Emulator(start="2026-03-01T08:00:00Z") as emu:
            client = emu.client()
            client.create_schedule(...)
    """

    def __init__(
        self,
        *,
        start: Instant | None = None,
        region: str = DEFAULT_REGION,
        account_id: str = DEFAULT_ACCOUNT_ID,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: str = "http",
        seed: int = 0,
        log_requests: bool = False,
        past_at: str = "fire",
        flexible_offsets: str = "hash",
        group_deletion_delay: float = 0,
        max_schedules: int = 10_000_000,
        max_schedule_groups: int = 500,
        max_attempts_per_advance: int | None = 5_000_000,
        sqs_queue_url_template: str | None = None,
        delivery: str | Delivery = "record",
        delivery_endpoint_url: str | None = None,
        max_records: int | None = 10_000_000,
        clock: str = "virtual",
        tick_interval: float = 10.0,
        delivery_workers: int = 8,
        verify_signatures: bool = False,
        credentials: Mapping[str, str] | None = None,
    ) -> None:
        if verify_signatures and not credentials:
            raise ValueError(
                "verify_signatures=True needs credentials={access key id: secret key, ...}"
            )
        if transport not in TRANSPORTS:
            raise ValueError(f"Unsupported transport {transport!r}: use one of {TRANSPORTS}")
        if clock not in CLOCKS:
            raise ValueError(f"Unsupported clock {clock!r}: use one of {CLOCKS}")
        if clock == "real" and start is not None:
            raise ValueError("A real-time clock starts at the wall-clock now; drop start=")
        if tick_interval <= 0:
            raise ValueError(f"Unsupported tick_interval {tick_interval!r}: expected seconds > 0")
        overrides: dict[str, Any] = {}
        if sqs_queue_url_template is not None:
            overrides["sqs_queue_url_template"] = sqs_queue_url_template
        self.settings = Settings(
            region=region,
            account_id=account_id,
            seed=seed,
            past_at=past_at,
            flexible_offsets=flexible_offsets,
            group_deletion_delay=group_deletion_delay,
            max_schedules=max_schedules,
            max_schedule_groups=max_schedule_groups,
            max_attempts_per_advance=max_attempts_per_advance,
            verify_signatures=verify_signatures,
            credentials=dict(credentials or {}),
            **overrides,
        )
        self.host = host
        self.port = port
        self.transport = transport
        self.log_requests = log_requests
        self.clock: VirtualClock | RealClock = (
            RealClock()
            if clock == "real"
            else VirtualClock(start if start is not None else wall_clock_now())
        )
        self.tick_interval = tick_interval
        self.delivery_workers = delivery_workers
        self._real_time_thread: threading.Thread | None = None
        self._stop_real_time = threading.Event()
        self.store = Store(
            self.clock.now(),
            max_schedules=max_schedules,
            max_schedule_groups=max_schedule_groups,
            group_deletion_delay=group_deletion_delay,
        )
        #: Unexpected exceptions raised inside the server, oldest first.
        self.server_errors: list[ServerError] = []
        self.app = SchedulerApp(
            store=self.store,
            clock=self.clock,
            settings=self.settings,
            server_errors=self.server_errors,
        )
        self.history = History(max_records=max_records)
        self.controls = TargetControls()
        self.delivery = _delivery_backend(delivery, delivery_endpoint_url)
        self.dispatcher = Dispatcher(
            store=self.store,
            settings=self.settings,
            history=self.history,
            delivery=self.delivery,
            controls=self.controls,
            set_clock=self.clock.set,
            now=self.clock.now,
            clock_observed=lambda: isinstance(self.clock, VirtualClock) and self.clock.followed,
        )
        self.store.observer = self.dispatcher
        self.app.extra_routes = ControlApi(self)
        if isinstance(self.clock, RealClock):
            self.clock.attach(None, wake=self.dispatcher.wake)
        else:
            self.clock.attach(self.dispatcher.run_until)
        self._server: ServerThread | None = None
        self._lifecycle = threading.Lock()
        self._botocore_session: Any = None
        self._clients: dict[tuple[str, str, str], Any] = {}

    # -- identity --------------------------------------------------------------------------

    @property
    def region(self) -> str:
        return self.settings.region

    @property
    def account_id(self) -> str:
        return self.settings.account_id

    @property
    def endpoint_url(self) -> str:
        """The emulator's HTTP endpoint, e.g. ``http://127.0.0.1:50123``."""
        return self._running_server().url

    @property
    def running(self) -> bool:
        return self._server is not None and self._server.running

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Emulator:
        """Bind the server (in this thread, so a busy port raises here) and start serving."""
        with self._lifecycle:
            if self._server is None:
                if self.host not in LOOPBACK_HOSTS:
                    logger.warning(
                        "the Scheduler emulator listens on %s, reachable beyond this machine",
                        self.host,
                    )
                self._server = ServerThread(
                    self.app, self.host, self.port, log_requests=self.log_requests
                )
            if self.clock.real_time and self._real_time_thread is None:
                self._stop_real_time.clear()
                self._real_time_thread = threading.Thread(
                    target=self.dispatcher.serve_real_time,
                    args=(self._stop_real_time, self.tick_interval, self.delivery_workers),
                    name="schedemu-dispatcher",
                    daemon=True,
                )
                self._real_time_thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and join the server's threads. Calling it twice is harmless."""
        with self._lifecycle:
            server, self._server = self._server, None
            dispatcher_thread, self._real_time_thread = self._real_time_thread, None
        if dispatcher_thread is not None:
            self._stop_real_time.set()
            self.dispatcher.wake()
            dispatcher_thread.join()
        if server is not None:
            server.stop()
        self.delivery.close()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _running_server(self) -> ServerThread:
        server = self._server
        if server is None:
            raise SchedemuError("The emulator is not running: call start() or use it in a with")
        return server

    # -- state -----------------------------------------------------------------------------

    def reset(
        self,
        start: Instant | None = None,
        *,
        region: str | None = None,
        account_id: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Empty all state; the clock stays where it is, or is placed at ``start``.

        Schedules, groups, tags, tokens, pending work, records, target controls and
        recorded server errors all go. ``region``, ``account_id`` and ``seed``, when given,
        replace the emulator's defaults from now on.
        """
        changes: dict[str, Any] = {
            name: value
            for name, value in (("region", region), ("account_id", account_id), ("seed", seed))
            if value is not None
        }
        with self.clock.operation_lock, self.store.lock:
            if changes:
                self.settings.configure(**changes)
            if start is not None:
                self.clock.set(to_utc(start, what="start"))
            self.dispatcher.reset()
            self.store.reset(self.clock.now())
            self.history.clear()
            self.controls.clear()
            del self.server_errors[:]
            self.app.injections.clear()

    # -- time ------------------------------------------------------------------------------

    def tick(self) -> list[Attempt]:
        """Deliver everything due at the current instant without moving time."""
        return self.clock.tick()

    # -- inspection ------------------------------------------------------------------------

    def _matches(self, arn: str, schedule: str | None, group: str | None) -> bool:
        if schedule is not None and schedule.startswith("arn:"):
            return arn == schedule
        _, _, path = arn.partition(":schedule/")
        arn_group, _, arn_name = path.partition("/")
        return (schedule is None or arn_name == schedule) and (group is None or arn_group == group)

    def attempts(
        self,
        schedule: str | None = None,
        group: str | None = None,
        target_arn: str | None = None,
    ) -> list[Attempt]:
        """Every attempt made, failed ones too, in delivery order.

        ``schedule`` is a schedule name (or a schedule ARN); ``group`` a group name.
        """
        return self.history.attempts(
            lambda a: (
                (target_arn is None or a.target_arn == target_arn)
                and self._matches(a.schedule_arn, schedule, group)
            )
        )

    def deliveries(
        self,
        target_arn: str | None = None,
        schedule: str | None = None,
        group: str | None = None,
    ) -> list[Attempt]:
        """The successful attempts, in delivery order."""
        return [a for a in self.attempts(schedule, group, target_arn) if a.succeeded]

    def dead_letters(self, queue_arn: str | None = None) -> list[DeadLetter]:
        """Messages sent to dead-letter queues, in the order they were sent."""
        return self.history.dead_letters(lambda d: queue_arn is None or d.queue_arn == queue_arn)

    def executions(self, schedule: str, group: str = DEFAULT_GROUP) -> list[Execution]:
        """One record per occurrence of the schedule, in the order they were generated.

        An occurrence appears once its first attempt is made (or it is cancelled before
        that): one still waiting out a flexible window has no history yet.
        """
        return self.dispatcher.executions(lambda arn: self._matches(arn, schedule, group))

    @property
    def dropped_records(self) -> int:
        """How many of the oldest attempt records ``max_records`` has dropped so far."""
        return self.history.dropped_records

    def activity(self, kind: str | None = None) -> list[Activity]:
        """Drops, cancellations, dead-letter sends, automatic deletes, group removals."""
        return self.history.activity(lambda a: kind is None or a.kind == kind)

    def schedules(self) -> list[Schedule]:
        """Every stored schedule, in every account and region."""
        return self.store.all_schedules()

    def next_occurrence(self, schedule: str, group: str = DEFAULT_GROUP) -> datetime | None:
        """The next nominal time of a schedule (by name, or ARN), or None if none remains."""
        arn = schedule if schedule.startswith("arn:") else self._arn(group, schedule)
        return self.dispatcher.next_occurrence(arn)

    def _arn(self, group: str, name: str) -> str:
        return schedule_arn(self.region, self.account_id, group, name)

    # -- assertions ------------------------------------------------------------------------

    def assert_delivered(
        self, target_arn: str, count: int | None = None, payload: Any = None
    ) -> list[Attempt]:
        """Fail, listing what happened instead, unless ``target_arn`` received deliveries."""
        __tracebackhide__ = True
        return assertions.assert_delivered(self, target_arn, count, payload)

    def assert_not_delivered(self, target_arn: str, payload: Any = None) -> None:
        """Fail, listing the deliveries, if ``target_arn`` received any (matching ``payload``)."""
        __tracebackhide__ = True
        assertions.assert_not_delivered(self, target_arn, payload)

    def assert_dead_lettered(
        self,
        queue_arn: str,
        count: int | None = None,
        schedule: str | None = None,
        attributes: dict[str, str] | None = None,
    ) -> list[DeadLetter]:
        """Fail, listing what happened instead, unless ``queue_arn`` received dead letters."""
        __tracebackhide__ = True
        return assertions.assert_dead_lettered(self, queue_arn, count, schedule, attributes)

    def describe_attempts(self) -> str:
        """Every attempt made so far, one line each: for failure reports."""
        return assertions.describe_attempts(self.attempts())

    # -- freezegun lockstep ----------------------------------------------------------------

    def freeze_time(self) -> TimeFreeze:
        """Freeze process time at the emulator's clock and keep it there as the clock moves.

        Call ``stop()`` on the result to let time run again.
        """
        return TimeFreeze(self.clock)

    # -- target control --------------------------------------------------------------------

    def target(self, arn: str) -> TargetControl:
        """Steer and inspect one target, by ARN (or ``service:action`` for universal ones)."""
        return TargetControl(self.controls, arn, self._attempts_at)

    def _attempts_at(self, key: str) -> list[Attempt]:
        if key.startswith("arn:"):
            return self.attempts(target_arn=key)
        return self.attempts(target_arn=f"arn:aws:scheduler:::aws-sdk:{key}")

    def deny_role(self, role_arn: str) -> None:
        """Attempts of schedules using ``role_arn`` now fail permanently (AccessDenied)."""
        self.controls.deny_role(role_arn)

    def allow_role(self, role_arn: str) -> None:
        """Undo ``deny_role``."""
        self.controls.allow_role(role_arn)

    def inject_api_error(
        self,
        operation: str | None = None,
        code: str = "ThrottlingException",
        message: str = "Rate exceeded",
        times: int | None = 1,
    ) -> None:
        """Make the next ``times`` calls of ``operation`` (None: any) fail with ``code``."""
        self.app.inject_error(operation, code, message, times)

    # -- clients ---------------------------------------------------------------------------

    def client(self, service_name: str = "scheduler", **kwargs: Any) -> Any:
        """A boto3 client for ``service_name`` pointed at this emulator.

        It has dummy credentials, the emulator's region and no retries (botocore would sleep
        in real time between them). Keyword arguments go to ``boto3.client`` and win.
        Without keyword arguments the client is built once and reused: building one takes
        milliseconds, and tests ask for it in every test.
        """
        key = (service_name, self.transport, self.region)
        if not kwargs and key in self._clients:
            return self._clients[key]
        client = self._new_client(service_name, **kwargs)
        if not kwargs:
            self._clients[key] = client
        return client

    def use_transport(self, transport: str) -> None:
        """Choose how clients built by ``client()`` from now on reach the emulator."""
        if transport not in TRANSPORTS:
            raise ValueError(f"Unsupported transport {transport!r}: use one of {TRANSPORTS}")
        self.transport = transport

    def _new_client(self, service_name: str, **kwargs: Any) -> Any:
        import boto3
        from botocore.config import Config

        server = self._running_server()
        # Signed with the first known key when signatures are checked, dummies otherwise.
        access_key, secret_key = next(iter(self.settings.credentials.items()), ("testing",) * 2)
        options: dict[str, Any] = {
            "region_name": self.region,
            "endpoint_url": server.url,
            "aws_access_key_id": access_key,
            "aws_secret_access_key": secret_key,
            "config": Config(retries={"total_max_attempts": 1, "mode": "standard"}),
        }
        options.update(kwargs)
        session = boto3.session.Session(botocore_session=self._shared_botocore_session())
        client = session.client(service_name, **options)
        if self.transport == "inprocess":
            service_id = client.meta.service_model.service_id.hyphenize()
            if not self.settings.verify_signatures:
                # Unchecked, SigV4 is a quarter of the cost of a call: in-process requests
                # go unsigned, with only the credential scope the account and region are
                # read from.
                client.meta.events.register_first(f"choose-signer.{service_id}", _unsigned)
            client.meta.events.register_first(
                f"before-send.{service_id}",
                InProcessTransport(
                    self.app,
                    access_key=str(options["aws_access_key_id"]),
                    region=client.meta.region_name,
                    signing_name=client.meta.service_model.signing_name,
                ),
            )
        else:
            # transport="http" asks for the socket, and this emulator's clients must reach
            # this emulator even while another one intercepts.
            interception.exempt(client)
        return client

    # -- interception ----------------------------------------------------------------------

    def intercept(self) -> AbstractContextManager[None]:
        """While the block runs, every botocore ``scheduler`` client in the process is served
        by this emulator in process, whatever its endpoint, region or credentials.

        ``with emu.intercept(): ...``; blocks nest, the innermost answers. Clients built by
        ``client()`` with the ``http`` transport keep using the socket.
        """
        return interception.route(self.app)

    def _shared_botocore_session(self) -> Any:
        # Loading service models is the slow part of building a client; one botocore
        # session per emulator keeps them cached across clients.
        if self._botocore_session is None:
            import botocore.session

            self._botocore_session = botocore.session.get_session()
        return self._botocore_session

    def __repr__(self) -> str:
        where = self._server.url if self._server is not None else "stopped"
        return f"<Emulator {where} region={self.region} now={self.clock.now().isoformat()}>"


DELIVERIES = ("record", "boto3")


def _delivery_backend(delivery: str | Delivery, endpoint_url: str | None) -> Delivery:
    if not isinstance(delivery, str):
        return delivery
    if delivery == "record":
        return RecordingDelivery()
    if delivery == "boto3":
        from pytest_schedemu.dispatch.forwarding import Boto3Delivery

        return Boto3Delivery(endpoint_url)
    raise ValueError(f"Unsupported delivery {delivery!r}: use one of {DELIVERIES} or a Delivery")


def _unsigned(**_: Any) -> Any:
    from botocore import UNSIGNED

    return UNSIGNED


class TimeFreeze:
    """freezegun held at a virtual clock's instant for as long as it runs.

    Every move of the clock moves every active freezegun freeze, this one and any the test
    started itself (``freeze_time``, pytest-freezer's ``freezer``), so process time and
    virtual time stay one. Moving a freeze by hand does not move the emulator's clock.
    """

    def __init__(self, clock: VirtualClock | RealClock) -> None:
        import freezegun

        if not isinstance(clock, VirtualClock):
            raise SchedemuError("A real-time clock cannot be frozen")
        self._freezer = freezegun.freeze_time(clock.now())
        self._freezer.start()
        self._unfollow: Callable[[], None] | None = clock.follow(self._move)

    @staticmethod
    def _move(instant: datetime) -> None:
        from freezegun import api

        for factory in api.freeze_factories:
            factory.move_to(instant)

    def stop(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
            self._freezer.stop()

    def __enter__(self) -> TimeFreeze:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
