"""How an EventBridge request names what it acts on: its event bus, its rule, the page it
resumes; and the refusals every rule operation shares.

The emulator keeps one event bus per account and region, ``default``: it serves no
``CreateEventBus``, and a scheduled rule may only be on the default bus anyway (AWS:
``ScheduleExpression is supported only on the default event bus.``). A request naming
another bus, by name or by ARN, is answered as AWS answers one naming a bus that does not
exist: ``ResourceNotFoundException``, ``Event bus <name> does not exist.``
(AWS's message, as LocalStack recorded it against AWS).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from pytest_schedemu.commands.call import Call
from pytest_schedemu.errors import (
    InvalidToken,
    ManagedRuleException,
    ResourceNotFoundException,
    ValidationException,
)
from pytest_schedemu.model.partitions import partition_for_region
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, EventsArn, Rule
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint

#: How many items a list answers when the request gives no ``Limit`` (AWS: "The maximum
#: number of results per page for requests is 100").
DEFAULT_PAGE_SIZE = 100

Document = dict[str, Any]


def bus_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Event bus {name} does not exist.")


def bus_name(value: str | None) -> str:
    """The name of the bus ``EventBusName`` gives, by name or by ARN (None: the default)."""
    if value is None:
        return DEFAULT_EVENT_BUS
    parsed = EventsArn.parse(value)
    return value if parsed is None or parsed.kind != "event-bus" else parsed.name


def event_bus(call: Call, value: str | None) -> str:
    """The event bus ``EventBusName`` names, which must exist: the caller's default bus."""
    if value is None:
        return DEFAULT_EVENT_BUS
    parsed = EventsArn.parse(value)
    if parsed is not None:
        if parsed.kind != "event-bus" or not is_callers(call, parsed):
            raise bus_not_found(value)
        value = parsed.name
    if value != DEFAULT_EVENT_BUS:
        raise bus_not_found(value)
    return value


def is_callers(call: Call, arn: EventsArn) -> bool:
    """Whether ``arn`` names something in the caller's partition, account and region."""
    return (arn.partition, arn.account, arn.region) == (
        partition_for_region(call.region),
        call.account_id,
        call.region,
    )


def refuse_managed(rule: Rule, operation: str, force: bool = False) -> None:
    """Refuse to change a rule another AWS service manages, unless ``force`` may (AWS: such
    a rule is changed by no operation but DeleteRule and RemoveTargets with Force)."""
    if rule.managed_by is None or force:
        return
    if operation in ("DeleteRule", "RemoveTargets"):
        raise ManagedRuleException(
            f"Rule {rule.name} is managed by {rule.managed_by}; {operation} changes it only "
            "with Force set to true."
        )
    raise ManagedRuleException(
        f"Rule {rule.name} is managed by {rule.managed_by} and cannot be changed with {operation}."
    )


def named_page(
    names: Sequence[str], token: str | None, limit: int, filters: Document
) -> tuple[int, int, str | None]:
    """(first, end) of the page of the sorted ``names`` that ``token`` resumes, and the
    token of the next page: keyset, so rules put or deleted between pages never make one
    repeat or skip another."""
    fingerprint = filters_fingerprint(filters)
    after = _decoded(token, fingerprint)
    first = 0 if after is None else bisect.bisect_right(names, after)
    end = min(first + limit, len(names))
    following = encode_token((names[end - 1],), fingerprint) if end < len(names) else None
    return first, end, following


def indexed_page(
    count: int, token: str | None, limit: int, filters: Document
) -> tuple[int, int, str | None]:
    """(first, end) of the page of ``count`` items in their stored order that ``token``
    resumes, and the token of the next page."""
    fingerprint = filters_fingerprint(filters)
    after = _decoded(token, fingerprint)
    if after is not None and not after.isdigit():
        raise InvalidToken(_INVALID_TOKEN)
    first = 0 if after is None else min(int(after), count)
    end = min(first + limit, count)
    following = encode_token((str(end),), fingerprint) if end < count else None
    return first, end, following


_INVALID_TOKEN = "The NextToken provided is invalid."


def _decoded(token: str | None, fingerprint: str) -> str | None:
    try:
        key = decode_token(token, fingerprint, 1)
    except ValidationException:
        # AWS: "Using an expired pagination token results in an HTTP 400 InvalidToken
        # error" (the NextToken member's documentation in botocore's model).
        raise InvalidToken(_INVALID_TOKEN) from None
    return None if key is None else key[0]
