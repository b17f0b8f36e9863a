"""A test's options: each one the marker's value, else the command line's, else the ini
file's, else the session emulator's own (for the plugin's options, the table's default).

Every layer's value is read the same way (``Option.read``), so ``intercept=0`` in a marker
means what ``schedemu_intercept = 0`` means in an ini file, and a value no layer may hold
fails the test with the option's name, as its layer calls it, and the value. The run's own
options (``RunOptions``) are chosen the same way, from the command line and the ini file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_schedemu.settings.option import MARKER, PLUGIN, RUN, TEST, Option
from pytest_schedemu.settings.options import OPTIONS, PluginOptions, RunOptions, Settings, options


@dataclass(frozen=True)
class Chosen:
    """A test's value of every option it may set."""

    #: The emulator's test-scoped settings by name; ``start`` is None for the wall-clock now.
    settings: Mapping[str, Any]
    plugin: PluginOptions


def per_test() -> dict[str, Option]:
    """The options a test may set: the marker's keywords."""
    return options(TEST, PLUGIN, MARKER)


def per_run() -> dict[str, Option]:
    """The options a whole run may set too, from its ini file and its command line."""
    return options(TEST, PLUGIN, RUN)


def for_the_run(
    command_line: Mapping[str, str | None], ini: Mapping[str, str | None]
) -> tuple[RunOptions, str]:
    """The run's own options, and its region (a marker may choose another for a test):
    each the command line's value, else the ini file's, else the default."""
    run = RunOptions(
        **{name: _value(option, {}, command_line, ini, {}) for name, option in options(RUN).items()}
    )
    region = OPTIONS["region"]
    return run, _value(region, {}, command_line, ini, {region.name: region.default})


def layered(
    *,
    marker: Mapping[str, Any],
    command_line: Mapping[str, str | None],
    ini: Mapping[str, str | None],
    own: Settings,
) -> Chosen:
    """Each per-test option's value from the first layer that gives one; a ValueError names
    the first value that is not valid.

    ``command_line`` and ``ini`` hold texts (None or empty: not given); ``marker`` holds
    the marker's keywords, where a None for an option that cannot be None is not given.
    """
    # Each test starts at the wall-clock now unless told otherwise, not where the session's
    # emulator began.
    fallback = {**own.values(TEST), "start": None}
    chosen = {
        name: _value(option, marker, command_line, ini, fallback)
        for name, option in per_test().items()
    }
    settings = {name: chosen.pop(name) for name in options(TEST)}
    return Chosen(settings=settings, plugin=PluginOptions(**chosen))


def _value(
    option: Option,
    marker: Mapping[str, Any],
    command_line: Mapping[str, str | None],
    ini: Mapping[str, str | None],
    fallback: Mapping[str, Any],
) -> Any:
    name = option.name
    given = marker.get(name)
    if given is not None or (name in marker and option.accepts_none()):
        return option.read(given)
    for source, text in (
        (option.pytest_flag, command_line.get(name)),
        (option.ini_key, ini.get(name)),
    ):
        if text:
            return option.read(text, source)
    return fallback[name] if option.scope == TEST else option.default
