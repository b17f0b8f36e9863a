"""Re-vendor the botocore files the emulator pins: ``python -m tools.vendor``.

The emulator answers from copies of botocore's files rather than from the installed
botocore (see ``validation`` and ``model.partitions``): the service models it serves
(``MODELS``: EventBridge Scheduler, and EventBridge for the rule operations; each a
``service-2.json``, which botocore ships gzip-compressed and which is kept here
decompressed, byte for byte, and its ``paginators-1.json``) and the partition table
(``partitions.json``). This tool copies them all from the installed botocore, records its
version in ``api/data/scheduler/botocore-version.txt`` (one version for every file) and
rewrites the versions NOTICE names.

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import botocore

from tools.model_differences import (
    model_differences,
    paginator_differences,
    partition_differences,
)

_PACKAGE = Path(__file__).resolve().parents[1] / "pytest_schedemu"


@dataclass(frozen=True)
class VendoredModel:
    """One service model the emulator serves: botocore's folder name and API version."""

    service: str
    api_version: str


SCHEDULER = VendoredModel("scheduler", "2021-06-30")
EVENTS = VendoredModel("events", "2015-10-07")
#: Every vendored model, in the order their differences are listed.
MODELS = (SCHEDULER, EVENTS)
#: The Scheduler model's API version (the first model the emulator served).
API_VERSION = SCHEDULER.api_version

# The two places NOTICE names the release: the service models' paragraph, the table's.
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

    def model_folder(self, model: VendoredModel) -> Path:
        return self.package / "protocol" / "data" / model.service / model.api_version

    def service_file(self, model: VendoredModel) -> Path:
        return self.model_folder(model) / "service-2.json"

    def paginators_file(self, model: VendoredModel) -> Path:
        return self.model_folder(model) / "paginators-1.json"

    @property
    def scheduler(self) -> Path:
        return self.package / "protocol" / "data" / "scheduler"

    @property
    def service(self) -> Path:
        """The Scheduler model."""
        return self.service_file(SCHEDULER)

    @property
    def paginators(self) -> Path:
        """The Scheduler model's paginators."""
        return self.paginators_file(SCHEDULER)

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

    def service(self, model: VendoredModel = SCHEDULER) -> bytes:
        """A model's bytes, decompressed when botocore ships it gzipped."""
        folder = self.data / model.service / model.api_version
        compressed = folder / "service-2.json.gz"
        if compressed.exists():
            return gzip.decompress(compressed.read_bytes())
        return (folder / "service-2.json").read_bytes()

    def paginators(self, model: VendoredModel = SCHEDULER) -> bytes:
        return (self.data / model.service / model.api_version / "paginators-1.json").read_bytes()

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
    for model in MODELS:
        layout.model_folder(model).mkdir(parents=True, exist_ok=True)
        layout.service_file(model).write_bytes(source.service(model))
        layout.paginators_file(model).write_bytes(source.paginators(model))
    layout.partitions.write_bytes(source.partitions())
    layout.sdk_service_names.write_bytes(source.sdk_service_names())
    layout.version_file.write_text(source.version + "\n", encoding="utf-8")
    layout.notice.write_text(notice, encoding="utf-8")


def changed_files(layout: Layout, source: Botocore) -> list[str]:
    """The vendored files whose bytes are not ``source``'s."""
    pairs = [
        pair
        for model in MODELS
        for pair in (
            (layout.service_file(model), source.service(model)),
            (layout.paginators_file(model), source.paginators(model)),
        )
    ]
    pairs.append((layout.partitions, source.partitions()))
    return [
        str(path.relative_to(layout.package.parent))
        for path, data in pairs
        if not path.exists() or path.read_bytes() != data
    ]


# -- differences -------------------------------------------------------------------------


def differences(layout: Layout, source: Botocore) -> list[str]:
    """Every difference, documentation aside, between ``layout``'s files and ``source``'s."""

    def load(data: bytes) -> Any:
        return json.loads(data.decode("utf-8"))

    def vendored(path: Path) -> Any:
        # A model not vendored yet differs in everything it holds.
        return load(path.read_bytes()) if path.exists() else {}

    lines: list[str] = []
    for model in MODELS:
        service, paginators = layout.service_file(model), layout.paginators_file(model)
        found = model_differences(vendored(service), load(source.service(model)))
        found += paginator_differences(vendored(paginators), load(source.paginators(model)))
        lines += [f"{model.service}: {line}" for line in found]
    return lines + partition_differences(
        load(layout.partitions.read_bytes()), load(source.partitions())
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
        prog="python -m tools.vendor",
        description="Copy the installed botocore's scheduler and events models, their "
        "paginators and the partition table into the package, and record its version.",
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
