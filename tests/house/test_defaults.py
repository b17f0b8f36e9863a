"""Every default is stated once, in the options table: no other module binds an option's
default value to a name that says it is that option (a constant, a parameter's default, a
keyword argument)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from pytest_schedemu.settings import options as table
from pytest_schedemu.settings.options import OPTIONS

PACKAGE = Path(table.__file__).parent.parent
TABLE = Path(table.__file__)


def _table_imports() -> set[tuple[str, str]]:
    """The (module, name) pairs the table reads its values from: those are its own."""
    found = set()
    for node in ast.walk(ast.parse(TABLE.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update((node.module, alias.name) for alias in node.names)
    return found


def _constant(node: ast.AST | None) -> Any:
    if isinstance(node, ast.Constant) and node.value is not None:
        return node.value
    return ...


def _bindings(tree: ast.AST) -> list[tuple[str, Any, int]]:
    """(name, constant value, line) of every name bound to a literal in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            defaults = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
            defaults += list(zip(args.kwonlyargs, args.kw_defaults))
            found += [(arg.arg, _constant(value), node.lineno) for arg, value in defaults]
        elif isinstance(node, ast.Assign):
            found += [
                (target.id, _constant(node.value), node.lineno)
                for target in node.targets
                if isinstance(target, ast.Name)
            ]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, _constant(node.value), node.lineno))
        elif isinstance(node, ast.keyword) and node.arg is not None:
            found.append((node.arg, _constant(node.value), node.value.lineno))
    return found


def _same(value: Any, default: Any) -> bool:
    # 0 is not False, but 60 is 60.0.
    if isinstance(value, bool) or isinstance(default, bool):
        return value is default
    return bool(value == default)


def _repeated_in(source: str, module: str, own: set[tuple[str, str]]) -> list[str]:
    """Where ``source`` binds an option's default to a name of that option."""
    repeated = []
    for name, value, line in _bindings(ast.parse(source)):
        if value is ... or (module, name) in own:
            continue
        for option in OPTIONS.values():
            named = option.name in name.lower()
            defaults = (d for d in (option.default, option.serve_default) if d is not None)
            if named and any(_same(value, default) for default in defaults):
                repeated.append(f"{module}:{line} {name} = {value!r}")
    return repeated


def test_no_module_but_the_table_repeats_a_default() -> None:
    own = _table_imports()
    repeated = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != TABLE:
            module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            repeated += _repeated_in(path.read_text(), module, own)
    assert repeated == []


def test_a_repeated_default_is_found() -> None:
    source = (
        "DEFAULT_MAX_CONNECTIONS = 256\n"
        "MAX_CONNECTIONS_SEEN = 3\n"
        "def serve(port=4566, *, connection_timeout=60, region=None): pass\n"
        "serve(log_requests=False, seed=1)\n"
    )
    assert [entry.split(" ", 1)[1] for entry in _repeated_in(source, "m", set())] == [
        "DEFAULT_MAX_CONNECTIONS = 256",
        "port = 4566",
        "connection_timeout = 60",
        "log_requests = False",
    ]
