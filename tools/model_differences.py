"""What changed between two copies of a botocore file, one line a change, documentation
aside: service models (operations, shapes, members, traits, metadata), paginators and the
partition table. ``vendor --check`` and the model-drift test list these lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

#: Keys whose values are prose: a change to them alone changes nothing the emulator does.
DOCUMENTATION_KEYS = frozenset({"documentation", "documentationUrl"})


def without_documentation(value: Any) -> Any:
    """``value`` with every documentation key removed, at any depth."""
    if isinstance(value, Mapping):
        return {
            key: without_documentation(item)
            for key, item in value.items()
            if key not in DOCUMENTATION_KEYS
        }
    if isinstance(value, list):
        return [without_documentation(item) for item in value]
    return value


def _show(value: Any) -> str:
    """A value for a line of differences: a string between quotes as it is, others as JSON."""
    if isinstance(value, str):
        text = f"'{value}'"
    else:
        text = json.dumps(without_documentation(value), sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."


def _keys(
    where: str, old: Mapping[str, Any], new: Mapping[str, Any], skip: Iterable[str] = ()
) -> list[str]:
    """One line per key, other than documentation and ``skip``, whose value changed."""
    lines = []
    for key in sorted((old.keys() | new.keys()) - DOCUMENTATION_KEYS - set(skip)):
        before, after = without_documentation(old.get(key)), without_documentation(new.get(key))
        if before == after:
            continue
        if key not in old:
            lines.append(f"{where}: {key} added: {_show(after)}")
        elif key not in new:
            lines.append(f"{where}: {key} removed (was {_show(before)})")
        else:
            lines.append(f"{where}: {key} {_show(before)} -> {_show(after)}")
    return lines


def _added_removed(where: str, what: str, old: Iterable[str], new: Iterable[str]) -> list[str]:
    before, after = set(old), set(new)
    return [f"{where}: {what} added: {name}" for name in sorted(after - before)] + [
        f"{where}: {what} removed: {name}" for name in sorted(before - after)
    ]


def _shape_differences(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    where = f"shape {name}"
    if old.get("type") != new.get("type"):
        return [f"{where}: type {old.get('type')} -> {new.get('type')}"]
    lines = _keys(where, old, new, skip=("members", "required", "enum"))
    lines += _added_removed(where, "enum value", old.get("enum", ()), new.get("enum", ()))
    members: Mapping[str, Any] = old.get("members", {})
    now: Mapping[str, Any] = new.get("members", {})
    for member in sorted(now.keys() - members.keys()):
        lines.append(f"{where}: member added: {member} (shape {now[member].get('shape')})")
    lines += [
        f"{where}: member removed: {member}" for member in sorted(members.keys() - now.keys())
    ]
    for member in sorted(members.keys() & now.keys()):
        before, after = members[member].get("shape"), now[member].get("shape")
        if before != after:
            lines.append(f"{where}: member {member}: shape {before} -> {after}")
        lines += _keys(f"{where}: member {member}", members[member], now[member], skip=("shape",))
    required, still = set(old.get("required", ())), set(new.get("required", ()))
    lines += [f"{where}: member {member} is now required" for member in sorted(still - required)]
    lines += [
        f"{where}: member {member} is no longer required" for member in sorted(required - still)
    ]
    return lines


def model_differences(vendored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What changed from the service model ``vendored`` to ``current``, one line a change:
    operations and shapes added or removed; members added, removed, of another shape, made
    required or optional; enum values, patterns, min/max and any other trait; metadata.
    Documentation is not compared: a model that changed only there has no differences."""
    lines = _keys("model", vendored, current, skip=("metadata", "operations", "shapes"))
    lines += _keys("metadata", vendored.get("metadata", {}), current.get("metadata", {}))
    operations, now = vendored.get("operations", {}), current.get("operations", {})
    lines += _added_removed("model", "operation", operations, now)
    for name in sorted(operations.keys() & now.keys()):
        lines += _keys(f"operation {name}", operations[name], now[name])
    shapes, now = vendored.get("shapes", {}), current.get("shapes", {})
    for name in sorted(now.keys() - shapes.keys()):
        lines.append(f"model: shape added: {name} ({now[name].get('type')})")
    lines += [f"model: shape removed: {name}" for name in sorted(shapes.keys() - now.keys())]
    for name in sorted(shapes.keys() & now.keys()):
        lines += _shape_differences(name, shapes[name], now[name])
    return lines


def paginator_differences(vendored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What changed from the paginators file ``vendored`` to ``current``."""
    old, new = vendored.get("pagination", {}), current.get("pagination", {})
    lines = _added_removed("paginators", "paginator", old, new)
    for name in sorted(old.keys() & new.keys()):
        lines += _keys(f"paginator {name}", old[name], new[name])
    return lines


def partition_differences(vendored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What changed from the partition table ``vendored`` to ``current``: partitions added or
    removed or reordered, and each one's regionRegex, outputs (dnsSuffix…) and regions.
    Region descriptions are prose and not compared."""
    old = {entry["id"]: entry for entry in vendored.get("partitions", [])}
    new = {entry["id"]: entry for entry in current.get("partitions", [])}
    lines = _keys("partitions", vendored, current, skip=("partitions",))
    for name in sorted(new.keys() - old.keys()):
        entry = new[name]
        suffix, regions = entry.get("outputs", {}).get("dnsSuffix"), entry.get("regions", {})
        lines.append(
            f"partition added: {name} (dnsSuffix {suffix}, "
            f"regionRegex {entry.get('regionRegex')}, regions {', '.join(regions)})"
        )
    lines += [f"partition removed: {name}" for name in sorted(old.keys() - new.keys())]
    order, now = [n for n in old if n in new], [n for n in new if n in old]
    if order != now:
        lines.append(f"partitions: order {', '.join(order)} -> {', '.join(now)}")
    for name in sorted(old.keys() & new.keys()):
        where = f"partition {name}"
        before, after = old[name], new[name]
        lines += _keys(where, before, after, skip=("outputs", "regions", "id"))
        lines += _keys(where, before.get("outputs", {}), after.get("outputs", {}))
        lines += _added_removed(
            where, "region", before.get("regions", {}), after.get("regions", {})
        )
    return lines
