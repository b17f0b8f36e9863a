"""AWS partitions: which one a region belongs to, and the DNS suffix of its endpoints.

The table is botocore's ``partitions.json``, vendored in ``data/`` (its version is in
NOTICE) rather than read from the installed botocore: the ARNs the emulator writes, into
responses and into state files, must not change with the botocore a test run happens to
have (older releases know neither ``aws-iso-f`` nor ``aws-eusc``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_DATA = Path(__file__).parent / "data" / "partitions.json"

#: Where a region matches no partition (the emulator accepts any region name), as botocore.
DEFAULT_PARTITION = "aws"


@dataclass(frozen=True)
class Partition:
    """One partition: its name in ARNs, its endpoints' DNS suffix, the regions it holds."""

    name: str
    dns_suffix: str
    regions: frozenset[str]
    region_pattern: re.Pattern[str]


def _load() -> tuple[Partition, ...]:
    table = json.loads(_DATA.read_text(encoding="utf-8"))
    return tuple(
        Partition(
            name=entry["id"],
            dns_suffix=entry["outputs"]["dnsSuffix"],
            regions=frozenset(entry["regions"]),
            region_pattern=re.compile(entry["regionRegex"]),
        )
        for entry in table["partitions"]
    )


PARTITIONS: tuple[Partition, ...] = _load()
_BY_NAME = {partition.name: partition for partition in PARTITIONS}

#: A regular expression (no group) that matches exactly the name of a known partition.
#: Longest first, so that no name is taken for a shorter one it begins with.
PARTITION_NAME = "(?:{})".format(
    "|".join(re.escape(name) for name in sorted(_BY_NAME, key=len, reverse=True))
)


@lru_cache(maxsize=256)
def partition_for_region(region: str) -> str:
    """The partition ``region`` belongs to: the one listing it, else the first whose region
    pattern it matches (botocore's order of lookup), else ``aws``."""
    for partition in PARTITIONS:
        if region in partition.regions:
            return partition.name
    for partition in PARTITIONS:
        if partition.region_pattern.search(region):
            return partition.name
    return DEFAULT_PARTITION


def dns_suffix_for_partition(partition: str) -> str:
    """The DNS suffix of the known partition ``partition``'s endpoints."""
    return _BY_NAME[partition].dns_suffix
