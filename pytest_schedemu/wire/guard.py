"""Which requests over the network are answered, and what every answer tells a browser.

Any web page the developer opens can send requests to a service on this machine: a form,
or a ``no-cors`` fetch, posted to ``http://127.0.0.1:4566`` needs nobody's leave, and a
name of the page's own that its DNS later points at 127.0.0.1 (DNS rebinding) lets the
page read the answers too. ``NetworkGuard`` wraps the application the HTTP server runs,
and answers 403 ``AccessDeniedException``, before the application sees the request:

- to a ``Host`` that is not one of the service's own: ``localhost``, ``127.0.0.1``,
  ``[::1]`` or the bound address, with the server's port or none, or a host of
  ``allowed_hosts`` (without a port there: on any). A rebinding page's requests carry its
  own name.
- to an ``Origin`` other than the service's own (``http://``, or ``https://`` behind a
  proxy, and the request's ``Host``):
  a browser sends one with every request of a page on another origin but a plain GET,
  and with none of the SDKs' or the CLI's.

Requests answered in process (``wire/transport``) never cross a socket; no page can send
them, and they are not the guard's. The body-type rules that complete this (no form or
text body, JSON for the control API's changes) are the APIs' own (``body``), as they hold
on every path.

Every answer through the guard, refusals included, carries ``BROWSER_HEADERS``: no other
page may frame or embed it, nothing it serves is read as another type, nothing is kept
in a cache, and the dashboard runs only its own files.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from typing import Any, Callable

from pytest_schedemu.control_api.dashboard import INLINE_STYLES
from pytest_schedemu.errors import AccessDeniedException
from pytest_schedemu.protocol.wsgi import StartResponse, WSGIEnvironment, request_id, status_line
from pytest_schedemu.scheduler_api.app import error_body
from pytest_schedemu.settings.values import ANY_HOST, split_host

#: The names of this machine's loopback interface, as a Host header writes them.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_WAYS_TO_ALLOW = "--allowed-hosts (SCHEDEMU_ALLOWED_HOSTS, allowed_hosts=[...])"
_KEPT_HOSTS = 64


def _style_hash(style: str) -> str:
    digest = hashlib.sha256(style.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


#: The dashboard's files and nothing else: no inline script, no framing, only the inline
#: style sheets the pages hold, by hash (the favicon is an empty data: URL).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "img-src 'self' data:",
        "style-src 'self' " + " ".join(_style_hash(style) for style in INLINE_STYLES),
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
BROWSER_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
)

WSGIApp = Callable[[WSGIEnvironment, StartResponse], Iterable[bytes]]


class NetworkGuard:
    """``app``, answering only the requests a page on another origin cannot have sent."""

    def __init__(self, app: WSGIApp, *, host: str, port: int, allowed_hosts: Iterable[str]) -> None:
        self._app = app
        self._port = port
        bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
        self._own_names = frozenset((*LOOPBACK_NAMES, bound.lower()))
        self._any_host = ANY_HOST in allowed_hosts
        self._allowed: set[tuple[str, int | None]] = set()
        for allowed in allowed_hosts:
            found = split_host(allowed)
            if found is not None:
                self._allowed.add(found)
        # The Host headers answered already, as sent: a client sends the same one with every
        # request, and reading it again would cost every answer. Bounded, since an allowed
        # host without a port admits a header per port.
        self._answered_hosts: set[str] = set()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        origin = environ.get("HTTP_ORIGIN")
        refusal = self._host_refusal(host) or self._origin_refusal(origin, host)
        if refusal is not None:
            return self._refuse(refusal, start_response)

        def with_browser_headers(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Any:
            return start_response(status, [*headers, *BROWSER_HEADERS], exc_info)

        return self._app(environ, with_browser_headers)

    def _host_refusal(self, host: str | None) -> str | None:
        if self._any_host or host in self._answered_hosts:
            return None
        refusal = self._read_host(host)
        if refusal is None and host is not None and len(self._answered_hosts) < _KEPT_HOSTS:
            self._answered_hosts.add(host)
        return refusal

    def _read_host(self, host: str | None) -> str | None:
        found = None if host is None else split_host(host)
        if found is not None:
            name, port = found
            if (name, None) in self._allowed or found in self._allowed:
                return None
            if name in self._own_names and port in (None, self._port):
                return None
        shown = "no Host header" if host is None else f"Host {host!r}"
        own = ", ".join(sorted(self._own_names))
        return (
            f"This service does not answer requests for {shown}: it answers {own} on port "
            f"{self._port}, so that a web page cannot reach it under a name of its own. To "
            f"answer another host (a container's name, a forwarded port), start it with "
            f"{_WAYS_TO_ALLOW}."
        )

    @staticmethod
    def _origin_refusal(origin: str | None, host: str | None) -> str | None:
        if origin is None:
            return None
        own = (f"http://{host}".lower(), f"https://{host}".lower())
        if host is not None and origin.lower() in own:
            return None
        return (
            f"This service does not answer requests from Origin {origin!r}: a web page on "
            f"another origin may not use it. Only its own pages (http://{host}) may; the "
            "SDKs and the CLI send no Origin."
        )

    @staticmethod
    def _refuse(message: str, start_response: StartResponse) -> list[bytes]:
        error = AccessDeniedException(message)
        body = error_body(error.code, error.message)
        start_response(
            status_line(error.status),
            [
                ("x-amzn-RequestId", request_id()),
                ("x-amzn-ErrorType", error.code),
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                *BROWSER_HEADERS,
            ],
        )
        return [body]
