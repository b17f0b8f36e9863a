"""Tests use the Emulator's public doors, never its private attributes.

A test that reads ``emu._store`` pins the wiring, so a change of shape breaks it although no
behaviour changed. What a test of the emulator itself must see has a narrow door of its own
(``Emulator.debug``). The scan knows an emulator by its usual names, by an ``Emulator``
annotation, and by being built from ``Emulator(...)``; it also reads the test files and
scripts that tests write as strings (pytester's, a subprocess's).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

TESTS = Path(__file__).parents[1]

#: The names tests give an emulator: the fixtures, and what they are bound to in loops.
EMULATOR_NAMES = {"emu", "emulator", "schedemu", "schedemu_server", "e"}


def _is_emulator_call(node: ast.AST | None) -> bool:
    """``Emulator(...)``, or a call chained on one (``Emulator(...).start()``)."""
    while isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "Emulator":
            return True
        node = func.value if isinstance(func, ast.Attribute) else None
    return False


def _is_emulator_annotation(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Constant):
        return node.value == "Emulator"
    return isinstance(node, ast.Name) and node.id == "Emulator"


def _emulator_names(tree: ast.AST) -> set[str]:
    names = set(EMULATOR_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_emulator_call(node.value):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if _is_emulator_call(node.value) or _is_emulator_annotation(node.annotation):
                names.add(node.target.id)
        elif isinstance(node, ast.withitem) and _is_emulator_call(node.context_expr):
            if isinstance(node.optional_vars, ast.Name):
                names.add(node.optional_vars.id)
        elif isinstance(node, ast.arg) and _is_emulator_annotation(node.annotation):
            names.add(node.arg)
    return names


def _private(name: object) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def _embedded_code(tree: ast.AST) -> list[ast.Module]:
    """The strings that parse as Python: test files and scripts a test writes out."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [p.value if isinstance(p, ast.Constant) else "x" for p in node.values]
            text = "".join(str(part) for part in parts)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if "\n" in text:
            try:
                found.append(ast.parse(textwrap.dedent(text)))
            except SyntaxError:
                continue
    return found


def _reads_private(node: ast.AST, emulators: set[str]) -> bool:
    if isinstance(node, ast.Attribute):
        owner = node.value
        return _private(node.attr) and isinstance(owner, ast.Name) and owner.id in emulators
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "setattr", "delattr", "hasattr")
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in emulators
        and isinstance(node.args[1], ast.Constant)
        and _private(node.args[1].value)
    )


def private_reads(source: str) -> list[str]:
    """Each ``<emulator>._name`` and ``getattr(<emulator>, "_name")`` in ``source``."""
    tree = ast.parse(source)
    found: list[str] = []
    for module in [tree, *_embedded_code(tree)]:
        emulators = _emulator_names(module)
        found += [ast.unparse(node) for node in ast.walk(module) if _reads_private(node, emulators)]
    return found


def test_the_scan_catches_planted_reads_and_leaves_the_rest() -> None:
    planted = '''
from pytest_schedemu import Emulator

def test_fixtures(emu, schedemu, other):
    emu._store.snapshot()
    getattr(schedemu, "_app")
    other._store
    emu.__class__
    emu.debug.state_snapshot()

def test_built(pytester, first: Emulator) -> None:
    first._history
    with Emulator() as inner:
        inner._dispatcher
    built = Emulator(start="2026-03-01T10:00:00Z").start()
    built._real_time
    pytester.makepyfile("""
def test_it(schedemu_server):
    schedemu_server._clients
""")
'''
    assert sorted(private_reads(planted)) == [
        "built._real_time",
        "emu._store",
        "first._history",
        "getattr(schedemu, '_app')",
        "inner._dispatcher",
        "schedemu_server._clients",
    ]


def test_no_test_reads_a_private_attribute_of_an_emulator() -> None:
    this = Path(__file__)
    reading = {
        str(path.relative_to(TESTS)): found
        for path in sorted(TESTS.rglob("*.py"))
        if path != this and (found := private_reads(path.read_text(encoding="utf-8")))
    }
    assert reading == {}
