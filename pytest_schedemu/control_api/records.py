"""The control API's read-only routes: what happened, in pages.

Every list answers ``{"<kind>": [...], "next_token": <str or null>}``: at most ``limit``
records (default 1,000, at most 10,000), and the token of the next page, which the next
request passes back as ``next_token`` with the same filters. Records are only appended
(and the oldest dropped past ``max_records``), so a page never repeats or skips one.
Attempts, deliveries, dead letters and activity come oldest first, or newest first with
``order=newest`` (the next pages going back in time). The query parameters that filter
are those of the Python queries, named alike and meaning the same (``records.filters``):
each list takes those of its query (``LIST_FILTERS``), so ``attempts`` takes
``schedule``, ``group``, ``rule``, ``target_arn`` and ``outcome`` (``succeeded``,
``failed``, or ``all``, the default) as ``emu.attempts`` and the dashboard do. An empty
parameter is one not given. Each attempt (and delivery) carries ``invocations``: the runs
of a stack's own function its event caused, Lambda's retries included.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, Callable

from pytest_schedemu.control_api.numbers import shown
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint
from pytest_schedemu.records import Records
from pytest_schedemu.records.filters import RecordFilter
from pytest_schedemu.records.invocations import runs_by_execution

DEFAULT_LIMIT = 1000
MAX_LIMIT = 10_000
#: The filter parameters each list takes from its query string.
LIST_FILTERS = {
    "attempts": ("schedule", "group", "rule", "target_arn", "outcome"),
    "deliveries": ("schedule", "group", "rule", "target_arn"),
    "dead_letters": ("schedule", "group", "rule", "queue_arn"),
    "executions": ("schedule", "group", "rule"),
}

#: A handler takes the JSON body and the query and returns what to answer as JSON.
Handler = Callable[[dict[str, Any], dict[str, str]], Any]


def whole_number(
    query: dict[str, str], name: str, default: int, lowest: int, highest: int, unit: str = ""
) -> int:
    """A query parameter that must be a whole number (of ``unit``) within bounds."""
    text = query.get(name)
    if text is None:
        return default
    # Leading zeros aside, a number longer than the highest is out of range unread: Python
    # refuses to read one of thousands of digits, in its own words.
    digits = text.lstrip("0") or "0"
    if (
        not (text.isascii() and text.isdigit())
        or len(digits) > len(str(highest))
        or not lowest <= int(digits) <= highest
    ):
        raise ValidationException(
            f"Invalid {name} {shown(text)}: expected a whole number {unit}from {lowest} to "
            f"{highest}"
        )
    return int(digits)


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

    def _list(
        self,
        name: str,
        kind: str,
        which: RecordFilter,
        keeps: Callable[[Any], bool],
        query: dict[str, str],
    ) -> Any:
        self._records.check(which)
        return self._page(name, kind, keeps if which.given else None, query, which.given)

    def attempts(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        which = RecordFilter.of(query, LIST_FILTERS["attempts"])
        return self._with_runs(
            "attempts", self._list("attempts", "attempts", which, which.keeps_attempt, query)
        )

    def deliveries(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        which = replace(RecordFilter.of(query, LIST_FILTERS["deliveries"]), outcome="succeeded")
        return self._with_runs(
            "deliveries", self._list("deliveries", "attempts", which, which.keeps_attempt, query)
        )

    def _with_runs(self, name: str, page: dict[str, Any]) -> dict[str, Any]:
        """Each attempt of a page with the runs of a stack's own function it caused: those
        of the event Lambda accepted, so only a delivered attempt has any."""
        caused = runs_by_execution(self._records.invocations())
        page[name] = [
            {
                **{f.name: getattr(attempt, f.name) for f in fields(attempt)},
                "invocations": caused.get(attempt.execution_id, []) if attempt.succeeded else [],
            }
            for attempt in page[name]
        ]
        return page

    def dead_letters(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        which = RecordFilter.of(query, LIST_FILTERS["dead_letters"])
        return self._list("dead_letters", "dead_letters", which, which.keeps_dead_letter, query)

    def activity(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        kind = query.get("kind")
        keep = None if kind is None else (lambda a: a.kind == kind)
        return self._page("activity", "activity", keep, query, {"kind": kind})

    def executions(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        which = RecordFilter.of(query, LIST_FILTERS["executions"])
        if which.schedule is None and which.rule is None:
            raise ValidationException(
                "Give the schedule, executions?schedule=<name>&group=<g>, or the rule, "
                "executions?rule=<name>"
            )
        start, fingerprint = start_of(query, {"list": "executions", **which.given})
        found = self._records.executions(which)
        limit = limit_of(query)
        end = start + limit
        return paged("executions", found[start:end], end if end < len(found) else None, fingerprint)
