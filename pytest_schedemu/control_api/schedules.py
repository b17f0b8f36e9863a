"""The control API's view of the stored schedules and groups, across every account and
region, in pages: what the dashboard lists.

``GET schedules?account_id=&region=&group=&state=&prefix=&include_deleted=&limit=&
next_token=`` answers ``{"schedules": [...], "next_token": ..., "total": <matches>}``,
ordered by account, region, group and name, each schedule with its next occurrence (in UTC
and on its own clock). With ``include_deleted=true`` the schedules deleted since the last
reset are listed too, with their last definition, ``state`` ``DELETED``, when
(``deleted_at``) and by what (``deleted_by``: ``DeleteSchedule``, ``DeleteScheduleGroup``
or ``ActionAfterCompletion``); ``state=DELETED`` lists only them. A stored schedule has
both null. ``GET groups?account_id=&region=`` answers ``{"groups": [...], "next_token":
...}`` with each group's schedule count. Tokens resume after the last key returned
(keyset), so schedules created or deleted between pages never make one repeat or skip
another.
"""

from __future__ import annotations

import bisect
import zoneinfo
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pytest_schedemu.control_api.records import Handler, limit_of
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint
from pytest_schedemu.records import Activity, Records
from pytest_schedemu.stacks.loaded import Stack
from pytest_schedemu.targets import target_kind, target_operation

DELETED = "DELETED"
STATES = ("ENABLED", "DISABLED", DELETED)
#: What removed a schedule, by the kind of the activity that recorded it and its detail.
_DELETED_BY = {
    ("auto_deleted", ""): "ActionAfterCompletion",
    ("deleted", "deleted"): "DeleteSchedule",
    ("deleted", "group_deleted"): "DeleteScheduleGroup",
}
_REMOVALS = frozenset(kind for kind, _ in _DELETED_BY)


def _query(query: dict[str, str], names: tuple[str, ...]) -> dict[str, str | None]:
    return {name: query.get(name) or None for name in names}


def _flag(filters: dict[str, str | None], name: str) -> bool:
    text = filters[name]
    if text not in (None, "true", "false"):
        raise ValidationException(f"Invalid {name} {text!r}: expected true or false")
    return text == "true"


def _key(schedule: Schedule) -> tuple[str, str, str, str]:
    """Where a schedule sorts in the list, and what a page token resumes after."""
    return (schedule.account_id, schedule.region, schedule.group_name, schedule.name)


def local_text(moment: datetime, zone_name: str) -> str:
    """An instant on a zone's wall clock, with the zone's abbreviation."""
    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return ""
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S %Z")


@dataclass(frozen=True)
class Removal:
    """When a deleted schedule went, and what removed it; both None when the activity that
    recorded it was dropped (``max_records``)."""

    at: datetime | None = None
    by: str | None = None

    @classmethod
    def of(cls, activity: Activity) -> Removal:
        return cls(activity.at, _DELETED_BY.get((activity.kind, activity.detail)))


def schedule_json(
    schedule: Schedule,
    next_occurrence: datetime | None,
    removal: Removal | None = None,
    origin: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A schedule as the list shows it; ``removal`` for one deleted since the last reset,
    ``origin`` the stack and logical id of the resource that defined it."""
    target = schedule.target
    kind = target_kind(target.arn)
    window = schedule.flexible_time_window
    return {
        "arn": schedule.arn,
        "name": schedule.name,
        "group_name": schedule.group_name,
        "account_id": schedule.account_id,
        "region": schedule.region,
        "state": schedule.state if removal is None else DELETED,
        "deleted_at": None if removal is None or removal.at is None else ztime(removal.at),
        "deleted_by": None if removal is None else removal.by,
        "schedule_expression": schedule.schedule_expression,
        "timezone": schedule.timezone,
        "description": schedule.description,
        "target_arn": target.arn,
        "stack": None if origin is None else origin[0],
        "logical_id": None if origin is None else origin[1],
        # What the target is and calls (a Custom Event Bus's ARN ends in its id, not its
        # name, and its operation depends on the target's parameters).
        "target_kind": kind.name,
        "target_resource": kind.resource,
        "target_operation": target_operation(kind, target.parameters),
        "dead_letter_arn": target.dead_letter_arn,
        "maximum_retry_attempts": target.retry_policy.maximum_retry_attempts,
        "maximum_event_age_in_seconds": target.retry_policy.maximum_event_age_in_seconds,
        "flexible_window_minutes": window.maximum_window_in_minutes,
        "action_after_completion": schedule.action_after_completion,
        "start_date": None if schedule.start_date is None else ztime(schedule.start_date),
        "end_date": None if schedule.end_date is None else ztime(schedule.end_date),
        "creation_date": ztime(schedule.creation_date),
        "last_modification_date": ztime(schedule.last_modification_date),
        "next_occurrence": None if next_occurrence is None else ztime(next_occurrence),
        "next_occurrence_local": (
            None if next_occurrence is None else local_text(next_occurrence, schedule.timezone)
        ),
    }


def group_json(group: ScheduleGroup, schedule_count: int) -> dict[str, Any]:
    return {
        "arn": group.arn,
        "name": group.name,
        "account_id": group.account_id,
        "region": group.region,
        "state": group.state,
        "creation_date": ztime(group.creation_date),
        "schedule_count": schedule_count,
    }


def page_after(
    keys: Sequence[tuple[str, ...]],
    key_length: int,
    token: str | None,
    fingerprint: str,
    limit: int,
) -> tuple[int, int, str | None]:
    """(first, end) indexes of the page of sorted ``keys`` that ``token`` resumes, and the
    token of the page after it."""
    after = decode_token(token, fingerprint, key_length)
    first = 0 if after is None else bisect.bisect_right(keys, tuple(after))
    end = min(first + limit, len(keys))
    following = encode_token(keys[end - 1], fingerprint) if end < len(keys) and end > 0 else None
    return first, end, following


class ScheduleRoutes:
    def __init__(self, records: Records) -> None:
        self._records = records

    def routes(self) -> dict[tuple[str, str], Handler]:
        return {("GET", "schedules"): self.schedules, ("GET", "groups"): self.groups}

    def schedules(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        filters = _query(
            query, ("account_id", "region", "group", "state", "prefix", "include_deleted")
        )
        state = filters["state"]
        if state is not None and state not in STATES:
            raise ValidationException(
                f"Invalid state {state!r}: expected ENABLED, DISABLED or DELETED"
            )
        deleted_too = _flag(filters, "include_deleted") or state == DELETED
        account, region, group, prefix = (
            filters[k] for k in ("account_id", "region", "group", "prefix")
        )
        # Known before stored: a schedule created in between is then simply stored, never
        # taken for a deleted one.
        known = self._records.known_schedule_arns() if deleted_too else {}
        stored = self._records.schedules()
        deleted = self._deleted(known, stored) if deleted_too else {}
        listed = sorted([*stored, *deleted.values()], key=_key) if deleted else stored
        removals = self._removals(deleted)
        matching = [
            s
            for s in listed
            if (account is None or s.account_id == account)
            and (region is None or s.region == region)
            and (group is None or s.group_name == group)
            and (state is None or (DELETED if s.arn in deleted else s.state) == state)
            and (prefix is None or s.name.startswith(prefix))
        ]
        keys = [_key(s) for s in matching]
        fingerprint = filters_fingerprint({"list": "schedules", **filters})
        first, end, following = page_after(
            keys, 4, query.get("next_token"), fingerprint, limit_of(query)
        )
        origin = self._records.origin_of
        page = [
            schedule_json(s, None, removals.get(s.arn, Removal()), origin(s.arn))
            if s.arn in deleted
            else schedule_json(s, self._records.next_occurrence_of(s.arn), None, origin(s.arn))
            for s in matching[first:end]
        ]
        return {"schedules": page, "next_token": following, "total": len(matching)}

    def _deleted(self, known: Iterable[str], stored: list[Schedule]) -> dict[str, Schedule]:
        """The last definition of each schedule deleted since the last reset, by ARN (those
        whose definition the history still keeps)."""
        present = {s.arn for s in stored}
        definitions = self._records.last_definitions(arn for arn in known if arn not in present)
        return {schedule.arn: schedule for schedule in definitions.values()}

    def _removals(self, deleted: dict[str, Schedule]) -> dict[str, Removal]:
        """The newest removal of each deleted schedule, found walking the activity back from
        the newest; one whose record was dropped (``max_records``) has none."""
        found: set[str] = set()

        def newest_removal(activity: Activity) -> bool:
            arn = activity.schedule_arn
            if activity.kind in _REMOVALS and arn in deleted and arn not in found:
                found.add(arn)
                return True
            return False

        removed, _ = self._records.page_backwards("activity", newest_removal, None, len(deleted))
        return {a.schedule_arn: Removal.of(a) for a in removed}

    def groups(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        filters = _query(query, ("account_id", "region"))
        account, region = filters["account_id"], filters["region"]
        groups = [
            g
            for g in self._records.groups()
            if (account is None or g.account_id == account)
            and (region is None or g.region == region)
        ]
        counts = Counter((s.account_id, s.region, s.group_name) for s in self._records.schedules())
        keys = [(g.account_id, g.region, g.name) for g in groups]
        fingerprint = filters_fingerprint({"list": "groups", **filters})
        first, end, following = page_after(
            keys, 3, query.get("next_token"), fingerprint, limit_of(query)
        )
        page = [group_json(g, counts[key]) for g, key in zip(groups[first:end], keys[first:end])]
        return {"groups": page, "next_token": following, "total": len(groups)}


def stack_json(stack: Stack) -> dict[str, Any]:
    """A loaded stack as the control API lists it: where it came from and what it made."""
    origins = stack.origins()
    return {
        "name": stack.name,
        "source": str(stack.source),
        "account_id": stack.account,
        "region": stack.region,
        "stack_id": stack.stack_id,
        "schedule_groups": [group.arn for group in stack.schedule_groups],
        "schedules": [
            {"arn": s.arn, "group_name": s.group_name, "name": s.name, "logical_id": origins[s.arn]}
            for s in stack.schedules
        ],
        "rules": [
            {"arn": r.arn, "name": r.name, "logical_id": origins[r.arn]} for r in stack.rules
        ],
    }
