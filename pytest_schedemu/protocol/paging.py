"""Opaque NextToken values for keyset paging.

A token names the sort key of the last item returned and a fingerprint of the filters it
was made for, so the next page starts strictly after that key (deleting items between
pages never breaks paging) and a token cannot be replayed with other filters.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_schedemu.errors import ValidationException

_VERSION = 1
_INVALID = "The NextToken provided is invalid."
_URL_SAFE_BASE64 = re.compile(r"[A-Za-z0-9_-]+")


def filters_fingerprint(filters: Mapping[str, Any]) -> str:
    present = {key: value for key, value in filters.items() if value is not None}
    canonical = json.dumps(present, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode_token(key: tuple[str, ...], fingerprint: str) -> str:
    document = {"v": _VERSION, "k": list(key), "f": fingerprint}
    raw = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_token(token: str | None, fingerprint: str, key_length: int) -> list[str] | None:
    """The sort key a token resumes after, or None when there is no token."""
    if token is None:
        return None
    try:
        # urlsafe_b64decode skips characters outside its alphabet instead of failing.
        if not _URL_SAFE_BASE64.fullmatch(token):
            raise ValueError(token)
        padded = token + "=" * (-len(token) % 4)
        document = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, binascii.Error, UnicodeError):
        raise ValidationException(_INVALID) from None
    version = document.get("v") if isinstance(document, dict) else None
    if type(version) is not int or version != _VERSION:
        raise ValidationException(_INVALID)
    key = document.get("k")
    if (
        document.get("f") != fingerprint
        or not isinstance(key, list)
        or len(key) != key_length
        or not all(isinstance(part, str) for part in key)
    ):
        raise ValidationException(_INVALID)
    return key
