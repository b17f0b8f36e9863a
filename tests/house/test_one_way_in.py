"""Every group, schedule, rule and rule target comes into being in the command layer.

The command layer (``commands/``) is the one way in: the Scheduler and EventBridge APIs,
a stack's load and a state import all reach it, so a check added there holds for every
door. The records are made nowhere else in the package, but where they are defined
(``model/``: its default group, its projections) and where a stored row is read back as
the record it was written from (``persistence``'s codec of rows): that one remakes a
record already checked once, with its incarnation and dates, and never makes a new one.
The store takes the records it is handed and changes them only with ``dataclasses.replace``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__import__("pytest_schedemu").__file__).parent

#: The records of the resources a client creates, and the modules that define them.
RECORDS = {
    "pytest_schedemu.model.resources": {"Schedule", "ScheduleGroup"},
    "pytest_schedemu.model.rules": {"Rule", "RuleTarget"},
}
#: Where they may be made: the command layer, the model, and the codec of stored rows.
MAKERS = ("pytest_schedemu.commands", "pytest_schedemu.model")
DECODERS = {"pytest_schedemu.persistence.codec", "pytest_schedemu.persistence.rule_rows"}


def constructions(source: str) -> list[str]:
    """``line: Name`` of each call in ``source`` that makes one of ``RECORDS``, by its
    name as imported (aliases included) or through its module."""
    tree = ast.parse(source)
    names: dict[str, str] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                bound = alias.asname or alias.name
                if alias.name in RECORDS.get(node.module, ()):
                    names[bound] = alias.name
                if f"{node.module}.{alias.name}" in RECORDS:
                    modules[bound] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in RECORDS:
                    modules[alias.asname or alias.name] = alias.name
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        made = None
        if isinstance(node.func, ast.Name):
            made = names.get(node.func.id)
        elif isinstance(node.func, ast.Attribute):
            owner = ast.unparse(node.func.value)
            if node.func.attr in RECORDS.get(modules.get(owner, owner), ()):
                made = node.func.attr
        if made is not None:
            found.append(f"{node.lineno}: {made}")
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_only_the_command_layer_makes_groups_schedules_rules_and_targets() -> None:
    made_elsewhere = {
        module: found
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (module := _module(path)).startswith(MAKERS) and module not in DECODERS
        if (found := constructions(path.read_text(encoding="utf-8")))
    }
    assert made_elsewhere == {}


def test_the_makers_and_decoders_named_exist_and_do_make_records() -> None:
    modules = {_module(path): path for path in PACKAGE.rglob("*.py")}
    assert modules.keys() >= DECODERS
    for name in (*DECODERS, "pytest_schedemu.commands.schedules"):
        assert constructions(modules[name].read_text(encoding="utf-8")), name


def test_a_construction_is_found_however_the_class_is_imported() -> None:
    source = (
        "import pytest_schedemu.model.rules as rules\n"
        "from pytest_schedemu.model import resources\n"
        "from pytest_schedemu.model.resources import Schedule as Made, Target\n"
        "Made(1)\n"
        "resources.ScheduleGroup(2)\n"
        "rules.RuleTarget(3)\n"
        "pytest_schedemu.model.rules.Rule(4)\n"
        "Target(5)\n"
        "dataclasses.replace(schedule, name='x')\n"
    )
    assert constructions(source) == [
        "4: Schedule",
        "5: ScheduleGroup",
        "6: RuleTarget",
        "7: Rule",
    ]
