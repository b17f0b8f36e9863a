"""The public names: ``__all__`` lists exactly what users handle, and every name works."""

from __future__ import annotations

import inspect

import pytest_schedemu
from pytest_schedemu import errors

# The records, controls, delivery types and expression tools a user meets, besides every
# exception.
EXPECTED = {
    "Activity",
    "Attempt",
    "DeadLetter",
    "DeadLetterRequest",
    "Delivery",
    "DeliveryRequest",
    "DroppedRecords",
    "Emulator",
    "Execution",
    "MoveAttempts",
    "Outcome",
    "PendingWork",
    "RealClock",
    "RecordingDelivery",
    "ServerError",
    "Settings",
    "Stack",
    "StackResource",
    "TargetControl",
    "TimeFreeze",
    "VirtualClock",
    "__version__",
    "occurrences",
    "validate_expression",
}


def _exceptions() -> set[str]:
    return {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }


def test_all_is_exactly_the_public_names() -> None:
    assert set(pytest_schedemu.__all__) == EXPECTED | _exceptions()


def test_every_exception_is_in_the_tree_of_the_errors_module() -> None:
    tree = errors.__doc__ or ""
    assert [name for name in sorted(_exceptions()) if name not in tree] == []


def test_every_public_name_resolves() -> None:
    for name in pytest_schedemu.__all__:
        assert getattr(pytest_schedemu, name) is not None


def test_dir_lists_the_public_names() -> None:
    assert set(dir(pytest_schedemu)) >= set(pytest_schedemu.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        pytest_schedemu.Emulater  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "Emulater" in str(error)
    else:
        raise AssertionError("expected AttributeError")
