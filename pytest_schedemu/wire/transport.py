"""The in-process transport: botocore requests answered by the WSGI application directly.

A botocore ``before-send`` handler hands each request to the same application the HTTP
server runs and returns its answer, with no socket: byte for byte what HTTP would answer,
at a fraction of the cost. The emulator's own in-process clients and the interception of
every Scheduler client (``intercept``) both answer this way.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Generator, Iterable
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from botocore.awsrequest import AWSResponse

from pytest_schedemu.events_api.names import CONTENT_TYPE, served_operations
from pytest_schedemu.protocol.signing import unsigned_authorization
from pytest_schedemu.wire.server import WSGIApp


class RawBody:
    """The part of a urllib3 response that botocore reads."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, amt: int | None = None, decode_content: bool = True) -> Iterable[bytes]:
        yield self._data

    def read(self, amt: int | None = None) -> bytes:
        data, self._data = self._data, b""
        return data


def call_wsgi(
    app: WSGIApp, method: str, url: str, headers: Iterable[tuple[str, Any]], body: bytes
) -> tuple[int, list[tuple[str, str]], bytes]:
    """Run one request through ``app`` without a socket, as the HTTP server would."""
    return _call_wsgi(app, method, urlsplit(url), headers, body)


def _call_wsgi(
    app: WSGIApp, method: str, parts: SplitResult, headers: Iterable[tuple[str, Any]], body: bytes
) -> tuple[int, list[tuple[str, str]], bytes]:
    # The server decodes the path once (so %2F becomes "/") and hands it over in WSGI's
    # latin-1 convention; doing the same here keeps both transports identical.
    path = unquote(parts.path).encode("utf-8").decode("latin-1")
    server_name, server_port = _server(parts.netloc)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "RAW_URI": parts.path + (f"?{parts.query}" if parts.query else ""),
        "QUERY_STRING": parts.query,
        "SERVER_NAME": server_name,
        "SERVER_PORT": server_port,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": parts.scheme or "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        # An HTTP client sends the Host header itself; botocore signs it.
        "HTTP_HOST": parts.netloc,
    }
    for name, raw_value in headers:
        # botocore keeps some header values (the signature) as bytes; WSGI wants text.
        value = raw_value.decode("latin-1") if isinstance(raw_value, bytes) else raw_value
        key = name.upper().replace("-", "_")
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
        elif key != "CONTENT_LENGTH":
            environ[f"HTTP_{key}"] = value
    captured: list[Any] = []

    def start_response(status: str, response_headers: list[tuple[str, str]], *_: Any) -> None:
        captured[:] = [int(status.split(" ", 1)[0]), response_headers]

    chunks = app(environ, start_response)
    data = b"".join(chunks)
    return captured[0], captured[1], data


@functools.lru_cache(maxsize=64)
def _server(netloc: str) -> tuple[str, str]:
    """WSGI's SERVER_NAME and SERVER_PORT for a URL's ``netloc``. A client sends every
    request to the same few endpoints, and parsing the host and port out again costs each
    request more than building the rest of its environ."""
    parts = urlsplit(f"//{netloc}")
    return parts.hostname or "localhost", str(parts.port or 80)


#: Where a request answered in process is readdressed once answered. botocore calls every
#: ``before-send`` handler, not just the first that answers; a later one that serves AWS
#: hosts (moto's, under ``mock_aws``) would otherwise run the same request a second time.
#: ``.invalid`` never resolves (RFC 2606), so the new address cannot reach anything either.
ANSWERED_HOST = "answered-in-process.schedemu.invalid"

# The mark ``answer_in_process`` leaves on a request it answered, which our own handlers
# read: cheaper than parsing the readdressed URL on every request.
_ANSWERED = "schedemu_answered_in_process"


def answered_in_process(request: Any) -> bool:
    """Whether a ``before-send`` handler already answered ``request`` from a WSGI app."""
    return getattr(request, _ANSWERED, False) is True


class _Content(bytes):
    """A response body that can also be awaited: aiobotocore awaits ``response.content``."""

    def __await__(self) -> Generator[Any, None, bytes]:
        return self._resolved().__await__()

    async def _resolved(self) -> bytes:
        return bytes(self)


def answer_in_process(app: WSGIApp, request: Any) -> Any:
    """Answer a botocore request (an ``AWSPreparedRequest``) from ``app``, without a socket.

    Returns the ``AWSResponse`` a ``before-send`` handler returns, for botocore's and
    aiobotocore's clients alike, and readdresses the request to ``ANSWERED_HOST``.
    """
    body = request.body
    if body is None:
        data = b""
    elif isinstance(body, bytes):
        data = body
    elif isinstance(body, str):
        data = body.encode("utf-8")
    else:
        data = body.read()
    url = request.url
    parts = urlsplit(url)
    status, headers, payload = _call_wsgi(app, request.method, parts, request.headers.items(), data)
    response = _response(url, status, dict(headers), payload)
    request.url = _readdressed(url, parts)
    setattr(request, _ANSWERED, True)
    return response


def _response(url: str, status: int, headers: dict[str, str], payload: bytes) -> Any:
    response = AWSResponse(url, status, headers, RawBody(payload))
    # What AWSResponse.content would read from the raw body, in the form both SDKs take.
    response._content = _Content(payload)
    return response


def refusal(request: Any) -> Any:
    """The answer to an EventBridge request the emulator does not serve and nothing else in
    the process answered: an ``UnknownOperationException`` that says so, sent nowhere."""
    target = request.headers.get("X-Amz-Target", b"")
    text = target.decode("latin-1") if isinstance(target, bytes) else str(target)
    operation = text.partition(".")[2] or text or "this operation"
    message = (
        f"The schedemu emulator serves only the EventBridge rule operations "
        f"({served_operations()}); nothing in the process answered {operation} (moto's "
        "mock_aws would), so it was refused without being sent. Turn the emulator's rule "
        "interception off (intercept_rules=False) to send EventBridge requests where they "
        "would go without it."
    )
    body = json.dumps({"__type": "UnknownOperationException", "message": message}).encode()
    headers = {"Content-Type": CONTENT_TYPE, "Content-Length": str(len(body))}
    return _response(request.url, 400, headers, body)


def _readdressed(url: str, parts: SplitResult) -> str:
    """``url`` with ``ANSWERED_HOST`` for its host: the rest of it kept as it was written,
    by slicing, which costs a request a fraction of rebuilding it from its parts."""
    host_at = len(parts.scheme) + 3  # after "scheme://"
    rest_at = host_at + len(parts.netloc)
    if url[host_at - 3 : host_at] == "://" and url[host_at:rest_at] == parts.netloc:
        return f"{parts.scheme}://{ANSWERED_HOST}{url[rest_at:]}"
    return urlunsplit(parts._replace(netloc=ANSWERED_HOST))


class InProcessTransport:
    """A botocore ``before-send`` handler that answers from the WSGI app directly."""

    def __init__(self, app: WSGIApp, *, access_key: str, region: str, signing_name: str) -> None:
        self.app = app
        self._authorization = unsigned_authorization(access_key, region, signing_name)

    def __call__(self, request: Any, **_: Any) -> Any:
        if "Authorization" not in request.headers:
            request.headers["Authorization"] = self._authorization
        return answer_in_process(self.app, request)
