"""Lambda's asynchronous invocation wired into an emulator's dispatcher: its deliveries
to Lambda targets, its retries on the clock, its destinations' sends."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from pytest_schedemu.dispatch.dispatcher import Dispatcher
from pytest_schedemu.functions.asynchronous import AsyncInvocations
from pytest_schedemu.functions.catalogue import FunctionCatalogue
from pytest_schedemu.functions.delivery import FunctionDelivery
from pytest_schedemu.functions.destinations import Destinations
from pytest_schedemu.records import History
from pytest_schedemu.settings.live import LiveSettings


def invoke_functions(
    catalogue: FunctionCatalogue,
    *,
    dispatcher: Dispatcher,
    history: History,
    settings: LiveSettings,
    now: Callable[[], datetime],
) -> AsyncInvocations:
    """Have ``dispatcher``'s Lambda targets invoke the functions of ``catalogue`` that run."""
    destinations = Destinations(
        delivery=lambda: dispatcher.delivery, history=history, settings=settings, now=now
    )
    invocations = AsyncInvocations(
        catalogue=catalogue,
        destinations=destinations,
        history=history,
        settings=settings,
        now=now,
        defer=dispatcher.defer,
    )
    dispatcher.wrap_delivery(lambda inner: FunctionDelivery(inner, invocations))
    return invocations
