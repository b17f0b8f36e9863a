"""The shape of the package: which part may import which, and how big a module may grow.

The flow is ``api/ -> state/ <- dispatch/ -> targets/``, with ``expressions/``, ``model/``,
``formats/`` and ``settings/`` below and ``records/`` beside; ``wire/`` and ``plugin/`` are the
ways in. The top level holds only the entry points. No import circle between wings, nor
between modules, each wing imports only what sits below it, and no module but the vendored
service model grows past 600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent
MAX_LINES = 600


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


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(module: str, path: Path) -> set[str]:
    """The package's modules ``module`` imports when it runs: at its top, and inside its
    functions and methods too (a lazy import runs all the same, only later), but not under
    ``if TYPE_CHECKING:``, which only a type checker reads. ``from package import name``
    counts as an import of the submodule ``package.name`` when there is one, else of the
    package. Importing ``a.b`` also runs ``a/__init__``, which is not counted: a package's
    ``__init__`` is part of the import machinery, not of the circle."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for branch in child.orelse:
                    visit_statement(branch)
                continue
            visit_statement(child)

    def visit_statement(node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *filter(None, [base])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        visit(node)

    visit(ast.parse(path.read_text()))
    return {name for name in found if name in MODULES and name != module}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_module_imports_itself_through_others() -> None:
    graph = {module: _runtime_imports(module, path) for module, path in MODULES.items()}
    assert _cycles(graph) == []


#: What each wing may import, from the bottom up. The top level (``__init__``, the
#: ``Emulator`` facade, the command line) wires the wings and may import any of them.
ALLOWED = {
    "formats": {"errors"},
    "model": {"formats", "errors"},
    "timekeeping": {"formats", "errors"},
    "expressions": {"formats", "errors"},
    "settings": {"formats", "model", "errors"},
    "delivery": {"formats", "model", "errors"},
    # Which IAM action each target kind needs, and the verdict on an attempt (iam).
    "targets": {"formats", "model", "settings", "expressions", "iam", "errors"},
    # What IAM the stacks and the user declared is state, evaluated by the iam wing.
    "state": {"formats", "model", "settings", "iam", "errors"},
    # Pure: templates read and resolved; partitions and ARNs from model, as everywhere; the
    # IAM a stack declares read into the iam wing's policies.
    "stacks": {"formats", "model", "iam", "errors"},
    # Pure: policies in, a decision out (may P do A on R?); its caller caches and wires it.
    "iam": {"formats", "model", "errors"},
    # Pure, but ARNs are read by model's one parser, as everywhere.
    "timeline": {"formats", "model", "expressions", "_version", "errors"},
    # The read side: what happened, its queries and assertions; it never sees the store.
    "records": {
        "formats",
        "model",
        "settings",
        "expressions",
        "targets",
        "timekeeping",
        "timeline",
        "errors",
    },
    "dispatch": {
        "formats",
        "model",
        "settings",
        "expressions",
        "targets",
        "iam",
        "timekeeping",
        "delivery",
        "state",
        "records",
        "errors",
    },
    # What the AWS APIs on the endpoint share: bodies, models, validation, paging, SigV4.
    "protocol": {"formats", "errors"},
    # The one way in: every create, update and delete, with the operations' semantic
    # checks (expressions, targets) and all-or-nothing batches; below every door.
    "commands": {"formats", "model", "settings", "expressions", "targets", "state", "errors"},
    # The APIs tell the store, through commands; none reaches into the dispatcher.
    "events_api": {
        "formats",
        "model",
        "settings",
        "expressions",
        "timekeeping",
        "state",
        "protocol",
        "commands",
        "errors",
    },
    "scheduler_api": {
        "formats",
        "model",
        "settings",
        "expressions",
        "targets",
        "timekeeping",
        "state",
        "protocol",
        "commands",
        "events_api",
        "errors",
    },
    # A stack's (or a state file's) resources made real through the APIs' own checks.
    # A loaded stack's check reads the clock's planning (expressions) and IAM's verdict on
    # an attempt (targets), as delivery does; the functions of a stack that runs them go to
    # the functions' catalogue.
    "provisioning": {
        "formats",
        "model",
        "settings",
        "expressions",
        "targets",
        "stacks",
        "iam",
        "state",
        "protocol",
        "commands",
        "scheduler_api",
        "events_api",
        "functions",
        "errors",
    },
    # A stack's own Lambda functions: read from its templates (stacks), found on disk, and
    # their handlers run in process under the handler deadline (delivery); Lambda's
    # asynchronous invocation: its retries are work on the dispatcher's clock
    # (``dispatch.producers.TimedWork``), its runs records, its destinations' SQS messages
    # dead letters, found by the targets' ARNs.
    "functions": {
        "formats",
        "model",
        "settings",
        "stacks",
        "delivery",
        "dispatch",
        "records",
        "targets",
        "errors",
    },
    "control_api": {
        "formats",
        "model",
        "settings",
        "targets",
        "timekeeping",
        "timeline",
        "delivery",
        "records",
        "stacks",
        "protocol",
        "provisioning",
        "_version",
        "errors",
    },
    # Persistence observes the state; nothing below it knows that it exists.
    "persistence": {
        "formats",
        "model",
        "settings",
        "targets",
        "timekeeping",
        "state",
        "records",
        "dispatch",
        "_version",
        "errors",
    },
    # A function's handler's requests are kept in the process (functions.calling).
    "wire": {
        "formats",
        "settings",
        "functions",
        "protocol",
        "scheduler_api",
        "events_api",
        "control_api",
        "errors",
    },
    "plugin": {
        "formats",
        "settings",
        "timekeeping",
        "records",
        "wire",
        "emulator",
        "_version",
        "errors",
    },
}
TOP_LEVEL = {"__init__", "__main__", "_version", "emulator", "cli", "errors"}
#: The one module of the dispatcher persistence may see: each rule of planning and retrying
#: exists once, in the dispatcher, and a state file is written and read back through it.
STATE_INTERFACE = "pytest_schedemu.dispatch.state"


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_a_wing_imports_only_what_sits_below_it(part: str) -> None:
    assert _part_graph().get(part, set()) - ALLOWED[part] == set()


def test_persistence_sees_the_dispatcher_only_through_its_state_interface() -> None:
    assert STATE_INTERFACE in MODULES
    reached = {
        (module, imported)
        for module, path in MODULES.items()
        if _part(module) == "persistence"
        for imported in _imports(path)
        if _part(imported) == "dispatch" and imported != STATE_INTERFACE
    }
    assert reached == set()


def test_every_wing_has_its_place_in_the_order() -> None:
    wings = {
        path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()
    }
    assert wings == set(ALLOWED)


def test_the_top_level_holds_only_the_entry_points() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    assert modules == TOP_LEVEL
    assert len(modules) <= 10


def test_no_module_is_over_the_line_budget() -> None:
    sizes = {
        name: len(path.read_text().splitlines())
        for name, path in MODULES.items()
        if "data" not in path.parts
    }
    assert {name: size for name, size in sizes.items() if size > MAX_LINES} == {}


#: The prefixes by which modules of different subsystems once shared one folder: each
#: subsystem is a wing of its own now, and its folder says what a module serves.
SUBSYSTEM_PREFIXES = ("scheduler_", "events_", "control_", "stack_")


def test_no_module_says_by_a_prefix_which_subsystem_it_serves() -> None:
    prefixed = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.stem.startswith(SUBSYSTEM_PREFIXES)
    )
    assert prefixed == []


def test_the_maintainers_tools_are_not_in_the_package() -> None:
    # The re-vendoring script and its model diff run from a checkout (``python -m
    # tools.vendor``); a user's wheel has no use for them.
    shipped = {path.stem for path in PACKAGE.rglob("*.py")}
    assert {"vendor", "model_differences"} & shipped == set()
