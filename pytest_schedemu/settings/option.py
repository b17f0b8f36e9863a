"""One option: how it is declared (a dataclass field with its metadata), the row of the
options table made of it, and how a value of it is read.

Every door takes an option's value the same way, through ``Option.read``: text (a flag,
an environment variable, an ini value, a marker's string) goes through the option's
parser; a marker's bool or number is read as its text would be, so ``intercept=0`` is
``"0"``; anything else (a datetime, a ``Delivery``) is taken as it is. The check comes
last, whatever the door.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

#: Fixed for the emulator's life (they shape its server or its clock).
SERVER = "server"
#: The emulator's settings that may differ from test to test: the plugin's marker, ini
#: and command-line options set them, and every ``reset`` restores them to the emulator's
#: own values.
TEST = "test"
#: The plugin's own options, per test: marker, ini and command line.
PLUGIN = "plugin"
#: The plugin's options that only a marker sets: a whole run should not opt out.
MARKER = "marker"
#: The plugin's options for a whole run, read as it starts, before any ``conftest.py`` or
#: test module is imported: command line and ini only, as no test has begun.
RUN = "run"

Parse = Callable[[str], Any]
Check = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class Option:
    """One option as every door knows it, each door naming it after ``name``."""

    name: str
    default: Any
    help: str
    scope: str
    #: Reads the option from text; None when the text is the value itself.
    parse: Parse | None
    #: None for a valid value, else what a valid one would be.
    check: Check | None
    #: ``schedemu serve``'s own default, where a service wants another than a test does.
    serve_default: Any = None
    #: How help describes the default, where the value alone says too little.
    shown: str | None = None
    #: The text a flag given without a value stands for; None: a flag needs a value.
    bare: str | None = None
    #: What a flag's value is called in help.
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """``schedemu serve``'s flag."""
        return "--" + self.name.replace("_", "-")

    @property
    def environment_variable(self) -> str:
        return "SCHEDEMU_" + self.name.upper()

    @property
    def pytest_flag(self) -> str:
        """The pytest command-line option."""
        return "--schedemu-" + self.name.replace("_", "-")

    @property
    def pytest_dest(self) -> str:
        """The attribute of pytest's parsed arguments that holds the command-line value."""
        return self.pytest_flag[2:].replace("-", "_")

    @property
    def ini_key(self) -> str:
        return "schedemu_" + self.name

    def shown_default(self, serve: bool = False) -> str:
        default = self.serve_default if serve and self.serve_default is not None else self.default
        if self.shown is not None and default == self.default:
            return self.shown
        if isinstance(default, bool) or default is None:
            return str(default).lower()
        return "{}" if default == {} else str(default)

    def problem(self, value: Any) -> str | None:
        """None if ``value`` is valid, else what a valid one would be."""
        return None if self.check is None else self.check(value)

    def accepts_none(self) -> bool:
        """Whether None is a valid value (e.g. ``max_records``: no limit)."""
        return self.problem(None) is None

    def read(self, given: Any, source: str | None = None) -> Any:
        """The value ``given`` stands for, parsed and checked; a ValueError names the option
        as ``source`` (a flag, a variable, an ini key; default: its name) and ``given``."""
        try:
            value = self._parsed(given)
        except (OSError, TypeError, ValueError) as error:
            raise ValueError(f"Unsupported {source or self.name} {given!r}: {error}") from None
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(f"Unsupported {source or self.name} {given!r}: {problem}")
        return value

    def _parsed(self, given: Any) -> Any:
        if self.parse is None:
            return given
        if isinstance(given, str):
            return self.parse(given)
        if isinstance(given, bool):
            return self.parse(str(given).lower())
        if isinstance(given, (int, float)):
            return self.parse(repr(given))
        return given


def declare(
    default: Any,
    help: str,
    *,
    scope: str = TEST,
    parse: Parse | None = None,
    check: Check | None = None,
    serve_default: Any = None,
    shown: str | None = None,
    bare: str | None = None,
    metavar: str | None = None,
    factory: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field that is an option: its default and, as metadata, the rest of its
    row of the options table."""
    metadata = {
        "help": help,
        "scope": scope,
        "parse": parse,
        "check": check,
        "serve_default": serve_default,
        "shown": shown,
        "bare": bare,
        "metavar": metavar,
    }
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def rows(declared: type) -> dict[str, Option]:
    """The options a dataclass declares with ``declare``, by name, in declaration order."""
    found = {}
    for item in dataclasses.fields(declared):
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        else:
            default = None
        found[item.name] = Option(name=item.name, default=default, **item.metadata)
    return found


def validate(options: dict[str, Option], declared: Any) -> None:
    """Raise a ValueError naming the first option of ``declared`` whose value is not valid."""
    for name, option in options.items():
        value = getattr(declared, name)
        problem = option.problem(value)
        if problem is not None:
            raise ValueError(f"Unsupported {name} {value!r}: {problem}")
