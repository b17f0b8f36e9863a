"""The resource model: frozen records of schedules, groups and targets.

Records use AWS spelling only where they hold raw request blocks that are echoed back
verbatim (the target's parameter blocks); everything else is snake_case Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from pytest_schedemu.formats.times import floor_epoch
from pytest_schedemu.model.arns import schedule_arn, schedule_group_arn
from pytest_schedemu.model.slots import slotted

DEFAULT_GROUP = "default"
DEFAULT_ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"

#: How far in the past a recurring schedule's StartDate may lie when it is set (§2.3 step 7).
START_DATE_GRACE = timedelta(minutes=5)

DEFAULT_MAXIMUM_EVENT_AGE_IN_SECONDS = 86400
DEFAULT_MAXIMUM_RETRY_ATTEMPTS = 185

# The parameter blocks a Target may carry, in the model's (alphabetical) order.
PARAMETER_BLOCKS: tuple[str, ...] = (
    "EcsParameters",
    "EventBridgeParameters",
    "EventBridgePutEventsV2Parameters",
    "EventBridgePutRawEventsParameters",
    "KinesisParameters",
    "SageMakerPipelineParameters",
    "SqsParameters",
)


@slotted
@dataclass(frozen=True)
class RetryPolicy:
    maximum_event_age_in_seconds: int = DEFAULT_MAXIMUM_EVENT_AGE_IN_SECONDS
    maximum_retry_attempts: int = DEFAULT_MAXIMUM_RETRY_ATTEMPTS

    @classmethod
    def from_request(cls, block: Mapping[str, Any] | None) -> RetryPolicy:
        """The policy of a validated ``RetryPolicy`` block (Scheduler's and EventBridge's
        share its members and defaults); the defaults without one."""
        block = block or {}
        return retry_policy(
            block.get("MaximumEventAgeInSeconds", DEFAULT_MAXIMUM_EVENT_AGE_IN_SECONDS),
            block.get("MaximumRetryAttempts", DEFAULT_MAXIMUM_RETRY_ATTEMPTS),
        )


# Records are frozen, so equal ones may be one object: most targets share a handful of
# policies and windows, and one each would cost more than a schedule's own fields.
@lru_cache(maxsize=1024)
def retry_policy(maximum_event_age_in_seconds: int, maximum_retry_attempts: int) -> RetryPolicy:
    """The one policy of these values."""
    return RetryPolicy(maximum_event_age_in_seconds, maximum_retry_attempts)


def dead_letter_arn(config: Mapping[str, Any] | None) -> str | None:
    """The queue ARN of a target's ``DeadLetterConfig`` block, if it names one."""
    arn = None if config is None else config.get("Arn")
    return arn if isinstance(arn, str) else None


@slotted
@dataclass(frozen=True)
class Target:
    """A schedule's target as stored.

    ``dead_letter_config`` and the entries of ``parameters`` are the request's JSON objects,
    kept exactly as sent (AWS member names), because GetSchedule echoes them unchanged and
    the materialized request reads them by their AWS names.
    """

    arn: str
    role_arn: str
    input: str | None = None
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    dead_letter_config: Mapping[str, Any] | None = None
    parameters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def dead_letter_arn(self) -> str | None:
        return dead_letter_arn(self.dead_letter_config)


@slotted
@dataclass(frozen=True)
class FlexibleTimeWindow:
    mode: str = "OFF"
    maximum_window_in_minutes: int | None = None


@lru_cache(maxsize=1024)
def flexible_time_window(mode: str, maximum_window_in_minutes: int | None) -> FlexibleTimeWindow:
    """The one window of these values."""
    return FlexibleTimeWindow(mode, maximum_window_in_minutes)


# The last instant turned into its epoch second, and the second: schedules changed at one
# instant (a service sees many while its clock stands still) keep one integer between them.
_last_second: tuple[datetime, int] | None = None


def _epoch_second(instant: datetime) -> int:
    global _last_second
    last = _last_second
    if last is not None and last[0] is instant:
        return last[1]
    second = floor_epoch(instant)
    _last_second = (instant, second)
    return second


@slotted
@dataclass(frozen=True)
class Schedule:
    """One stored schedule (one incarnation; see ``incarnation``)."""

    account_id: str
    region: str
    group_name: str
    name: str
    schedule_expression: str
    flexible_time_window: FlexibleTimeWindow
    target: Target
    creation_date: datetime
    last_modification_date: datetime
    incarnation: int
    timezone: str = "UTC"
    state: str = "ENABLED"
    action_after_completion: str = "NONE"
    description: str | None = None
    start_date: datetime | None = None
    end_date: datetime | None = None
    kms_key_arn: str | None = None

    @property
    def arn(self) -> str:
        return schedule_arn(self.region, self.account_id, self.group_name, self.name)

    @property
    def enabled(self) -> bool:
        return self.state == "ENABLED"

    @property
    def label(self) -> str:
        """What it is called to a person: ``group/name``."""
        return f"{self.group_name}/{self.name}"

    @property
    def eligible_from(self) -> int:
        """The first epoch second its expression may fire at, as defined: a schedule fires
        from the second it was created or last updated (§4.7)."""
        return _epoch_second(self.last_modification_date)

    @property
    def of_rule(self) -> tuple[str, str] | None:
        """The ARN and name of the rule whose target this is; None for a schedule."""
        return None


@slotted
@dataclass(frozen=True)
class ScheduleGroup:
    account_id: str
    region: str
    name: str
    creation_date: datetime
    last_modification_date: datetime
    state: str = "ACTIVE"
    tags: tuple[tuple[str, str], ...] = ()

    @property
    def arn(self) -> str:
        return schedule_group_arn(self.region, self.account_id, self.name)


def default_group(account_id: str, region: str, created_at: datetime) -> ScheduleGroup:
    """The group every partition holds from the moment the state was created or reset."""
    return ScheduleGroup(account_id, region, DEFAULT_GROUP, created_at, created_at)
