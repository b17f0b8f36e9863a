"""Interception: every botocore ``scheduler`` client in the process, served in process.

``install()`` adds two handlers to botocore's built-in handler list, as moto does, so every
botocore session created afterwards (boto3's, botocore's, aiobotocore's) gives them to
every client it builds, whatever its region, credentials or ``endpoint_url``. They do
nothing until ``route(app)`` makes ``app`` the answer: then each Scheduler request is run
through that WSGI app, signed as the client signed it (the app reads the region from the
SigV4 credential scope and the account from a 12-digit access key id), and never reaches
a socket. Routes nest; the innermost active one answers.

Our ``before-send.scheduler`` handler is more specific than moto's ``before-send``, so
botocore calls it first whichever was registered first; the request it answers is then
readdressed (``server.ANSWERED_HOST``) so that moto's handler, which botocore still calls,
leaves it alone. Clients built before ``install()`` by a session that already existed are
not reached, except those of boto3's default session. The pytest plugin installs when it
is loaded, before any test module or ``conftest.py`` is imported; the emulator module when
it is imported.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_schedemu.wire.server import WSGIApp

#: The service's id as botocore writes it in event names (``ServiceId.hyphenize()``).
SERVICE_EVENT_ID = "scheduler"

# An attribute set on requests of the emulator's own HTTP clients, which keep using the
# socket (an attribute: the oldest botocore this package supports gives prepared requests
# no context to carry it).
_EXEMPT = "schedemu_exempt_from_interception"


class Interception:
    """The process-wide registry of active routes, behind its own lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._routes: list[tuple[object, WSGIApp]] = []
        self._installed = False
        self._can_lend_credentials = False

    def install(self) -> None:
        """Give every botocore session created from now on the interception handlers.

        Idempotent. boto3's default session, if it already exists, gets them too.
        """
        with self._lock:
            if self._installed:
                return
            from botocore.handlers import BUILTIN_HANDLERS
            from botocore.signers import RequestSigner

            self._can_lend_credentials = (
                "request_credentials"
                in inspect.signature(RequestSigner.get_auth_instance).parameters
            )
            handlers = self._handlers()
            BUILTIN_HANDLERS.extend(handlers)
            boto3 = sys.modules.get("boto3")
            default_session = getattr(boto3, "DEFAULT_SESSION", None)
            if default_session is not None:
                for event_name, handler in handlers:
                    default_session.events.register(event_name, handler)
            self._installed = True

    def _handlers(self) -> list[tuple[str, Any]]:
        return [
            (f"before-sign.{SERVICE_EVENT_ID}", self._lend_credentials),
            (f"before-send.{SERVICE_EVENT_ID}", self._answer),
        ]

    @contextmanager
    def route(self, app: WSGIApp) -> Iterator[None]:
        """While the block runs, ``app`` answers the Scheduler requests of clients that have
        the handlers (``install()`` gives them out)."""
        token = object()
        with self._lock:
            self._routes.append((token, app))
        try:
            yield
        finally:
            with self._lock:
                # By identity, so a route left out of order removes itself and no other.
                self._routes = [(t, a) for t, a in self._routes if t is not token]

    def active_app(self) -> WSGIApp | None:
        """The app of the innermost active route, or None when nothing is intercepted."""
        with self._lock:
            return self._routes[-1][1] if self._routes else None

    def _answer(self, request: Any, **_: Any) -> Any:
        app = self.active_app()
        if app is None or getattr(request, _EXEMPT, False):
            return None
        # Here, not at the top: the plugin imports this module on every pytest run, and the
        # server module brings Werkzeug's.
        from pytest_schedemu.wire.transport import answer_in_process, answered_in_process

        if answered_in_process(request):
            return None
        return answer_in_process(app, request)

    def _lend_credentials(
        self, request: Any, request_signer: Any = None, signature_version: Any = None, **_: Any
    ) -> None:
        # A client that found no credentials when it was built (a module-level client on a
        # machine without AWS configuration) keeps none, and signing would raise
        # NoCredentialsError before the request reaches ``_answer``. botocore versions with
        # per-request credentials let it sign with dummies instead: the default account.
        if not self._can_lend_credentials or self.active_app() is None:
            return
        from botocore import UNSIGNED

        if signature_version is UNSIGNED:
            return
        if getattr(request_signer, "_credentials", True) is not None:
            return
        from botocore.credentials import Credentials

        signing = dict(request.context.get("signing") or {})
        signing.setdefault("request_credentials", Credentials("testing", "testing"))
        request.context["signing"] = signing


def _mark_exempt(request: Any, **_: Any) -> None:
    setattr(request, _EXEMPT, True)


#: The process's one registry.
interception = Interception()


def install() -> None:
    """Give every botocore session created from now on the interception handlers."""
    interception.install()


def route(app: WSGIApp) -> AbstractContextManager[None]:
    """A context manager: while it is active, every Scheduler client is answered by ``app``."""
    interception.install()
    return interception.route(app)


def exempt(client: Any) -> None:
    """Leave ``client``'s requests alone whatever route is active (it has its own way)."""
    service_id = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register_first(
        f"before-send.{service_id}", _mark_exempt, unique_id="schedemu-exempt"
    )
