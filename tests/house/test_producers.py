"""What makes occurrences is asked through one interface: no module but the producers'
own (``dispatch/producers/``) tells a schedule from a rule's target by its type.

Planning, the queue, settlement, bulk play, the state interface, persistence and the
records read what a producer says of itself (its identity, ladder, dead letter...), so
that a new kind of producer plugs in without touching them. A branch on a producer's type
(``isinstance`` or ``issubclass`` of a producer class, of a rule target's plan or of its
definition) anywhere else is the first step back.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent
PRODUCERS = PACKAGE / "dispatch" / "producers"
#: A rule target's prepared target and its definition, which only its producer makes.
RULE_TARGET_KINDS = {"RuleTargetPlan", "RuleTargetSchedule"}


def producer_kinds() -> set[str]:
    """Every class the producers' package defines, and the rule target's own types."""
    kinds = set(RULE_TARGET_KINDS)
    for path in PRODUCERS.glob("*.py"):
        tree = ast.parse(path.read_text())
        kinds.update(node.name for node in tree.body if isinstance(node, ast.ClassDef))
    return kinds


def _names(node: ast.expr) -> Iterator[str]:
    """The class names a type test's second argument names: ``A``, ``m.A``, ``(A, B)``,
    ``A | B``."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _names(element)
    elif isinstance(node, ast.BinOp):
        yield from _names(node.left)
        yield from _names(node.right)


def type_tests(path: Path, kinds: set[str]) -> list[str]:
    """Where ``path`` tests a value's type against one of ``kinds``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
            found += [f"{where} {name}" for name in _names(node.args[1]) if name in kinds]
    return found


def test_the_kinds_looked_for_are_the_producers() -> None:
    assert {"Producer", "ScheduleProducer", "RuleTargetProducer"} <= producer_kinds()


def test_no_module_outside_the_producers_asks_which_kind_it_holds() -> None:
    kinds = producer_kinds()
    found = [
        test
        for path in sorted(PACKAGE.rglob("*.py"))
        if PRODUCERS not in path.parents
        for test in type_tests(path, kinds)
    ]
    assert found == []
