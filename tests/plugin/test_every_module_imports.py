"""Every module of the package imports on the Python running the tests.

The package is imported lazily, name by name, so a module that only one feature reaches
(an annotation evaluated at import that needs a newer Python, an optional import) could
break on the oldest supported Python without any other test of the plugin noticing; CI runs
this directory on the oldest and newest Python it supports.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import pytest_schedemu

# ``python -m pytest_schedemu`` runs the command line on import.
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(pytest_schedemu.__path__, "pytest_schedemu.")
    if not info.name.endswith(".__main__")
)


def test_the_package_has_its_modules() -> None:
    assert len(MODULES) > 100
    assert "pytest_schedemu.emulator" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_module_imports(name: str) -> None:
    importlib.import_module(name)
