"""The settings reference's table, made from the options table as the site is built.

A MkDocs hook (``hooks:`` in mkdocs.yml): where a page says ``<!-- settings table -->``,
``on_page_markdown`` puts one row per option of ``pytest_schedemu.settings.options``, with
each door that takes it. So the reference cannot list an option, a flag, a variable or a
default the code does not have; tests/docs/test_settings_table.py reads the rows back.

Which doors an option has follows from its scope (``settings/option.py``): the emulator's
options (``server`` and ``test``) are ``Emulator`` keywords, ``schedemu serve`` flags and
``SCHEDEMU_*`` variables; those a test may set (``test``, ``plugin``) are also marker
keywords, ini keys and pytest flags; ``marker`` options are marker keywords alone; ``run``
options are ini keys and pytest flags alone.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Built from a checkout without the package installed, the tree's own is the one read.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pytest_schedemu.settings.option import MARKER, PLUGIN, RUN, SERVER, TEST, Option  # noqa: E402
from pytest_schedemu.settings.options import OPTIONS  # noqa: E402

PLACEHOLDER = "<!-- settings table -->"
# What a setting is comes first, read across a page; the doors follow, where the table may
# scroll sideways.
COLUMNS = (
    "Setting",
    "Default",
    "What it does",
    "ini key",
    "Command-line flag",
    "Marker keyword",
    "Environment variable",
)
NONE = "—"


@dataclass(frozen=True)
class Row:
    """One option as the table shows it; ``None`` where the option has no such door."""

    setting: str
    ini_key: str | None
    pytest_flag: str | None
    serve_flag: str | None
    marker_keyword: str | None
    environment_variable: str | None
    default: str
    serve_default: str | None
    help: str


def row(option: Option) -> Row:
    emulator = option.scope in (SERVER, TEST)
    per_run = option.scope in (TEST, PLUGIN, RUN)
    default = option.shown_default()
    serve_default = option.shown_default(serve=True)
    return Row(
        setting=option.name,
        ini_key=option.ini_key if per_run else None,
        pytest_flag=option.pytest_flag if per_run else None,
        serve_flag=option.flag if emulator else None,
        marker_keyword=option.name if option.scope in (TEST, PLUGIN, MARKER) else None,
        environment_variable=option.environment_variable if emulator else None,
        default=default,
        serve_default=serve_default if emulator and serve_default != default else None,
        help=option.help,
    )


def rows() -> list[Row]:
    """Every option, in the options table's order."""
    return [row(option) for option in OPTIONS.values()]


def _code(text: str | None) -> str:
    return NONE if text is None else f"`{text}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_row(item: Row) -> str:
    flags = []
    if item.pytest_flag is not None:
        flags.append(f"`{item.pytest_flag}`")
    if item.serve_flag is not None:
        flags.append(f"`schedemu serve {item.serve_flag}`")
    default = f"`{item.default}`" if " " not in item.default else item.default
    if item.serve_default is not None:
        default += f" (`schedemu serve`: `{item.serve_default}`)"
    cells = (
        f"`{item.setting}`",
        _cell(default),
        _cell(item.help),
        _code(item.ini_key),
        "<br>".join(flags) or NONE,
        _code(item.marker_keyword),
        _code(item.environment_variable),
    )
    return "| " + " | ".join(cells) + " |"


def table() -> str:
    header = "| " + " | ".join(COLUMNS) + " |"
    rule = "|" + "|".join("---" for _ in COLUMNS) + "|"
    return "\n".join([header, rule, *(markdown_row(item) for item in rows())])


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs' hook: the page with its placeholder replaced by the table."""
    return markdown.replace(PLACEHOLDER, table()) if PLACEHOLDER in markdown else markdown
