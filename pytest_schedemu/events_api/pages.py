"""The pages of EventBridge's list operations, and the token that resumes one.

(The event bus a request names, and the refusal to change a managed rule, are the command
layer's, ``commands/rules.py``: a stack's rule names its bus the same way.)
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from pytest_schedemu.errors import InvalidToken, ValidationException
from pytest_schedemu.protocol.paging import decode_token, encode_token, filters_fingerprint

#: How many items a list answers when the request gives no ``Limit`` (AWS: "The maximum
#: number of results per page for requests is 100").
DEFAULT_PAGE_SIZE = 100

Document = dict[str, Any]


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
