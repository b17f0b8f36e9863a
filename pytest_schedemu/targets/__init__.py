"""Targets: what each kind of target is, how it is checked, and what it is sent (§5.9 to §5.12).

A pure wing, like ``expressions``: the API uses it to check a CreateSchedule's target, the
dispatcher to render each attempt's request and judge each error; it imports neither.
"""

from pytest_schedemu.targets.checks import check_target
from pytest_schedemu.targets.classify import RETRYABLE_ERROR_CODES, classify_error
from pytest_schedemu.targets.kinds import (
    GENERIC,
    KINDS,
    UNIVERSAL,
    KindSpec,
    TargetKind,
    control_keys,
    decode_blobs,
    missing_target_error,
    queue_url,
    target_kind,
    target_operation,
)
from pytest_schedemu.targets.plan import TargetPlan, plan_target
from pytest_schedemu.targets.render import MaterializedRequest

__all__ = [
    "GENERIC",
    "KINDS",
    "RETRYABLE_ERROR_CODES",
    "UNIVERSAL",
    "KindSpec",
    "MaterializedRequest",
    "TargetKind",
    "TargetPlan",
    "check_target",
    "classify_error",
    "control_keys",
    "decode_blobs",
    "missing_target_error",
    "plan_target",
    "queue_url",
    "target_kind",
    "target_operation",
]
