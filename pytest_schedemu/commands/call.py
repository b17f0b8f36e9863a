"""Who makes a change, and when."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Call:
    """Who is calling and when: the (account, region) partition and the virtual now."""

    account_id: str
    region: str
    now: datetime
