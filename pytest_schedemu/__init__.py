"""pytest-schedemu: an AWS EventBridge Scheduler emulator with a virtual clock.

The public names are imported on first use: pytest loads the plugin in every session of
a project that has this package installed, and most sessions never touch the emulator.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_schedemu._version import __version__

if TYPE_CHECKING:
    from pytest_schedemu.delivery.backends import (
        DeadLetterRequest,
        Delivery,
        DeliveryRequest,
        Outcome,
        RecordingDelivery,
    )
    from pytest_schedemu.delivery.steering import TargetControl
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.errors import (
        AccessDeniedException,
        ApiError,
        ClockError,
        ClockTimeout,
        ConflictException,
        DeliveryAssertionError,
        DeliveryError,
        DispatchLimitExceeded,
        HandlerError,
        IncompleteSignatureException,
        InternalServerException,
        InvalidEventPatternException,
        InvalidScheduleExpression,
        InvalidSignatureException,
        InvalidTimezone,
        InvalidToken,
        LimitExceededException,
        ManagedRuleException,
        MissingAuthenticationTokenException,
        RequestEntityTooLargeException,
        RequestTimeoutException,
        ResourceAlreadyExistsException,
        ResourceNotFoundException,
        SchedemuError,
        SerializationException,
        ServerStartError,
        ServiceQuotaExceededException,
        ServiceUnavailableException,
        StackError,
        StateError,
        ThrottlingException,
        UnknownOperationException,
        UnrecognizedClientException,
        UnsupportedMediaTypeException,
        ValidationException,
    )
    from pytest_schedemu.expressions.tool import occurrences, validate_expression
    from pytest_schedemu.protocol.faults import ServerError
    from pytest_schedemu.records import (
        Activity,
        Attempt,
        DeadLetter,
        DroppedRecords,
        Execution,
        MoveAttempts,
        PendingWork,
    )
    from pytest_schedemu.settings.options import Settings
    from pytest_schedemu.stacks import StackResource
    from pytest_schedemu.stacks.loaded import Stack
    from pytest_schedemu.timekeeping.clock import RealClock, VirtualClock
    from pytest_schedemu.timekeeping.freeze import TimeFreeze

_LOCATIONS = {
    "AccessDeniedException": "pytest_schedemu.errors",
    "Activity": "pytest_schedemu.records",
    "ApiError": "pytest_schedemu.errors",
    "Attempt": "pytest_schedemu.records",
    "ClockError": "pytest_schedemu.errors",
    "ClockTimeout": "pytest_schedemu.errors",
    "ConflictException": "pytest_schedemu.errors",
    "DeadLetter": "pytest_schedemu.records",
    "DeadLetterRequest": "pytest_schedemu.delivery.backends",
    "Delivery": "pytest_schedemu.delivery.backends",
    "DeliveryAssertionError": "pytest_schedemu.errors",
    "DeliveryError": "pytest_schedemu.errors",
    "DeliveryRequest": "pytest_schedemu.delivery.backends",
    "DispatchLimitExceeded": "pytest_schedemu.errors",
    "DroppedRecords": "pytest_schedemu.records",
    "Emulator": "pytest_schedemu.emulator",
    "Execution": "pytest_schedemu.records",
    "MoveAttempts": "pytest_schedemu.records",
    "HandlerError": "pytest_schedemu.errors",
    "IncompleteSignatureException": "pytest_schedemu.errors",
    "InternalServerException": "pytest_schedemu.errors",
    "InvalidEventPatternException": "pytest_schedemu.errors",
    "InvalidScheduleExpression": "pytest_schedemu.errors",
    "InvalidSignatureException": "pytest_schedemu.errors",
    "InvalidTimezone": "pytest_schedemu.errors",
    "InvalidToken": "pytest_schedemu.errors",
    "ManagedRuleException": "pytest_schedemu.errors",
    "MissingAuthenticationTokenException": "pytest_schedemu.errors",
    "Outcome": "pytest_schedemu.delivery.backends",
    "PendingWork": "pytest_schedemu.records",
    "RealClock": "pytest_schedemu.timekeeping.clock",
    "RecordingDelivery": "pytest_schedemu.delivery.backends",
    "RequestEntityTooLargeException": "pytest_schedemu.errors",
    "RequestTimeoutException": "pytest_schedemu.errors",
    "ResourceAlreadyExistsException": "pytest_schedemu.errors",
    "ResourceNotFoundException": "pytest_schedemu.errors",
    "SchedemuError": "pytest_schedemu.errors",
    "SerializationException": "pytest_schedemu.errors",
    "ServerError": "pytest_schedemu.protocol.faults",
    "ServerStartError": "pytest_schedemu.errors",
    "LimitExceededException": "pytest_schedemu.errors",
    "ServiceQuotaExceededException": "pytest_schedemu.errors",
    "ServiceUnavailableException": "pytest_schedemu.errors",
    "Settings": "pytest_schedemu.settings.options",
    "Stack": "pytest_schedemu.stacks.loaded",
    "StackError": "pytest_schedemu.errors",
    "StackResource": "pytest_schedemu.stacks",
    "StateError": "pytest_schedemu.errors",
    "TargetControl": "pytest_schedemu.delivery.steering",
    "ThrottlingException": "pytest_schedemu.errors",
    "TimeFreeze": "pytest_schedemu.timekeeping.freeze",
    "UnknownOperationException": "pytest_schedemu.errors",
    "UnrecognizedClientException": "pytest_schedemu.errors",
    "UnsupportedMediaTypeException": "pytest_schedemu.errors",
    "ValidationException": "pytest_schedemu.errors",
    "VirtualClock": "pytest_schedemu.timekeeping.clock",
    "occurrences": "pytest_schedemu.expressions.tool",
    "validate_expression": "pytest_schedemu.expressions.tool",
}

__all__ = [
    "AccessDeniedException",
    "Activity",
    "ApiError",
    "Attempt",
    "ClockError",
    "ClockTimeout",
    "ConflictException",
    "DeadLetter",
    "DeadLetterRequest",
    "Delivery",
    "DeliveryAssertionError",
    "DeliveryError",
    "DeliveryRequest",
    "DispatchLimitExceeded",
    "DroppedRecords",
    "Emulator",
    "Execution",
    "HandlerError",
    "IncompleteSignatureException",
    "InternalServerException",
    "InvalidEventPatternException",
    "InvalidScheduleExpression",
    "InvalidSignatureException",
    "InvalidTimezone",
    "InvalidToken",
    "LimitExceededException",
    "ManagedRuleException",
    "MissingAuthenticationTokenException",
    "MoveAttempts",
    "Outcome",
    "PendingWork",
    "RealClock",
    "RecordingDelivery",
    "RequestEntityTooLargeException",
    "RequestTimeoutException",
    "ResourceAlreadyExistsException",
    "ResourceNotFoundException",
    "SchedemuError",
    "SerializationException",
    "ServerError",
    "ServerStartError",
    "ServiceQuotaExceededException",
    "ServiceUnavailableException",
    "Settings",
    "Stack",
    "StackError",
    "StackResource",
    "StateError",
    "TargetControl",
    "ThrottlingException",
    "TimeFreeze",
    "UnknownOperationException",
    "UnrecognizedClientException",
    "UnsupportedMediaTypeException",
    "ValidationException",
    "VirtualClock",
    "__version__",
    "occurrences",
    "validate_expression",
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
