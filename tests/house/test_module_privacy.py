"""No module of the package reads another module's private members.

A name with one leading underscore is private to the module that defines it: what another
module needs of it gets a public name, or the code that needs it moves to where it belongs.
The scan reads every module of the package with ``ast`` and counts each access to a private
member, ``x._name`` or ``getattr(x, "_name")`` (also ``hasattr``, ``setattr``,
``delattr`` with the name written out), one leading underscore and not a dunder. An access
does not count when:

* ``x`` is ``self`` or ``cls``: an object's own members;
* ``_name`` is defined in the module that reads it: at its top level, or as a member of a
  class of that module (a method, a class attribute, ``self._name = ...``). A module's
  private names are its own to use on any of its objects, e.g. one of its classes calling
  another's private method, or a module-level ``_thing``;
* ``_name`` is an outside library's, listed below with its reason: public despite its
  underscore, as its library documents it (and defined nowhere in the package), or
  private to a library that offers no public way to do what the reading module needs
  (listed with that module).

Any other access counts, and the count must be zero.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent

#: Outside names public despite their underscore, as their library documents them.
PUBLIC_OUTSIDE = {
    "_replace": "a named tuple's copy with fields replaced (collections.namedtuple)",
    "_asdict": "a named tuple's fields as a dict (collections.namedtuple)",
    "_fields": "a named tuple's field names (collections.namedtuple)",
    "_make": "a named tuple from an iterable (collections.namedtuple)",
    "_exit": "os._exit, leaving the process at once, without cleanup",
}

#: Outside libraries' private names that a module reaches, for want of a public way.
PRIVATE_OUTSIDE = {
    ("plugin/placement.py", "_fixtureinfo"): (
        "pytest: the test's fixture closure, to tell whether anything but pytest's own "
        "loop could ask for the emulator"
    ),
    ("plugin/placement.py", "_request"): (
        "pytest: the test's fixture request, to set its fixtures up in their order"
    ),
    ("wire/intercept.py", "_event_emitter"): (
        "botocore: a client endpoint's event emitter, the one place to register handlers "
        "for a client made before the interception"
    ),
    ("wire/intercept.py", "_credentials"): (
        "botocore: whether a client found credentials at all, before its request is signed"
    ),
    ("plugin/report.py", "_tmp_path_factory"): (
        "pytest: the factory its tmp_path_factory fixture hands out, without making every "
        "test depend on that fixture"
    ),
    ("wire/clients.py", "_user_agent_creator"): (
        "botocore: the handler that rebuilds the User-Agent header, unregistered in process"
    ),
    ("wire/transport.py", "_content"): (
        "botocore: the response body AWSResponse.content would read, set once"
    ),
}

_NAMED = {"getattr", "hasattr", "setattr", "delattr"}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined(tree: ast.Module) -> set[str]:
    """The private names a module defines: at its top level and in its classes."""
    names: set[str] = set()
    for node in tree.body:
        names.update(_bound(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                names.update(_bound(member))
            for inner in ast.walk(node):
                for target in _targets(inner):
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id in ("self", "cls")
                    ):
                        names.add(target.attr)
    return {name for name in names if _is_private(name)}


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _bound(node: ast.stmt) -> Iterator[str]:
    """The names a statement at a module's or a class's top binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(node, ast.If):
        for branch in (*node.body, *node.orelse):
            yield from _bound(branch)
    for target in _targets(node):
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                yield name.id


def _accesses(tree: ast.Module) -> Iterator[tuple[int, ast.expr, str]]:
    """Each access to a private member: (line, the object, the name)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            yield node.lineno, node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _NAMED
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
        ):
            yield node.lineno, node.args[0], node.args[1].value


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text())
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _offences(modules: dict[str, ast.Module]) -> list[str]:
    defined = {module: _defined(tree) for module, tree in modules.items()}
    anywhere = set().union(*defined.values())
    found: list[tuple[str, int, str]] = []
    for module, tree in modules.items():
        for line, owner, name in _accesses(tree):
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if name in defined[module]:
                continue
            if name in PUBLIC_OUTSIDE and name not in anywhere:
                continue
            if (module, name) in PRIVATE_OUTSIDE:
                continue
            found.append((module, line, f"{ast.unparse(owner)}.{name}"))
    return [f"{module}:{line}: {access}" for module, line, access in sorted(found)]


def test_no_module_reads_another_modules_private_members() -> None:
    assert _offences(_modules()) == []


def test_every_outside_private_name_listed_is_still_reached() -> None:
    # A listed reach the package no longer makes is a door left open for nothing.
    reached = {
        (module, name) for module, tree in _modules().items() for _, _, name in _accesses(tree)
    }
    assert set(PRIVATE_OUTSIDE) - reached == set()


def test_the_scan_finds_a_private_member_read_from_another_module() -> None:
    modules = {
        "clock.py": ast.parse("class Clock:\n    def _tick(self):\n        self._now = 0\n"),
        "loop.py": ast.parse(
            "def run(clock, self):\n"
            "    clock._tick()\n"
            "    getattr(clock, '_now')\n"
            "    self._tick()\n"
            "    clock._replace()\n"
        ),
    }
    assert _offences(modules) == ["loop.py:2: clock._tick", "loop.py:3: clock._now"]
