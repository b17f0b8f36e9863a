"""The in-thread HTTP server, and the in-process transport for botocore clients.

The server socket is bound in the caller's thread, so a busy port fails the caller at once
with an error that names the port; Werkzeug never gets the chance to print and call
``sys.exit``. Requests are served from one daemon thread plus one thread per connection.
``stop()`` closes open client connections itself: a handler thread blocked reading from an
idle client would otherwise hold up the join.

Against clients that misbehave, by mistake or not: at most ``max_connections`` connections
are served at once (the others wait in the listen backlog, not accepted), a connection
whose request has not arrived in full ``connection_timeout`` seconds after it was accepted
is closed however it trickles (``connection_input``), the request line and headers are
bounded to 64 KiB together, and a request whose body length is ambiguous (a Content-Length
that is not a number, two that disagree, one beside ``Transfer-Encoding: chunked``) is
refused before its body is read. http.server's own refusals (a line over 65,536 bytes, over
100 headers) and ours are answered in the API's JSON error shape.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
from collections.abc import Iterable, Iterator
from typing import Any, Callable

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

from pytest_schedemu.errors import ApiError, ServerStartError
from pytest_schedemu.protocol.body import MAX_BODY_BYTES, check_framing
from pytest_schedemu.protocol.wsgi import request_id
from pytest_schedemu.scheduler_api.app import error_body
from pytest_schedemu.settings.options import DEFAULTS, Settings
from pytest_schedemu.wire.connection_input import DeadlineInput, HeadersTooLarge, RequestReader
from pytest_schedemu.wire.guard import NetworkGuard

logger = logging.getLogger("pytest_schedemu.wire.server")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

# How often the serving loop looks for a shutdown request: it bounds how long stop() waits.
POLL_INTERVAL = 0.02
LISTEN_BACKLOG = 128
# After refusing a request, input that arrives within this pause is still read and dropped.
_DISCARD_PAUSE = 0.01
# The environ key of the connection's ``DeadlineInput``.
_INPUT = "schedemu.connection_input"


def _brief_after_answering(app: WSGIApp) -> WSGIApp:
    """``app``, after whose answer a read from the connection waits only briefly.

    Werkzeug reads and drops what is left of a request after the answer, so that a client
    still sending sees the answer, not a reset; but each of its reads waits for 10 MB or
    the end of the stream, which a client that sent part of a refused body and then reads
    to the end of the answer would make last until the idle timeout.
    """

    def answered_briefly(
        environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterator[bytes]:
        yield from app(environ, start_response)
        environ[_INPUT].answered(_DISCARD_PAUSE)

    return answered_briefly


class _QuietHandler(WSGIRequestHandler):
    """Logs requests to the plugin's logger at DEBUG instead of to the ``werkzeug`` logger."""

    server: _Server

    def setup(self) -> None:
        super().setup()
        # A write waits this long at most for a client that does not read; reads end by
        # the request's deadline.
        self.connection.settimeout(self.server.connection_timeout)
        self.rfile.close()  # the plain stream http.server made; the socket stays open
        self._input = DeadlineInput(self.connection, self.server.connection_timeout)
        self._request = RequestReader(self._input)
        self.rfile = self._request
        # Werkzeug writes the status and headers, then the body, in separate sends; with
        # Nagle's algorithm the body waits for the client's delayed ACK of the headers,
        # which adds milliseconds to every call on loopback.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_expect_100(self) -> bool:
        # Werkzeug's run_wsgi answers "100 Continue" itself, after the framing check;
        # http.server would answer it first, and twice in all.
        return True

    def parse_request(self) -> bool:
        self._request.count_headers(len(self.raw_requestline))
        try:
            return super().parse_request()
        except HeadersTooLarge as error:
            self._answer_error(431, "ValidationException", str(error))
            return False
        finally:
            self._request.headers_read()

    def make_environ(self) -> dict[str, Any]:
        environ = super().make_environ()
        environ[_INPUT] = self._input
        return environ

    def run_wsgi(self) -> None:
        try:
            check_framing(self.headers)
        except ApiError as error:
            self._answer_error(error.status, error.code, error.message)
            return
        super().run_wsgi()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # http.server's own refusals: a request line or header line over 65,536 bytes,
        # more than 100 headers, a malformed request line.
        short, long = self.responses.get(code, ("Bad Request", ""))
        text = f"{message or short}: {explain or long}" if explain or long else message or short
        self.log_error("code %d, message %s", code, text)
        self._answer_error(code, "ValidationException", text)

    def _answer_error(self, status: int, code: str, message: str) -> None:
        body = error_body(code, message)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-amzn-RequestId", request_id())
        self.send_header("x-amzn-ErrorType", code)
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self._discard_unread()

    def _discard_unread(self) -> None:
        # Closing a socket with unread input makes the kernel send a reset, which can
        # destroy the answer before the client reads it: take in what is already on its
        # way, up to a bound, as Werkzeug does after the answers of the application.
        budget = MAX_BODY_BYTES
        with selectors.DefaultSelector() as selector:
            selector.register(self.connection, selectors.EVENT_READ)
            while budget > 0 and selector.select(timeout=_DISCARD_PAUSE):
                try:
                    data = self.connection.recv(min(budget, 65536))
                except OSError:
                    return
                if not data:
                    return
                budget -= len(data)

    def log(self, type: str, message: str, *args: Any) -> None:
        if self.server.log_requests:
            logger.info(message, *args)
        else:
            logger.debug(message, *args)


class _Server(ThreadedWSGIServer):
    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        *args: Any,
        log_requests: bool,
        max_connections: int,
        connection_timeout: float,
        **kwargs: Any,
    ) -> None:
        self.log_requests = log_requests
        self.connection_timeout = connection_timeout
        self._slots = threading.BoundedSemaphore(max_connections)
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._connections_lock = threading.Lock()
        super().__init__(*args, **kwargs)
        self.app = _brief_after_answering(self.app)

    def get_request(self) -> tuple[socket.socket, Any]:
        # With every slot taken, a new connection stays in the listen backlog, unaccepted,
        # until one frees. The wait is short so that serve_forever still notices a
        # shutdown within POLL_INTERVAL; an OSError here only makes it look again.
        if not self._slots.acquire(timeout=POLL_INTERVAL):
            raise OSError("every connection slot is taken")
        try:
            return super().get_request()
        except BaseException:
            self._slots.release()
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name=f"schedemu-connection-{self.port}",
            daemon=True,
        )
        with self._connections_lock:
            self._connections.add(request)
            self._handler_threads.add(thread)
        try:
            thread.start()
        except BaseException:
            self._forget(request, thread)
            raise

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self._forget(request, threading.current_thread())

    def _forget(self, request: Any, thread: threading.Thread) -> None:
        with self._connections_lock:
            self._connections.discard(request)
            self._handler_threads.discard(thread)
        self._slots.release()

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
        # Allows a restart on the port of a just-stopped server (TIME_WAIT), never a second
        # listener on a port that is in use. Port 0 needs it too: the connections a server
        # accepted inherit it, and without it their TIME_WAIT keeps the port the system
        # picked from being asked for again.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as error:
        sock.close()
        raise ServerStartError(
            f"Cannot start the Scheduler emulator on {host}:{port}: {error.strerror or error}. "
            f"{'Port ' + str(port) + ' is in use; ' if port else ''}"
            "choose another port, or port=0 for a free one."
        ) from error
    return sock


class ServerThread:
    """A Werkzeug server for ``app``, served from a daemon thread, as ``settings`` say: on
    (``host``, ``port``), at most ``max_connections`` connections at once, one whose
    request has not arrived ``connection_timeout`` seconds after it was accepted closed,
    and only requests for its own hosts (``allowed_hosts`` too) from no other origin
    answered (``api.guard``).
    """

    def __init__(self, app: WSGIApp, settings: Settings = DEFAULTS) -> None:
        host, port = settings.host, settings.port
        listener = _bind(host, port)
        guarded = NetworkGuard(
            app,
            host=host,
            port=listener.getsockname()[1],
            allowed_hosts=settings.allowed_hosts,
        )
        try:
            self._server = _Server(
                host,
                port,
                guarded,
                handler=_QuietHandler,
                fd=listener.fileno(),
                log_requests=settings.log_requests,
                max_connections=settings.max_connections,
                connection_timeout=settings.connection_timeout,
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
