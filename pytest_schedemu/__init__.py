"""pytest-schedemu: an AWS EventBridge Scheduler emulator with a virtual clock.

Each name is declared once, by its import in a ``TYPE_CHECKING`` block below, and everything
else is read from those imports: a name imported ``as`` itself (the typing convention for a
re-export) is public, in ``__all__``; a name imported plainly left the public surface and is
still served here, with a ``DeprecationWarning`` naming its home, until the next release.

The names are imported on first use, not here: pytest loads the plugin in every session of
a project that has this package installed, most sessions never touch the emulator, and
importing it (boto3, werkzeug, the service models) costs about a fifth of a second. Static
type checkers read the blocks as ordinary imports, so ``from pytest_schedemu import
Emulator`` has its real type. At run time the blocks are read with ``ast`` from this file's
own source, once, at import: a millisecond or two, against a second list of the same names
to keep in step by hand.
"""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_schedemu._version import __version__ as __version__

if TYPE_CHECKING:
    from pytest_schedemu.delivery.backends import DeadLetterRequest as DeadLetterRequest
    from pytest_schedemu.delivery.backends import Delivery as Delivery
    from pytest_schedemu.delivery.backends import DeliveryRequest as DeliveryRequest
    from pytest_schedemu.delivery.backends import Outcome as Outcome
    from pytest_schedemu.delivery.backends import RecordingDelivery as RecordingDelivery
    from pytest_schedemu.delivery.steering import TargetControl as TargetControl
    from pytest_schedemu.emulator import Emulator as Emulator
    from pytest_schedemu.errors import ClockError as ClockError
    from pytest_schedemu.errors import ClockTimeout as ClockTimeout
    from pytest_schedemu.errors import DeliveryAssertionError as DeliveryAssertionError
    from pytest_schedemu.errors import DeliveryError as DeliveryError
    from pytest_schedemu.errors import DispatchLimitExceeded as DispatchLimitExceeded
    from pytest_schedemu.errors import HandlerError as HandlerError
    from pytest_schedemu.errors import InvalidScheduleExpression as InvalidScheduleExpression
    from pytest_schedemu.errors import InvalidTimezone as InvalidTimezone
    from pytest_schedemu.errors import SchedemuError as SchedemuError
    from pytest_schedemu.errors import ServerStartError as ServerStartError
    from pytest_schedemu.errors import StackError as StackError
    from pytest_schedemu.errors import StateError as StateError
    from pytest_schedemu.expressions.tool import occurrences as occurrences
    from pytest_schedemu.expressions.tool import validate_expression as validate_expression
    from pytest_schedemu.protocol.faults import ServerError as ServerError
    from pytest_schedemu.records import Activity as Activity
    from pytest_schedemu.records import Attempt as Attempt
    from pytest_schedemu.records import DeadLetter as DeadLetter
    from pytest_schedemu.records import Execution as Execution
    from pytest_schedemu.records import PendingWork as PendingWork
    from pytest_schedemu.settings.options import Settings as Settings
    from pytest_schedemu.stacks import StackResource as StackResource
    from pytest_schedemu.stacks.loaded import Stack as Stack

# Left the public surface: a test never catches an AWS wire error (boto3 raises ClientError;
# inject_api_error takes a code), nor names the clocks, the freeze or a move's list.
if TYPE_CHECKING:
    from pytest_schedemu.errors import (  # noqa: F401
        AccessDeniedException,
        ApiError,
        ConflictException,
        IncompleteSignatureException,
        InternalServerException,
        InvalidEventPatternException,
        InvalidSignatureException,
        InvalidToken,
        LimitExceededException,
        ManagedRuleException,
        MissingAuthenticationTokenException,
        RequestEntityTooLargeException,
        RequestTimeoutException,
        ResourceAlreadyExistsException,
        ResourceNotFoundException,
        SerializationException,
        ServiceQuotaExceededException,
        ServiceUnavailableException,
        ThrottlingException,
        UnknownOperationException,
        UnrecognizedClientException,
        UnsupportedMediaTypeException,
        ValidationException,
    )
    from pytest_schedemu.records import DroppedRecords, MoveAttempts  # noqa: F401
    from pytest_schedemu.timekeeping.clock import RealClock, VirtualClock  # noqa: F401
    from pytest_schedemu.timekeeping.freeze import TimeFreeze  # noqa: F401


def _declared() -> tuple[dict[str, str], dict[str, str]]:
    """The public names and the moved ones, each with the module that defines it, as the
    ``TYPE_CHECKING`` block imports them."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    public: dict[str, str] = {}
    moved: dict[str, str] = {}
    for block in tree.body:
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            for line in block.body:
                if isinstance(line, ast.ImportFrom) and line.module is not None:
                    for alias in line.names:
                        kept = public if alias.asname == alias.name else moved
                        kept[alias.name] = line.module
    return public, moved


_PUBLIC, _MOVED = _declared()

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    home = _MOVED.get(name)
    if home is not None:
        # Not kept in the module's namespace: each import is warned about, at its own line.
        warnings.warn(
            f"import {name} from {home}: pytest_schedemu serves it only until the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)
    raise AttributeError(f"module 'pytest_schedemu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
