"""Re-vendor the botocore files the emulator pins: ``python -m pytest_schedemu.api.vendor``.

The emulator answers from copies of botocore's files rather than from the installed
botocore (see ``validation`` and ``model.partitions``): the EventBridge Scheduler service
model (``service-2.json``, which botocore ships gzip-compressed and which is kept here
decompressed, byte for byte, and ``paginators-1.json``) and the partition table
(``partitions.json``). This tool copies all three from the installed botocore, records its
version in ``api/data/scheduler/botocore-version.txt`` (one version for the three files)
and rewrites the versions NOTICE names.

``--check`` changes nothing: it lists what differs between the vendored files and the
installed botocore's, documentation aside, and exits 1 when anything does. The model-drift
test (``tests/model/test_model_drift.py``) makes the same comparison.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import botocore

API_VERSION = "2021-06-30"
_PACKAGE = Path(__file__).resolve().parents[1]

#: Keys whose values are prose: a change to them alone changes nothing the emulator does.
DOCUMENTATION_KEYS = frozenset({"documentation", "documentationUrl"})

# The two places NOTICE names the release: the service model's paragraph, the table's.
_NOTICE_VERSIONS = (
    re.compile(r"(as\s+published\s+in\s+botocore\s+)(\d+(?:\.\d+)+)()"),
    re.compile(r"(is\s+botocore\s+)(\d+(?:\.\d+)+)('s\s+partition\s+table)"),
)


@dataclass(frozen=True)
class Layout:
    """Where the vendored files live: in the package (and NOTICE beside it), or in a copy."""

    package: Path
    notice: Path

    @classmethod
    def of_package(cls) -> Layout:
        return cls(_PACKAGE, _PACKAGE.parent / "NOTICE")

    @property
    def scheduler(self) -> Path:
        return self.package / "api" / "data" / "scheduler"

    @property
    def service(self) -> Path:
        return self.scheduler / API_VERSION / "service-2.json"

    @property
    def paginators(self) -> Path:
        return self.scheduler / API_VERSION / "paginators-1.json"

    @property
    def partitions(self) -> Path:
        return self.package / "model" / "data" / "partitions.json"

    @property
    def sdk_service_names(self) -> Path:
        return self.package / "targets" / "data" / "sdk-service-names.json"

    @property
    def version_file(self) -> Path:
        return self.scheduler / "botocore-version.txt"

    def version(self) -> str:
        """The botocore release the vendored files come from."""
        return self.version_file.read_text(encoding="utf-8").strip()


@dataclass(frozen=True)
class Botocore:
    """An installed botocore's data folder and its version."""

    data: Path
    version: str

    @classmethod
    def installed(cls) -> Botocore:
        return cls(Path(str(botocore.__file__)).parent / "data", str(botocore.__version__))

    def service(self) -> bytes:
        """The scheduler model's bytes, decompressed when botocore ships it gzipped."""
        folder = self.data / "scheduler" / API_VERSION
        compressed = folder / "service-2.json.gz"
        if compressed.exists():
            return gzip.decompress(compressed.read_bytes())
        return (folder / "service-2.json").read_bytes()

    def paginators(self) -> bytes:
        return (self.data / "scheduler" / API_VERSION / "paginators-1.json").read_bytes()

    def partitions(self) -> bytes:
        return (self.data / "partitions.json").read_bytes()

    def sdk_service_names(self) -> bytes:
        """The table universal targets name services by (``targets/kinds.py``): the SDKs'
        service identifier -> botocore's name, where they differ, from every service's
        newest model. It follows from the models, so it is written when vendoring and
        not compared: the drift test compares the files it comes with."""
        names: dict[str, str] = {}
        for folder in sorted(self.data.iterdir()):
            models = sorted(folder.glob("*/service-2.json*"))
            if not folder.is_dir() or not models:
                continue
            newest = models[-1]
            data = newest.read_bytes()
            if newest.suffix == ".gz":
                data = gzip.decompress(data)
            service_id = json.loads(data)["metadata"]["serviceId"]
            identifier = service_id.replace(" ", "").replace("-", "").lower()
            if identifier != folder.name:
                names[identifier] = folder.name
        return (json.dumps(names, indent=1, sort_keys=True) + "\n").encode("utf-8")


def version_key(version: str) -> tuple[int, ...]:
    """A release's number for comparing releases: ``1.44.18`` is ``(1, 44, 18)``."""
    found = re.match(r"\d+(?:\.\d+)*", version)
    if found is None:
        raise ValueError(f"not a release number: {version!r}")
    return tuple(int(part) for part in found.group().split("."))


def rewrite_notice(text: str, version: str) -> str:
    """NOTICE with both of the releases it names made ``version``."""
    for pattern in _NOTICE_VERSIONS:
        text, count = pattern.subn(lambda found: found[1] + version + found[3], text)
        if count != 1:
            raise ValueError(f"NOTICE names the release {count} times where {pattern.pattern!r}")
    return text


def vendor(layout: Layout, source: Botocore) -> None:
    """Copy ``source``'s files into ``layout`` and record its version there and in NOTICE."""
    notice = rewrite_notice(layout.notice.read_text(encoding="utf-8"), source.version)
    layout.service.write_bytes(source.service())
    layout.paginators.write_bytes(source.paginators())
    layout.partitions.write_bytes(source.partitions())
    layout.sdk_service_names.write_bytes(source.sdk_service_names())
    layout.version_file.write_text(source.version + "\n", encoding="utf-8")
    layout.notice.write_text(notice, encoding="utf-8")


def changed_files(layout: Layout, source: Botocore) -> list[str]:
    """The vendored files whose bytes are not ``source``'s."""
    pairs = (
        (layout.service, source.service()),
        (layout.paginators, source.paginators()),
        (layout.partitions, source.partitions()),
    )
    return [
        str(path.relative_to(layout.package.parent))
        for path, data in pairs
        if path.read_bytes() != data
    ]


# -- differences -------------------------------------------------------------------------


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


def differences(layout: Layout, source: Botocore) -> list[str]:
    """Every difference, documentation aside, between ``layout``'s files and ``source``'s."""

    def load(data: bytes) -> Any:
        return json.loads(data.decode("utf-8"))

    return (
        model_differences(load(layout.service.read_bytes()), load(source.service()))
        + paginator_differences(load(layout.paginators.read_bytes()), load(source.paginators()))
        + partition_differences(load(layout.partitions.read_bytes()), load(source.partitions()))
    )


def check(layout: Layout, source: Botocore, out: TextIO) -> int:
    """Write to ``out`` how ``layout``'s files differ from ``source``'s; 1 if they do."""
    recorded = layout.version() if layout.version_file.exists() else "unrecorded"
    out.write(f"vendored: botocore {recorded}; installed: botocore {source.version}\n")
    lines = differences(layout, source)
    changed = changed_files(layout, source)
    if not lines and changed and recorded == source.version:
        lines = [
            f"{path} differs from botocore {recorded}'s, the release recorded" for path in changed
        ]
    for line in lines:
        out.write(line + "\n")
    if not lines:
        out.write("only documentation differs\n" if changed else "no differences\n")
    return 1 if lines else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_schedemu.api.vendor",
        description="Copy the installed botocore's scheduler model, paginators and partition "
        "table into the package, and record its version.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the differences and exit 1 when there are any",
    )
    arguments = parser.parse_args(argv)
    layout, source = Layout.of_package(), Botocore.installed()
    if arguments.check:
        return check(layout, source, sys.stdout)
    if not layout.notice.exists():
        parser.error(f"no NOTICE at {layout.notice}: re-vendor in a checkout of the project")
    previous = layout.version() if layout.version_file.exists() else "unrecorded"
    lines = differences(layout, source)
    vendor(layout, source)
    print(f"vendored botocore {source.version} (was {previous})")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
