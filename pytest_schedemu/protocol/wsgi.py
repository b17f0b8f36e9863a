"""What every application on the endpoint shares: the WSGI types, an answer's request id and
status line, and a JSON answer's bytes."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from typing import Any, Callable

from werkzeug.http import HTTP_STATUS_CODES

from pytest_schedemu.formats import jsontext

StartResponse = Callable[..., Any]
WSGIEnvironment = dict[str, Any]
WSGIApp = Callable[[WSGIEnvironment, StartResponse], Iterable[bytes]]


def _reused_canonical() -> Callable[[Any], str]:
    """``jsontext.dumps_canonical``, with its C encoder made once: ``json`` makes one for
    every call, which costs a small answer more than encoding it.

    The encoder keeps no markers to detect a circular value, which one encoder shared by
    the server's threads could not keep safely; what it encodes (answers, and the parsed
    requests fingerprinted) is built from parsed JSON and the emulator's own records, and
    is never circular.
    """
    make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if make_encoder is None:
        return jsontext.dumps_canonical
    settings = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    encode = make_encoder(
        None,
        settings.default,
        json.encoder.encode_basestring,
        None,
        settings.key_separator,
        settings.item_separator,
        True,
        False,
        True,
    )

    def dumps_canonical(value: Any) -> str:
        if isinstance(value, str):
            return jsontext.dumps_canonical(value)
        return "".join(encode(value, 0))

    return dumps_canonical


#: Compact JSON with sorted keys, as ``jsontext.dumps_canonical`` writes it.
canonical_json = _reused_canonical()


def json_bytes(value: Any) -> bytes:
    """A response body: UTF-8 JSON, with any lone surrogate (JSON allows "\\ud800" in a
    string, so a schedule's Input may hold one) written as its escape."""
    text = canonical_json(value)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


# A request id only has to be unique: a generator of the module's own, seeded from the
# system's randomness, spares each answer the system call and the UUID object of
# ``uuid.uuid4()``, and leaves the ``random`` stream a test may have seeded alone.
_ids = random.Random(os.urandom(32))
if hasattr(os, "register_at_fork"):
    # A forked child would otherwise repeat its parent's ids.
    os.register_at_fork(after_in_child=lambda: _ids.seed(os.urandom(32)))
# The bits a version 4 UUID fixes: its version (4) and its variant (RFC 4122).
_UUID4_BITS = (0x4000 << 64) | (0x8000 << 48)
_UUID4_FREE = ~((0xF000 << 64) | (0xC000 << 48))


def request_id() -> str:
    """A new random version 4 UUID, as text: what an answer's ``x-amzn-RequestId`` holds."""
    digits = "%032x" % (_ids.getrandbits(128) & _UUID4_FREE | _UUID4_BITS)
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


_STATUS_LINES: dict[int, str] = {}


def status_line(status: int) -> str:
    """The WSGI status of ``status``, e.g. "404 Not Found"."""
    line = _STATUS_LINES.get(status)
    if line is None:
        line = _STATUS_LINES[status] = f"{status} {HTTP_STATUS_CODES.get(status, 'Unknown')}"
    return line
