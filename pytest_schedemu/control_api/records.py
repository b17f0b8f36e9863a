"""The control API's read-only routes: what happened, in pages.

Every list answers ``{"<kind>": [...], "next_token": <str or null>}``: at most ``limit``
records (default 1,000, at most 10,000), and the token of the next page, which the next
request passes back as ``next_token`` with the same filters. Records are only appended
(and the oldest dropped past ``max_records``), so a page never repeats or skips one.
Attempts, deliveries, dead letters and activity come oldest first, or newest first with
``order=newest`` (the next pages going back in time). ``schedule``, ``group`` and ``rule``
(a scheduled rule's name or ARN, for its targets' records) filter as ``emu.attempts`` has
them. ``attempts`` keeps those of an
``outcome``: ``succeeded``, ``failed`` (each failed try, retried or not) or ``all`` (the
default).
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_schedemu.errors import ValidationException
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint
from pytest_schedemu.records import Records

DEFAULT_LIMIT = 1000
MAX_LIMIT = 10_000
#: What each ``outcome`` of the attempts route keeps: whether the attempt succeeded, or all.
OUTCOMES: dict[str, bool | None] = {"all": None, "succeeded": True, "failed": False}

#: A handler takes the JSON body and the query and returns what to answer as JSON.
Handler = Callable[[dict[str, Any], dict[str, str]], Any]


def whole_number(
    query: dict[str, str], name: str, default: int, lowest: int, highest: int, unit: str = ""
) -> int:
    """A query parameter that must be a whole number (of ``unit``) within bounds."""
    text = query.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or not lowest <= int(text) <= highest:
        raise ValidationException(
            f"Invalid {name} {text!r}: expected a whole number {unit}from {lowest} to {highest}"
        )
    return int(text)


def limit_of(query: dict[str, str]) -> int:
    """The ``limit`` query parameter: how many records one answer may hold."""
    return whole_number(query, "limit", DEFAULT_LIMIT, 0, MAX_LIMIT)


def start_of(query: dict[str, str], filters: dict[str, Any]) -> tuple[int, str]:
    """Where a page starts (from ``next_token``) and the fingerprint its token carries."""
    fingerprint = filters_fingerprint(filters)
    key = decode_token(query.get("next_token"), fingerprint, 1)
    if key is None:
        return 0, fingerprint
    if not key[0].isdigit():
        raise ValidationException("The NextToken provided is invalid.")
    return int(key[0]), fingerprint


def paged(name: str, items: list[Any], following: int | None, fingerprint: str) -> Any:
    token = None if following is None else encode_token((str(following),), fingerprint)
    return {name: items, "next_token": token}


def _newest_first(query: dict[str, str]) -> bool:
    order = query.get("order", "oldest")
    if order not in ("oldest", "newest"):
        raise ValidationException(f"Invalid order {order!r}: expected oldest or newest")
    return order == "newest"


class RecordRoutes:
    def __init__(self, records: Records) -> None:
        self._records = records

    def routes(self) -> dict[tuple[str, str], Handler]:
        return {
            ("GET", "attempts"): self.attempts,
            ("GET", "deliveries"): self.deliveries,
            ("GET", "dead-letters"): self.dead_letters,
            ("GET", "executions"): self.executions,
            ("GET", "activity"): self.activity,
        }

    def _page(
        self,
        name: str,
        kind: str,
        keep: Callable[[Any], bool] | None,
        query: dict[str, str],
        filters: dict[str, Any],
    ) -> Any:
        newest = _newest_first(query)
        start, fingerprint = start_of(query, {"list": name, "newest": newest or None, **filters})
        if newest:
            end = start if query.get("next_token") is not None else None
            items, following = self._records.page_backwards(kind, keep, end, limit_of(query))
        else:
            items, following = self._records.page(kind, keep, start, limit_of(query))
        return paged(name, items, following, fingerprint)

    def _attempts(self, name: str, query: dict[str, str], succeeded: bool | None) -> Any:
        filters = {k: query.get(k) for k in ("schedule", "group", "target_arn", "rule")}
        keep = self._records.attempt_filter(succeeded=succeeded, **filters)
        return self._page(name, "attempts", keep, query, {**filters, "succeeded": succeeded})

    def attempts(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        outcome = query.get("outcome", "all")
        if outcome not in OUTCOMES:
            raise ValidationException(
                f"Invalid outcome {outcome!r}: expected all, succeeded or failed"
            )
        return self._attempts("attempts", query, OUTCOMES[outcome])

    def deliveries(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._attempts("deliveries", query, True)

    def dead_letters(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        names = ("queue_arn", "schedule", "group", "rule")
        queue_arn, schedule, group, rule = (query.get(k) for k in names)
        named = self._records.scope(schedule, group, rule)
        keep = None
        if any(query.get(name) is not None for name in names):

            def keep(letter: Any) -> bool:
                return (queue_arn is None or letter.queue_arn == queue_arn) and named.matches_arn(
                    letter.producer_key
                )

        filters = {"queue_arn": queue_arn, "schedule": schedule, "group": group, "rule": rule}
        return self._page("dead_letters", "dead_letters", keep, query, filters)

    def activity(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        kind = query.get("kind")
        keep = None if kind is None else (lambda a: a.kind == kind)
        return self._page("activity", "activity", keep, query, {"kind": kind})

    def executions(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        schedule, group, rule = (query.get(k) or None for k in ("schedule", "group", "rule"))
        if not schedule and not rule:
            raise ValidationException(
                "Give the schedule, executions?schedule=<name>&group=<g>, or the rule, "
                "executions?rule=<name>"
            )
        start, fingerprint = start_of(
            query, {"list": "executions", "schedule": schedule, "group": group, "rule": rule}
        )
        found = self._records.executions(schedule, group, rule)
        limit = limit_of(query)
        end = start + limit
        return paged("executions", found[start:end], end if end < len(found) else None, fingerprint)
