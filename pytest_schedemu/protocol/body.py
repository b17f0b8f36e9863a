"""Request bodies: where one ends, and reading it within a size limit.

``check_framing`` runs in the HTTP server, on the raw headers, before the body is read;
``read_body`` serves the Scheduler API and the control API alike, each after its check of
the body's type (``refuse_form_body``, ``require_json_body``). A body is read only as
far as the request needs: a declared length over the limit is refused before a byte of it
is read, and a chunked body is read one byte past the limit at most. Werkzeug's server
closes the connection after every response, so nothing has to be drained to keep a
connection in step for a next request.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from email.message import Message
from typing import Any, BinaryIO

from pytest_schedemu.errors import (
    RequestEntityTooLargeException,
    RequestTimeoutException,
    SerializationException,
    UnsupportedMediaTypeException,
    ValidationException,
)
from pytest_schedemu.formats import jsontext

MAX_BODY_BYTES = 1024 * 1024

# RFC 9110: Content-Length = 1*DIGIT. No sign, no spaces inside, no list of values.
_DECIMAL = re.compile(r"[0-9]+")
_CHUNK = 65536
#: The body types a web page may send to any address without the browser asking that
#: address first (CORS "simple" requests): what a form or a no-cors fetch of a page on
#: another site posts.
FORM_MEDIA_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
JSON_MEDIA_TYPE = "application/json"


def parse_content_length(value: str) -> int:
    """The byte count a Content-Length header value declares.

    Raises ``ValidationException`` naming the value when it is not a decimal number.
    """
    text = value.strip(" \t")
    if not _DECIMAL.fullmatch(text):
        raise ValidationException(
            f"Invalid Content-Length header: {value!r}. Expected the body's size in bytes as "
            "a decimal number, e.g. '42'."
        )
    return int(text)


def check_framing(headers: Message) -> None:
    """Raise ``ValidationException`` when the headers do not say plainly where the body ends.

    A request with two readings of its length is the stuff of request smuggling, and a
    length that is not a number cannot be read at all; either is refused before the body.
    """
    lengths = headers.get_all("Content-Length") or []
    codings = headers.get_all("Transfer-Encoding") or []
    if codings:
        coding = ", ".join(codings)
        if coding.strip(" \t").lower() != "chunked":
            raise ValidationException(
                f"Unsupported Transfer-Encoding header: {coding!r}. Send 'chunked', or a "
                "Content-Length instead."
            )
        if lengths:
            raise ValidationException(
                "A request cannot have both a Content-Length and a Transfer-Encoding: chunked "
                "header. Send one of them."
            )
    if len({value.strip(" \t") for value in lengths}) > 1:
        raise ValidationException(
            f"Conflicting Content-Length headers: {', '.join(map(repr, lengths))}. Send one."
        )
    for value in lengths:
        parse_content_length(value)


def read_body(environ: Mapping[str, Any], limit: int) -> bytes:
    """The request body of a WSGI ``environ``, at most ``limit`` bytes.

    Raises ``ValidationException`` (400) for a Content-Length that is not a decimal number
    or a body that cannot be decoded, ``RequestEntityTooLargeException`` (413) for a body
    over ``limit``, and ``RequestTimeoutException`` (408) when the body has not arrived
    in full by the connection's deadline.
    """
    declared = environ.get("CONTENT_LENGTH")
    length = parse_content_length(declared) if declared else None
    if length is not None and length > limit:
        raise _too_large(limit, length)
    stream: BinaryIO = environ["wsgi.input"]
    try:
        # A server that marks its input terminated ends the stream at the body's end
        # (chunked transfer encoding): read until then, one byte past the limit at most.
        if environ.get("wsgi.input_terminated"):
            data = _read_up_to(stream, limit + 1)
            if len(data) > limit:
                raise _too_large(limit, None)
            return data
        return _read_up_to(stream, length) if length else b""
    except (socket.timeout, TimeoutError):
        raise RequestTimeoutException(
            "The request body did not arrive in full within the connection timeout. Send "
            "the whole body without pausing."
        ) from None
    except OSError as error:
        # Werkzeug's chunked decoder reports a malformed chunk as an OSError.
        raise ValidationException(
            f"Unreadable request body: {error}. Send a Content-Length and that many bytes, "
            "or a valid chunked transfer encoding."
        ) from None


def json_object(raw: bytes) -> dict[str, Any]:
    """The JSON object a request body holds, ``{}`` for an empty one; a body that is not JSON,
    or not an object, is a ``SerializationException``."""
    if not raw.strip():
        return {}
    try:
        parsed = jsontext.loads(raw)
    except ValueError:
        raise SerializationException() from None
    if not isinstance(parsed, dict):
        raise SerializationException()
    return parsed


def _read_up_to(stream: BinaryIO, size: int) -> bytes:
    """Up to ``size`` bytes, fewer only when the stream ends first."""
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(min(remaining, _CHUNK))
        if not chunk:
            break
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def _too_large(limit: int, length: int | None) -> RequestEntityTooLargeException:
    size = "" if length is None else f" of {length} bytes"
    return RequestEntityTooLargeException(
        f"Request body{size} is larger than the limit of {limit} bytes."
    )


def media_type(environ: Mapping[str, Any]) -> str:
    """The request's Content-Type without its parameters, in lower case ("" without one)."""
    return str(environ.get("CONTENT_TYPE", "")).split(";", 1)[0].strip(" \t").lower()


def refuse_form_body(environ: Mapping[str, Any]) -> None:
    """Raise ``UnsupportedMediaTypeException`` (415) for a body typed as a form or as text.

    The SDKs send JSON as ``application/json``, or no type on a request without a body;
    only a browser sends these, and a page on another site can send them unasked.
    """
    found = media_type(environ)
    if found in FORM_MEDIA_TYPES:
        raise UnsupportedMediaTypeException(
            f"Unsupported Content-Type {found}: the body must be JSON, sent as {JSON_MEDIA_TYPE}."
        )


def require_json_body(environ: Mapping[str, Any]) -> None:
    """Raise ``UnsupportedMediaTypeException`` (415) unless the body is typed as JSON,
    which a page on another site cannot send without the server agreeing first."""
    found = media_type(environ)
    if found != JSON_MEDIA_TYPE:
        raise UnsupportedMediaTypeException(
            f"Unsupported Content-Type {found or '(none)'}: a request that changes the "
            f"emulator must send Content-Type: {JSON_MEDIA_TYPE}, even with no body."
        )
