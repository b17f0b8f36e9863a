"""Where the plugin's fixtures stand among a test's, worked out once, at collection.

A test marked ``schedemu`` gets the fixture whether or not it names it, where an autouse
fixture would stand.

pytest's setup and teardown of a function-scoped fixture cost a test more than everything
the emulator does for it, and pytest sets up nothing for an argument it finds already
filled. So:

- a test that asks for ``scheduler_client`` gets it from the ``schedemu`` fixture itself;
- a test whose other fixtures cannot reach the emulator (none asks for it, for the client,
  or for ``request``) gets the emulator from its own setup, at the place in its fixture
  order where pytest would have set the fixture up, and its teardown in the same place too.

Both only while the fixtures are the plugin's own (a conftest's override, or a direct
parametrization, gets what it always got), and not when pytest shows the fixtures it sets up
(``--setup-show``, ``--setup-plan``), which should list them.

Both read pytest's internals (a test's ``_fixtureinfo``, ``_request``, ``funcargs`` and its
``setup`` method), which no release promises to keep: the first test of a run shows whether
this pytest has them all, and where it does not, every test gets the fixtures pytest sets up
itself (slower, the same fixtures, in the same order).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Callable

import pytest

if TYPE_CHECKING:
    from pytest_schedemu.emulator import Emulator

    EmulatorForTest = Callable[[pytest.Item, Emulator], Iterator[Emulator]]

#: The tests whose ``scheduler_client`` the ``schedemu`` fixture puts in their arguments.
HANDS_CLIENT_KEY = pytest.StashKey[bool]()

#: What a fixture may ask for that could reach the emulator while the test is set up.
_REACHING = frozenset({"schedemu", "scheduler_client", "request"})


def place_fixtures(items: list[pytest.Item], plugin: str, for_test: EmulatorForTest) -> None:
    """Give marked tests the emulator, and note the tests ``schedemu`` hands the client to
    and those that set the emulator up themselves; ``plugin`` is the module that defines
    the fixtures, ``for_test`` the ``schedemu`` fixture's setup and teardown."""
    fits = fits_pytest(next((item for item in items if isinstance(item, pytest.Function)), None))
    for item in items:
        names = getattr(item, "fixturenames", None)
        if names is None:
            continue
        # The marker alone never leaves the test's calls to reach AWS. (Not an autouse
        # fixture: that would cost every test of the run, marked or not, a fixture.)
        if "schedemu" not in names and item.get_closest_marker("schedemu"):
            names.insert(_first_function_scoped(item, names), "schedemu")
        if not fits or "schedemu" not in names or not _own(item, plugin, "schedemu"):
            continue
        if "scheduler_client" in names and _own(item, plugin, "scheduler_client"):
            _move_before_client(names)
            item.stash[HANDS_CLIENT_KEY] = True
        if _unreachable(item):
            # An attribute of the test's own: pytest calls ``item.setup()`` to set it up.
            item.setup = functools.partial(  # type: ignore[method-assign]
                _set_up, item, item.setup, for_test
            )


def fits_pytest(item: pytest.Function | None) -> bool:
    """Whether this pytest's tests have what the handing and the own setup read and replace,
    shown by one of them (a run with no test function needs neither)."""
    if item is None:
        return False
    info = getattr(item, "_fixtureinfo", None)
    definitions = getattr(info, "name2fixturedefs", None)
    request = getattr(item, "_request", None)
    set_up = getattr(item, "setup", None)
    return (
        isinstance(getattr(info, "argnames", None), tuple)
        and isinstance(definitions, dict)
        and all(
            all(hasattr(found[-1], name) for name in ("func", "argnames", "scope"))
            and isinstance(found[-1].scope, str)
            for found in definitions.values()
            if found
        )
        and isinstance(getattr(item, "funcargs", None), dict)
        and isinstance(getattr(item, "fixturenames", None), list)
        and callable(getattr(request, "getfixturevalue", None))
        and callable(set_up)
        and not inspect.signature(set_up).parameters
        and callable(getattr(item, "addfinalizer", None))
    )


def _first_function_scoped(item: pytest.Item, names: list[str]) -> int:
    """Where an autouse fixture would stand: after the wider-scoped fixtures, before the
    test's own function-scoped ones, so these find the emulator's environment and route."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = {} if info is None else info.name2fixturedefs
    for index, name in enumerate(names):
        found = definitions.get(name)
        if not found or found[-1].scope == "function":
            return index
    return len(names)


def _own(item: pytest.Item, plugin: str, name: str) -> bool:
    """Whether the test gets the plugin's own fixture ``name``, as pytest would set it up."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None or not hasattr(item, "funcargs") or item.config.option.setupshow:
        return False
    found = info.name2fixturedefs.get(name)
    function = found[-1].func if found else None
    return (
        getattr(function, "__module__", None) == plugin
        and getattr(function, "__name__", "") == name
    )


def _move_before_client(names: list[str]) -> None:
    """``schedemu`` moves to where ``scheduler_client`` stands, which is where it was set
    up anyway (as the client's dependency): the order of the test's fixtures is unchanged."""
    client_at, emulator_at = names.index("scheduler_client"), names.index("schedemu")
    if emulator_at > client_at:
        names.insert(client_at, names.pop(emulator_at))


def _unreachable(item: pytest.Item) -> bool:
    """Whether nothing but pytest's own loop over the test's fixtures could ask for the
    emulator while the test is set up: no function-scoped fixture of the test (the plugin's
    own aside) asks for it, for the client or for ``request`` (which could ask for
    anything), and neither does the test. A wider-scoped fixture cannot ask for them."""
    info = item._fixtureinfo  # type: ignore[attr-defined]
    if _REACHING.intersection(info.argnames) - {"schedemu", "scheduler_client"}:
        return False
    for name, found in info.name2fixturedefs.items():
        definition = found[-1]
        if name in _REACHING or definition.scope != "function":
            continue
        if _REACHING.intersection(definition.argnames):
            return False
    # A test function only: a doctest may ask for any fixture through ``getfixture``.
    return isinstance(item, pytest.Function) and hasattr(item, "_request")


def _set_up(item: Any, set_up_the_rest: Callable[[], None], for_test: EmulatorForTest) -> None:
    """pytest's own setup of the test, with the emulator set up in the fixtures' order:
    the fixtures before ``schedemu`` are filled the way pytest fills them, then the
    emulator, whose teardown is the test's next finalizer, then the rest, by pytest."""
    request, arguments = item._request, item.funcargs
    for name in item.fixturenames:
        if name == "schedemu":
            break
        if name not in arguments:
            arguments[name] = request.getfixturevalue(name)
    server = arguments.get("schedemu_server")
    if server is None:
        server = request.getfixturevalue("schedemu_server")
    steps = for_test(item, server)
    arguments["schedemu"] = next(steps)
    item.addfinalizer(functools.partial(next, steps, None))
    set_up_the_rest()
