"""Where the plugin's fixtures stand among a test's, worked out once, at collection.

A test marked ``schedemu`` gets the fixture whether or not it names it, where an autouse
fixture would stand. A test that asks for ``scheduler_client`` gets it from the ``schedemu``
fixture itself: pytest's setup and teardown of a second function-scoped fixture cost a test
more than everything the emulator does for it, and pytest sets up nothing for an argument
it finds already filled.
"""

from __future__ import annotations

import pytest

#: The tests whose ``scheduler_client`` the ``schedemu`` fixture puts in their arguments.
HANDS_CLIENT_KEY = pytest.StashKey[bool]()


def place_fixtures(items: list[pytest.Item], plugin: str) -> None:
    """Give marked tests the emulator, and note the tests ``schedemu`` hands the client to;
    ``plugin`` is the module that defines both fixtures."""
    for item in items:
        names = getattr(item, "fixturenames", None)
        if names is None:
            continue
        # The marker alone never leaves the test's calls to reach AWS. (Not an autouse
        # fixture: that would cost every test of the run, marked or not, a fixture.)
        if "schedemu" not in names and item.get_closest_marker("schedemu"):
            names.insert(_first_function_scoped(item, names), "schedemu")
        if "scheduler_client" in names and _hands_the_client(item, names, plugin):
            item.stash[HANDS_CLIENT_KEY] = True


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


def _hands_the_client(item: pytest.Item, names: list[str], plugin: str) -> bool:
    """Whether ``schedemu`` can give the test its ``scheduler_client``: only while both are
    the plugin's own (a conftest's override, or a direct parametrization, gets what it
    always got), and not when pytest shows the fixtures it sets up (``--setup-show``,
    ``--setup-plan``), which should list the client.

    ``schedemu`` then moves to where ``scheduler_client`` stands, which is where it was set
    up anyway (as the client's dependency): the order of the test's fixtures is unchanged.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None or not hasattr(item, "funcargs") or item.config.option.setupshow:
        return False
    for name in ("scheduler_client", "schedemu"):
        found = info.name2fixturedefs.get(name)
        function = found[-1].func if found else None
        if getattr(function, "__module__", None) != plugin or function.__name__ != name:
            return False
    client_at, emulator_at = names.index("scheduler_client"), names.index("schedemu")
    if emulator_at > client_at:
        names.insert(client_at, names.pop(emulator_at))
    return True
