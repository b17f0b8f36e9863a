"""What every application on the endpoint shares: the WSGI types, and a JSON answer's bytes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Callable

from pytest_schedemu.formats import jsontext

StartResponse = Callable[..., Any]
WSGIEnvironment = dict[str, Any]
WSGIApp = Callable[[WSGIEnvironment, StartResponse], Iterable[bytes]]


def json_bytes(value: Any) -> bytes:
    """A response body: UTF-8 JSON, with any lone surrogate (JSON allows "\\ud800" in a
    string, so a schedule's Input may hold one) written as its escape."""
    text = jsontext.dumps_canonical(value)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
