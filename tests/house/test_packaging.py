"""What a newcomer installs works: the package's own imports are its dependencies, and tox
runs on a machine that lacks some of its Python versions."""

from __future__ import annotations

import ast
import configparser
import re
import sys
from pathlib import Path

import pytest

import pytest_schedemu

PACKAGE = Path(pytest_schedemu.__file__).parent
ROOT = Path(__file__).resolve().parents[2]
tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11")


def _top_level_imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports as it is imported (not in a function)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _third_party(names: set[str]) -> set[str]:
    own = {"__future__", PACKAGE.name}
    return {name for name in names if name not in sys.stdlib_module_names and name not in own}


#: Imports whose distribution is named otherwise.
_DISTRIBUTIONS = {"yaml": "pyyaml"}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s<>=!~\[;]", text, maxsplit=1)[0].lower() for text in requirements}


def test_every_package_the_modules_import_is_a_runtime_dependency() -> None:
    # The plugin is imported by every pytest run once the package is installed, and it
    # imports pytest: an install without it would fail at the first import.
    imported = set()
    for path in PACKAGE.rglob("*.py"):
        imported |= _third_party(_top_level_imports(path))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "pytest" in imported
    distributions = {_DISTRIBUTIONS.get(name, name) for name in imported}
    assert sorted(distributions - _requirement_names(project["dependencies"])) == []


def test_tox_skips_the_python_versions_that_are_not_installed() -> None:
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    assert tox.getboolean("tox", "skip_missing_interpreters")
