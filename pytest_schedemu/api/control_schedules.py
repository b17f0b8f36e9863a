"""The control API's view of the stored schedules and groups, across every account and
region, in pages: what the dashboard lists.

``GET schedules?account_id=&region=&group=&state=&prefix=&limit=&next_token=`` answers
``{"schedules": [...], "next_token": ..., "total": <matches>}``, ordered by account,
region, group and name, each schedule with its next occurrence (in UTC and on its own
clock). ``GET groups?account_id=&region=`` answers ``{"groups": [...], "next_token": ...}``
with each group's schedule count. Tokens resume after the last key returned (keyset), so
schedules created or deleted between pages never make one repeat or skip another.
"""

from __future__ import annotations

import bisect
import zoneinfo
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pytest_schedemu.api.control_records import Handler, limit_of
from pytest_schedemu.api.paging import decode_token, encode_token, filters_fingerprint
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.records import Records

STATES = ("ENABLED", "DISABLED")


def _query(query: dict[str, str], names: tuple[str, ...]) -> dict[str, str | None]:
    return {name: query.get(name) or None for name in names}


def local_text(moment: datetime, zone_name: str) -> str:
    """An instant on a zone's wall clock, with the zone's abbreviation."""
    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return ""
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S %Z")


def schedule_json(schedule: Schedule, next_occurrence: datetime | None) -> dict[str, Any]:
    target = schedule.target
    window = schedule.flexible_time_window
    return {
        "arn": schedule.arn,
        "name": schedule.name,
        "group_name": schedule.group_name,
        "account_id": schedule.account_id,
        "region": schedule.region,
        "state": schedule.state,
        "schedule_expression": schedule.schedule_expression,
        "timezone": schedule.timezone,
        "description": schedule.description,
        "target_arn": target.arn,
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


def _page_after(
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
        filters = _query(query, ("account_id", "region", "group", "state", "prefix"))
        state = filters["state"]
        if state is not None and state not in STATES:
            raise ValidationException(f"Invalid state {state!r}: expected ENABLED or DISABLED")
        account, region, group, prefix = (
            filters[k] for k in ("account_id", "region", "group", "prefix")
        )
        matching = [
            s
            for s in self._records.schedules()
            if (account is None or s.account_id == account)
            and (region is None or s.region == region)
            and (group is None or s.group_name == group)
            and (state is None or s.state == state)
            and (prefix is None or s.name.startswith(prefix))
        ]
        keys = [(s.account_id, s.region, s.group_name, s.name) for s in matching]
        fingerprint = filters_fingerprint({"list": "schedules", **filters})
        first, end, following = _page_after(
            keys, 4, query.get("next_token"), fingerprint, limit_of(query)
        )
        page = [
            schedule_json(s, self._records.next_occurrence_of(s.arn)) for s in matching[first:end]
        ]
        return {"schedules": page, "next_token": following, "total": len(matching)}

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
        first, end, following = _page_after(
            keys, 3, query.get("next_token"), fingerprint, limit_of(query)
        )
        page = [group_json(g, counts[key]) for g, key in zip(groups[first:end], keys[first:end])]
        return {"groups": page, "next_token": following, "total": len(groups)}
