"""The one JSON policy: what the emulator accepts as JSON, and how it writes JSON.

Accepted: exactly one JSON value as RFC 8259 defines it. Python's ``json`` also reads
``NaN`` and ``Infinity``, which no other JSON parser (and no AWS service) accepts, and it
recurses once per nesting level, so a two-kilobyte body of brackets would exhaust the stack;
both are refused here with ``ValueError``, like any other text that is not JSON.
"""

from __future__ import annotations

import json
from typing import Any

#: Deeper nesting is refused. Requests of this API nest six levels at most, and the JSON a
#: target receives rarely more than a dozen; the bound keeps every later walk over a parsed
#: value (rendering, fingerprints) far from the interpreter's recursion limit.
MAX_DEPTH = 128


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _too_deep(value: Any) -> bool:
    # Iterative, so that measuring the depth cannot itself overflow the stack.
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


# Built once: json.loads with any option builds a new decoder for every call, which costs a
# request body a third of its reading.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _decode(text: str | bytes) -> Any:
    """``json.loads(text, parse_constant=_reject_constant)``, by the one decoder."""
    if isinstance(text, (bytes, bytearray)):
        return _DECODER.decode(text.decode(json.detect_encoding(text), "surrogatepass"))
    if isinstance(text, str) and not text.startswith("\ufeff"):
        return _DECODER.decode(text)
    # What json.loads refuses before decoding (a byte order mark, a text of another type).
    return json.loads(text, parse_constant=_reject_constant)


def loads(text: str | bytes) -> Any:
    """The one JSON value of ``text``; ValueError when it is not exactly that."""
    try:
        value = _decode(text)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"JSON text is not UTF-8: {error}") from None
    if isinstance(text, bytes):
        openers = text.count(b"[") + text.count(b"{")
    else:
        openers = text.count("[") + text.count("{")
    # Only a text with enough brackets can be too deep: most never pay for the walk.
    if openers > MAX_DEPTH and _too_deep(value):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def loads_or_none(text: str | None) -> Any:
    """The JSON value of ``text``, or None when it is absent or not JSON."""
    if text is None:
        return None
    try:
        return loads(text)
    except ValueError:
        return None


# Built once: json.dumps with any option builds a new encoder for every call, which costs a
# small answer (a response body, a fingerprint) more than encoding it.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dumps_compact(value: Any) -> str:
    """JSON as AWS sends it to targets: no spaces, non-ASCII characters as they are."""
    return _COMPACT.encode(value)


def dumps_canonical(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text."""
    return _CANONICAL.encode(value)
