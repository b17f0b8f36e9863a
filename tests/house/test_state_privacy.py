"""The store owns its partitions, and each partition its records and their order.

Paging needs each partition's sorted key lists to agree with its dicts; only the
partition's own methods keep them in step. So nothing outside ``state/`` may reach into a
private attribute of the store or of a partition (persistence, the API, the dispatcher and
the read side use the store's public reads), and only the state wing sees a partition at
all.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.state.partition import RegionState
from pytest_schedemu.state.store import Store

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent
ROOT = PACKAGE.parent
STATE = PACKAGE / "state"
PARTITION = "pytest_schedemu.state.partition"


def _private_names() -> set[str]:
    """Every private attribute and method of the store and of a partition."""
    instances = (Store(EPOCH), RegionState("123456789012", "us-east-1", EPOCH))
    names = {name for instance in instances for name in vars(instance)}
    names |= {name for kind in (Store, RegionState) for name in vars(kind)}
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


PRIVATE = _private_names()


def _outside_state() -> list[Path]:
    paths = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    paths += (ROOT / "benchmarks").rglob("*.py")
    return [path for path in paths if STATE not in path.parents]


def _reaching_in(tree: ast.AST) -> list[str]:
    """``x._name`` and ``getattr(x, "_name")`` of a private name, on anything but the
    module's own object (``self``, ``cls``)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PRIVATE:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in PRIVATE
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f"line {line}: {text}" for line, text in sorted(found)]


def test_the_scan_knows_the_partitions_records() -> None:
    assert {"_groups", "_group_names", "_schedules", "_schedule_names"} <= PRIVATE
    assert {"_regions", "_partition", "_tokens"} <= PRIVATE


def test_the_scan_sees_a_reach_into_the_store() -> None:
    code = (
        "def f(self, store):\n"
        "    self._schedules.add(1)\n"
        "    store._regions.clear()\n"
        "    self._store._partition('a', 'r')._schedule_names.setdefault('g', [])\n"
        "    getattr(store, '_tokens')\n"
    )
    assert [line.split(":")[0] for line in _reaching_in(ast.parse(code))] == [
        "line 3",
        "line 4",
        "line 4",
        "line 5",
    ]


def test_nothing_outside_state_reaches_into_the_store_or_a_partition() -> None:
    reaching = {
        str(path.relative_to(ROOT)): found
        for path in _outside_state()
        if (found := _reaching_in(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert reaching == {}


def _sees_a_partition(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == PARTITION for alias in node.names)
    if not isinstance(node, ast.ImportFrom):
        return False
    names = {alias.name for alias in node.names}
    return (
        node.module == PARTITION
        or (node.module == "pytest_schedemu.state" and "partition" in names)
        or "RegionState" in names
    )


def test_only_the_state_wing_sees_a_partition() -> None:
    seeing = [
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        if STATE not in path.parents
        and any(map(_sees_a_partition, ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
    ]
    assert seeing == []
