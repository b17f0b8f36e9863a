"""The settings reference's table (tools/settings_table.py, written into
docs/reference/settings.md as the site is built) lists every option, each with the doors
the code really gives it: the flags and ini keys pytest and ``schedemu serve`` take, the
variables the service reads, the marker's keywords, and the defaults their help shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_schedemu.cli import main
from pytest_schedemu.settings.layers import per_test
from pytest_schedemu.settings.options import OPTIONS, Settings
from tools import settings_table

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "settings.md"
ROWS = {row.setting: row for row in settings_table.rows()}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _serve_help(capsys: pytest.CaptureFixture[str]) -> str:
    """``schedemu serve --help``'s options, after its usage line."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = _flat(capsys.readouterr().out)
    return shown[shown.index("-h, --help") :]


def _pytest_help(pytester: pytest.Pytester) -> str:
    return _flat("\n".join(pytester.runpytest_inprocess("--help").outlines))


def _shown_default(help_text: str, flag: str) -> str:
    """The default a --help text gives the option ``flag``."""
    found = re.search(re.escape(flag) + r"=.*?\(default: (.*?)(?:; environment: \S+)?\)", help_text)
    assert found, f"{flag} is not in the help"
    return found.group(1)


def test_the_page_asks_for_the_table_and_the_build_puts_one_row_per_option() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert page.count(settings_table.PLACEHOLDER) == 1
    built = settings_table.on_page_markdown(page)
    lines = [line for line in built.splitlines() if line.startswith("| `")]
    assert [line.split("`")[1] for line in lines] == list(OPTIONS)
    assert settings_table.PLACEHOLDER not in built


def test_every_pytest_flag_and_ini_key_in_the_table_is_one_pytest_takes(
    pytestconfig: pytest.Config,
) -> None:
    listed = [row for row in ROWS.values() if row.pytest_flag is not None]
    assert listed, "no option has a pytest flag"
    for row in listed:
        assert row.pytest_flag is not None and row.ini_key is not None
        pytestconfig.getoption(row.pytest_flag[2:].replace("-", "_"))  # ValueError if unknown
        pytestconfig.getini(row.ini_key)  # ValueError if unknown


def test_the_pytest_flags_defaults_are_those_pytest_help_shows(
    pytester: pytest.Pytester,
) -> None:
    shown = _pytest_help(pytester)
    flags = {row.pytest_flag: row for row in ROWS.values() if row.pytest_flag is not None}
    assert set(re.findall(r"--schedemu-[a-z-]+", shown)) == set(flags)
    for flag, row in flags.items():
        assert _shown_default(shown, flag) == row.default, flag


def test_the_service_flags_variables_and_defaults_are_those_schedemu_serve_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = _serve_help(capsys)
    served = {row.serve_flag: row for row in ROWS.values() if row.serve_flag is not None}
    flags_in_help = set(re.findall(r"(--[a-z][a-z-]+) \[?[A-Z_]+\]? ", shown))
    assert set(served) <= flags_in_help
    for flag, row in served.items():
        found = re.search(
            re.escape(flag) + r" \[?[A-Z_]+\]? .*?\(default: (.*?); environment: (\S+?)\)",
            shown,
        )
        assert found, flag
        assert found.group(1) == (row.serve_default or row.default), flag
        assert found.group(2) == row.environment_variable, flag


def test_the_emulators_defaults_are_those_an_emulator_has() -> None:
    made = Settings()
    for row in ROWS.values():
        if row.serve_flag is None or OPTIONS[row.setting].shown is not None:
            continue  # not an Emulator keyword, or a default described in words
        value = getattr(made, row.setting)
        expected = str(value).lower() if value is None or isinstance(value, bool) else str(value)
        assert row.default == expected, row.setting


def test_the_marker_keywords_are_those_the_marker_takes() -> None:
    listed = {row.marker_keyword for row in ROWS.values() if row.marker_keyword is not None}
    assert listed == set(per_test())


def test_a_cell_with_a_bar_does_not_split_its_row() -> None:
    row = settings_table.Row(
        setting="x",
        ini_key=None,
        pytest_flag=None,
        serve_flag="--x",
        marker_keyword=None,
        environment_variable="SCHEDEMU_X",
        default="a|b",
        serve_default=None,
        help="one | two",
    )
    cells = re.split(r"(?<!\\)\|", settings_table.markdown_row(row))
    assert len(cells) == len(settings_table.COLUMNS) + 2
