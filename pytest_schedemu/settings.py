"""The emulator's behaviour settings, with the defaults of the reference behaviour."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pytest_schedemu.model import DEFAULT_ACCOUNT_ID, DEFAULT_REGION

PAST_AT_POLICIES = ("fire", "skip", "reject")
FLEXIBLE_OFFSET_MODES = ("hash", "zero")
DEFAULT_SQS_QUEUE_URL_TEMPLATE = "https://sqs.{region}.{dns_suffix}/{account}/{name}"


@dataclass
class Settings:
    """Shared by the API, the store and the dispatcher; changed only by ``configure``."""

    region: str = DEFAULT_REGION
    account_id: str = DEFAULT_ACCOUNT_ID
    seed: int = 0
    past_at: str = "fire"
    flexible_offsets: str = "hash"
    sqs_queue_url_template: str = DEFAULT_SQS_QUEUE_URL_TEMPLATE
    group_deletion_delay: float = 0
    max_schedules: int = 10_000_000
    max_schedule_groups: int = 500
    max_attempts_per_advance: int | None = 5_000_000
    #: Check SigV4 signatures against ``credentials`` (access key id -> secret key).
    verify_signatures: bool = False
    credentials: dict[str, str] = dataclasses.field(default_factory=dict)

    def configure(self, **changes: Any) -> None:
        """Change settings in place, all or none: a bad value raises and changes nothing."""
        candidate = dataclasses.replace(self, **changes)
        for name in changes:
            setattr(self, name, getattr(candidate, name))

    def __post_init__(self) -> None:
        if self.past_at not in PAST_AT_POLICIES:
            raise ValueError(f"Unsupported past_at {self.past_at!r}: use one of {PAST_AT_POLICIES}")
        if self.flexible_offsets not in FLEXIBLE_OFFSET_MODES:
            raise ValueError(
                f"Unsupported flexible_offsets {self.flexible_offsets!r}: "
                f"use one of {FLEXIBLE_OFFSET_MODES}"
            )
        if not (len(self.account_id) == 12 and self.account_id.isdigit()):
            raise ValueError(f"Unsupported account_id {self.account_id!r}: expected 12 digits")
        if self.group_deletion_delay < 0:
            raise ValueError(
                f"Unsupported group_deletion_delay {self.group_deletion_delay!r}: "
                "expected seconds >= 0"
            )
