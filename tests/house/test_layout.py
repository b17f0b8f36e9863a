"""The shape of the package: which part may import which, and how big a module may grow.

The flow is ``api/ -> store <- dispatch/ -> targets/``, with ``expressions/`` below and
``records/`` beside: no import circle between parts, the pure wings import no part that
uses them, the API never reaches into the dispatcher, and no module but the vendored
service model grows past 400 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            found = submodules & MODULES.keys()
            names |= found
            if len(found) < len(node.names):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name in MODULES}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _part_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        for imported in _imports(path):
            if _part(module) != _part(imported) and _part(imported):
                graph.setdefault(_part(module), set()).add(_part(imported))
    return graph


def test_no_part_imports_itself_through_another() -> None:
    graph = _part_graph()

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert [part for part in graph if reaches(part, part, {part})] == []


@pytest.mark.parametrize(
    ("part", "forbidden"),
    [
        ("api", {"dispatch", "emulator", "plugin", "persistence"}),
        ("targets", {"api", "dispatch", "store", "records", "emulator"}),
        ("expressions", {"api", "dispatch", "store", "records", "targets", "emulator"}),
        ("records", {"api", "dispatch", "store", "emulator"}),
        ("store", {"api", "dispatch", "records", "emulator"}),
        ("dispatch", {"api", "emulator", "plugin"}),
        ("assertions", {"emulator", "dispatch", "api"}),
        ("timeline", {"api", "dispatch", "store", "records", "targets", "emulator", "plugin"}),
        # Persistence observes the state; nothing below it knows that it exists.
        ("persistence", {"api", "emulator", "plugin"}),
        ("store", {"persistence"}),
        ("records", {"persistence"}),
        ("dispatch", {"persistence"}),
    ],
)
def test_a_part_never_imports_what_sits_above_it(part: str, forbidden: set[str]) -> None:
    assert _part_graph().get(part, set()) & forbidden == set()


def test_no_module_is_over_the_line_budget() -> None:
    sizes = {
        name: len(path.read_text().splitlines())
        for name, path in MODULES.items()
        if "data" not in path.parts
    }
    assert {name: size for name, size in sizes.items() if size > MAX_LINES} == {}
