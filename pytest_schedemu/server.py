"""The in-thread HTTP server, and the in-process transport for botocore clients.

The server socket is bound in the caller's thread, so a busy port fails the caller at once
with an error that names the port; Werkzeug never gets the chance to print and call
``sys.exit``. Requests are served from one daemon thread plus one thread per connection.
``stop()`` closes kept-alive client connections itself: botocore keeps connections open,
and a handler thread blocked reading the next request would otherwise hold up the join.
"""

from __future__ import annotations

import contextlib
import io
import logging
import socket
import threading
from collections.abc import Generator, Iterable
from typing import Any, Callable
from urllib.parse import unquote, urlsplit, urlunsplit

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

from pytest_schedemu.errors import ServerStartError

logger = logging.getLogger("pytest_schedemu.server")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# How often the serving loop looks for a shutdown request: it bounds how long stop() waits.
POLL_INTERVAL = 0.02


class _QuietHandler(WSGIRequestHandler):
    """Logs requests to the plugin's logger at DEBUG instead of to the ``werkzeug`` logger."""

    server: _Server

    def setup(self) -> None:
        super().setup()
        # Werkzeug writes the status and headers, then the body, in separate sends; with
        # Nagle's algorithm the body waits for the client's delayed ACK of the headers,
        # which adds milliseconds to every call on loopback.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log(self, type: str, message: str, *args: Any) -> None:
        if self.server.log_requests:
            logger.info(message, *args)
        else:
            logger.debug(message, *args)


class _Server(ThreadedWSGIServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, *args: Any, log_requests: bool, **kwargs: Any) -> None:
        self.log_requests = log_requests
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._connections_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name="schedemu-connection",
            daemon=True,
        )
        with self._connections_lock:
            self._connections.add(request)
            self._handler_threads.add(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            with self._connections_lock:
                self._connections.discard(request)
                self._handler_threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up mid-request is not an emulator failure; keep it out of stderr.
        logger.debug("connection error from %s", client_address, exc_info=True)

    def close_connections(self, timeout: float) -> None:
        with self._connections_lock:
            connections = list(self._connections)
            threads = list(self._handler_threads)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(timeout)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if port:
            # Allows a restart on the port of a just-stopped server (TIME_WAIT), never a
            # second listener on a port that is in use.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ServerStartError(
            f"Cannot start the Scheduler emulator on {host}:{port}: {error.strerror or error}. "
            f"{'Port ' + str(port) + ' is in use; ' if port else ''}"
            "choose another port, or port=0 for a free one."
        ) from error
    return sock


class ServerThread:
    """A Werkzeug server for ``app`` on (host, port), served from a daemon thread."""

    def __init__(
        self, app: WSGIApp, host: str = "127.0.0.1", port: int = 0, log_requests: bool = False
    ) -> None:
        listener = _bind(host, port)
        try:
            self._server = _Server(
                host,
                port,
                app,
                handler=_QuietHandler,
                fd=listener.fileno(),
                log_requests=log_requests,
            )
        finally:
            # Werkzeug serves a duplicate of the descriptor; ours is no longer needed.
            listener.close()
        self.host = host
        self.port: int = self._server.socket.getsockname()[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL},
            name=f"schedemu-server-{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        self._server.shutdown()
        self._server.close_connections(timeout=1.0)
        self._server.server_close()
        self._thread.join()


# -- in-process transport ---------------------------------------------------------------------


class _RawBody:
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
    parts = urlsplit(url)
    # The server decodes the path once (so %2F becomes "/") and hands it over in WSGI's
    # latin-1 convention; doing the same here keeps both transports identical.
    path = unquote(parts.path).encode("utf-8").decode("latin-1")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "RAW_URI": parts.path + (f"?{parts.query}" if parts.query else ""),
        "QUERY_STRING": parts.query,
        "SERVER_NAME": parts.hostname or "localhost",
        "SERVER_PORT": str(parts.port or 80),
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


#: Where a request answered in process is readdressed once answered. botocore calls every
#: ``before-send`` handler, not just the first that answers; a later one that serves AWS
#: hosts (moto's, under ``mock_aws``) would otherwise run the same request a second time.
#: ``.invalid`` never resolves (RFC 2606), so the new address cannot reach anything either.
ANSWERED_HOST = "answered-in-process.schedemu.invalid"


def answered_in_process(request: Any) -> bool:
    """Whether a ``before-send`` handler already answered ``request`` from a WSGI app."""
    return bool(urlsplit(request.url).hostname == ANSWERED_HOST)


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
    from botocore.awsrequest import AWSResponse

    body = request.body
    if body is None:
        data = b""
    elif isinstance(body, bytes):
        data = body
    elif isinstance(body, str):
        data = body.encode("utf-8")
    else:
        data = body.read()
    status, headers, payload = call_wsgi(
        app, request.method, request.url, request.headers.items(), data
    )
    response = AWSResponse(request.url, status, dict(headers), _RawBody(payload))
    # What AWSResponse.content would read from the raw body, in the form both SDKs take.
    response._content = _Content(payload)
    request.url = urlunsplit(urlsplit(request.url)._replace(netloc=ANSWERED_HOST))
    return response


class InProcessTransport:
    """A botocore ``before-send`` handler that answers from the WSGI app directly."""

    def __init__(self, app: WSGIApp, *, access_key: str, region: str, signing_name: str) -> None:
        self.app = app
        self._authorization = (
            f"AWS4-HMAC-SHA256 Credential={access_key}/20000101/{region}/{signing_name}/"
            "aws4_request, SignedHeaders=host, Signature=unsigned-in-process"
        )

    def __call__(self, request: Any, **_: Any) -> Any:
        if "Authorization" not in request.headers:
            request.headers["Authorization"] = self._authorization
        return answer_in_process(self.app, request)
