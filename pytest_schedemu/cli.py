"""The ``schedemu`` command line."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    print("usage: schedemu serve", file=sys.stderr)
    return 2
