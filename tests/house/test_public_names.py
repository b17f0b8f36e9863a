"""The public names: ``__all__`` lists what a user imports, at most 30 names, each declared
once; every name that was importable from ``pytest_schedemu`` still is, for one release,
with a warning naming its home."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

import pytest_schedemu
from pytest_schedemu import errors
from pytest_schedemu.timekeeping import clock as clocks

INIT = Path(pytest_schedemu.__file__)

#: Every name ``pytest_schedemu`` offered before its surface was cut down: none may vanish
#: without a release that warns about it.
IMPORTABLE_BEFORE = {
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
}

#: What a test imports: the emulator, its settings, the records it reads, the delivery types
#: for a custom ``Delivery``, the controls, stacks, the expression tools, and the package's
#: own exceptions a test catches.
PUBLIC = {
    "Emulator",
    "Settings",
    "Activity",
    "Attempt",
    "DeadLetter",
    "Execution",
    "PendingWork",
    "DeadLetterRequest",
    "Delivery",
    "DeliveryRequest",
    "Outcome",
    "RecordingDelivery",
    "TargetControl",
    "Stack",
    "StackResource",
    "ServerError",
    "occurrences",
    "validate_expression",
    "SchedemuError",
    "ClockError",
    "ClockTimeout",
    "DeliveryAssertionError",
    "DeliveryError",
    "DispatchLimitExceeded",
    "HandlerError",
    "InvalidScheduleExpression",
    "InvalidTimezone",
    "ServerStartError",
    "StackError",
    "StateError",
}


def _exceptions() -> set[str]:
    return {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }


def _wire_errors() -> set[str]:
    """The AWS-shaped error answers, each named after an AWS error code."""
    return {name for name in _exceptions() if issubclass(getattr(errors, name), errors.ApiError)}


def written_twice(source: str, names: set[str]) -> dict[str, int]:
    """Each of ``names`` that ``source`` writes other than once: an import binding it (``X``
    or ``X as X``) counts once, and so does every other mention of it, as a name, an
    attribute or a string."""
    counts: Counter[str] = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.alias):
            counts[node.asname or node.name] += 1
        elif isinstance(node, ast.Name):
            counts[node.id] += 1
        elif isinstance(node, ast.Attribute):
            counts[node.attr] += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            counts[node.value] += 1
    return {name: counts[name] for name in sorted(names) if counts[name] != 1}


def test_all_holds_at_most_thirty_names() -> None:
    assert len(pytest_schedemu.__all__) <= 30


def test_every_public_name_is_declared_once_in_the_package() -> None:
    everything = IMPORTABLE_BEFORE - {"__version__"}
    assert written_twice(INIT.read_text(encoding="utf-8"), everything) == {}


def test_the_count_finds_a_name_written_again() -> None:
    planted = (
        "if TYPE_CHECKING:\n"
        "    from m import Emulator as Emulator\n"
        "    from m import Settings as Settings\n"
        "    from m import Stack\n"
        "__all__ = ['Emulator']\n"
        "_LOCATIONS = {'Settings': 'm'}\n"
    )
    assert written_twice(planted, {"Emulator", "Settings", "Stack", "Outcome"}) == {
        "Emulator": 2,
        "Outcome": 0,
        "Settings": 2,
    }


def test_every_public_name_resolves_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in pytest_schedemu.__all__:
            assert getattr(pytest_schedemu, name) is not None


def test_all_is_what_a_test_imports_and_no_wire_error() -> None:
    assert set(pytest_schedemu.__all__) == PUBLIC
    assert PUBLIC & (_wire_errors() | {"ApiError"}) == set()


def test_every_exception_is_in_the_tree_of_the_errors_module() -> None:
    tree = errors.__doc__ or ""
    assert [name for name in sorted(_exceptions()) if name not in tree] == []


def test_every_name_importable_before_still_is() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [name for name in sorted(IMPORTABLE_BEFORE) if not hasattr(pytest_schedemu, name)]
    assert missing == []


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("ValidationException", "pytest_schedemu.errors"),
        ("ApiError", "pytest_schedemu.errors"),
        ("VirtualClock", "pytest_schedemu.timekeeping.clock"),
        ("MoveAttempts", "pytest_schedemu.records"),
    ],
)
def test_a_name_that_left_the_surface_warns_naming_its_home(name: str, home: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"^import {name} from {home}: ") as caught:
        value = getattr(pytest_schedemu, name)
    assert value is getattr(importlib.import_module(home), name)
    # At the importing line, not inside the package.
    assert {Path(warning.filename) for warning in caught} == {Path(__file__)}


def test_every_wire_error_left_the_surface_with_a_warning() -> None:
    for name in sorted(_wire_errors()):
        with pytest.warns(DeprecationWarning, match=f"import {name} from pytest_schedemu.errors"):
            assert getattr(pytest_schedemu, name) is getattr(errors, name)


def test_dir_lists_the_public_names() -> None:
    assert set(dir(pytest_schedemu)) >= set(pytest_schedemu.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="Emulater"):
        pytest_schedemu.Emulater  # type: ignore[attr-defined]  # noqa: B018


def mypy_environment() -> dict[str, str]:
    """The environment in which mypy finds the package under test: an installed one through
    its site-packages (mypy refuses a MYPYPATH that names one), a checkout through MYPYPATH."""
    root = INIT.parents[1]
    if root.name in ("site-packages", "dist-packages"):
        return dict(os.environ)
    return {**os.environ, "MYPYPATH": str(root)}


def test_a_strictly_typed_user_project_sees_the_real_types(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    user = tmp_path / "test_user.py"
    user.write_text(
        "from pytest_schedemu import Attempt, Emulator, Settings, ValidationException\n"
        "\n"
        "def region_of(emu: Emulator, settings: Settings) -> str:\n"
        "    return emu.region + settings.account_id\n"
        "\n"
        "def target_of(attempt: Attempt) -> str:\n"
        "    return attempt.target_arn\n"
        "\n"
        "def unknown(emu: Emulator) -> None:\n"
        "    emu.no_such_member\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(user)],
        cwd=tmp_path,
        env=mypy_environment(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    reported = [line.split(": error: ", 1)[-1] for line in checked.stdout.splitlines()]
    assert reported == [
        'Module "pytest_schedemu" does not explicitly export attribute "ValidationException"'
        "  [attr-defined]",
        '"Emulator" has no attribute "no_such_member"  [attr-defined]',
    ], checked.stdout + checked.stderr


#: What a test does with time: read it, and move it (each move also async).
CLOCK_MEMBERS = {
    "now",
    "real_time",
    *(
        f"{move}{suffix}"
        for move in ("advance", "move_to", "tick", "advance_to_next", "run_until", "run_until_idle")
        for suffix in ("", "_async")
    ),
}


@pytest.mark.parametrize("clock", [clocks.VirtualClock, clocks.RealClock])
def test_a_clock_shows_only_what_a_test_does_with_time(clock: type) -> None:
    # The wiring (placing the clock, its lock, handing it the dispatcher, following its
    # moves) is the emulator's, through a ClockWiring.
    assert {name for name in dir(clock) if not name.startswith("_")} == CLOCK_MEMBERS
