"""pytest-schedemu: an AWS EventBridge Scheduler emulator with a virtual clock.

The public names are imported on first use: pytest loads the plugin in every session of
a project that has this package installed, and most sessions never touch the emulator.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_schedemu._version import __version__

if TYPE_CHECKING:
    from pytest_schedemu.api.app import ServerError
    from pytest_schedemu.clock import VirtualClock
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.errors import (
        ApiError,
        DeliveryError,
        DispatchLimitExceeded,
        SchedemuError,
        ServerStartError,
    )

_LOCATIONS = {
    "ApiError": "pytest_schedemu.errors",
    "DeliveryError": "pytest_schedemu.errors",
    "DispatchLimitExceeded": "pytest_schedemu.errors",
    "Emulator": "pytest_schedemu.emulator",
    "SchedemuError": "pytest_schedemu.errors",
    "ServerError": "pytest_schedemu.api.app",
    "ServerStartError": "pytest_schedemu.errors",
    "VirtualClock": "pytest_schedemu.clock",
}

__all__ = [
    "ApiError",
    "DeliveryError",
    "DispatchLimitExceeded",
    "Emulator",
    "SchedemuError",
    "ServerError",
    "ServerStartError",
    "VirtualClock",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_schedemu' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
