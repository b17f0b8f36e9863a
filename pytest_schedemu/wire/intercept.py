"""Interception: every botocore ``scheduler`` client in the process, and the rule operations
of every ``events`` client, served in process.

``install()`` wraps botocore's ``Endpoint.make_request``, the one call every request of
every client goes through, whatever session built the client and whenever (before the
plugin loaded, in another plugin, from a session made before ``install()``; boto3's,
botocore's and aiobotocore's alike). On a ``scheduler`` or ``events`` client's first
request the wrapper gives that client's own event emitter its handlers, once. They do
nothing until ``route(app)`` makes ``app`` the answer: then each Scheduler request, and
each EventBridge rule operation (``PutRule``, ``PutTargets``...; unless the route was
entered with ``rules=False``), is run through that WSGI app and never reaches a socket.
The app reads the region from the SigV4 credential scope and the account from a 12-digit
access key id; when it does not check signatures (the route says), the request goes
unsigned with that scope alone, as the emulator's own in-process clients send theirs,
sparing botocore's signing, a third of a call's cost. Routes nest; the innermost active
one answers.

An ``events`` client's other operations (``PutEvents``, event buses, archives...) go where
they would have gone without the emulator, signed as they would have been, and never leave
the process: botocore calls every ``before-send`` handler and takes the first answer, so a
handler registered after everyone else's (``_refuse_unserved``) answers only what nobody
before it did. Under moto's ``mock_aws``, whichever was entered first, moto's handler
answers them; otherwise the refusal does, an ``UnknownOperationException`` naming what the
emulator serves.

The handlers are given at the first request, not at the client's birth (botocore's
built-in handler list, which moto uses, reaches only the sessions made after it is
extended), so no client is too old to be reached. The handlers go to the client's emitter
before its request is signed, and under this registry's lock, so two threads making a
client's first requests at once both find them in place.

Our ``before-send.scheduler`` and ``before-send.eventbridge`` handlers are more specific
than moto's ``before-send``, so botocore calls them first whichever was registered first;
a request they answer is then readdressed (``server.ANSWERED_HOST``) so that moto's
handler, which botocore still calls, leaves it alone. The pytest plugin installs when it is
loaded; the emulator module when it is imported; ``route()`` whenever it is entered.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from contextlib import AbstractContextManager
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlsplit

from botocore import UNSIGNED

from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.events_api.names import RULE_OPERATIONS
from pytest_schedemu.functions.calling import running_function
from pytest_schedemu.protocol.signing import unsigned_authorization
from pytest_schedemu.settings.mocked import moto_answers_botocore

if TYPE_CHECKING:
    from pytest_schedemu.wire.server import WSGIApp

#: The services' ids as botocore writes them in event names (``ServiceId.hyphenize()``).
SERVICE_EVENT_ID = "scheduler"
EVENTS_EVENT_ID = "eventbridge"
_SERVICES = frozenset({SERVICE_EVENT_ID, EVENTS_EVENT_ID})
#: The domains of AWS's endpoints, in every partition.
_AWS_DOMAINS = ("amazonaws.com", "amazonaws.com.cn", "api.aws", "c2s.ic.gov", "sc2s.sgov.gov")
#: The first botocore that signs one request with other credentials than its client's.
FIRST_LENDING_BOTOCORE = "1.34.70"

# An attribute set on requests of the emulator's own HTTP clients, which keep using the
# socket (an attribute: the oldest botocore this package supports gives prepared requests
# no context to carry it).
_EXEMPT = "schedemu_exempt_from_interception"
# The request context's mark of a request left unsigned by ``_choose_signer``.
_UNSIGNED = "schedemu_unsigned"
# The mark of an events request the active route does not serve: another handler answers
# it, or ``_refuse_unserved`` does.
_PASSED_ON = "schedemu_passed_on"


class _Route:
    """One ``route()``: while entered, its app answers (the innermost route's does).

    A class rather than a generator context manager: every schedemu test enters one.
    """

    def __init__(
        self,
        registry: Interception,
        app: WSGIApp,
        checks_signatures: Callable[[], bool],
        rules: bool,
    ) -> None:
        self._registry = registry
        self.app = app
        self.checks_signatures = checks_signatures
        #: Whether EventBridge's rule operations are served too.
        self.rules = rules

    def serves(self, service: str, operation: str) -> bool:
        if service == SERVICE_EVENT_ID:
            return True
        return self.rules and operation in RULE_OPERATIONS

    def __enter__(self) -> None:
        self._registry._enter(self)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._registry._leave(self)


class Interception:
    """The process-wide registry of active routes and reached clients, behind its own lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._routes: list[_Route] = []
        # The event emitters of the clients given the handlers; weakly, so a client that is
        # dropped is forgotten with its emitter.
        self._reached: weakref.WeakSet[Any] = weakref.WeakSet()
        # The emitters of clients that keep their own way (``exempt``): never unsigned.
        self._exempt: weakref.WeakSet[Any] = weakref.WeakSet()
        self._installed = False
        self._can_lend_credentials = False

    def install(self) -> None:
        """Make every botocore ``scheduler`` and ``events`` client's next request reach the
        handlers.

        Idempotent.
        """
        with self._lock:
            if self._installed:
                return
            from botocore.endpoint import Endpoint
            from botocore.signers import RequestSigner

            self._can_lend_credentials = (
                "request_credentials"
                in inspect.signature(RequestSigner.get_auth_instance).parameters
            )
            Endpoint.make_request = self._reaching(Endpoint.make_request)
            self._installed = True

    def _reaching(self, make_request: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(make_request)
        def reaching(endpoint: Any, operation_model: Any, request_dict: Any) -> Any:
            service = operation_model.service_model.service_id.hyphenize()
            if service in _SERVICES:
                self._reach(endpoint._event_emitter, service)
            function = running_function()
            if function is not None:
                self._keep_in_process(function, endpoint, service, operation_model.name)
            return make_request(endpoint, operation_model, request_dict)

        return reaching

    def _keep_in_process(self, function: str, endpoint: Any, service: str, operation: str) -> None:
        """A request of a function's handler that nothing in the process answers is refused
        before it is sent: the emulator's route serves Scheduler and the rule operations,
        moto's ``mock_aws`` what it mocks, and an endpoint outside AWS (a local one) is the
        handler's own choice; AWS itself, never."""
        route = self._active()
        if route is not None and route.serves(service, operation):
            return
        if moto_answers_botocore() or not _is_aws(getattr(endpoint, "host", "")):
            return
        raise SchedemuError(
            f"function {function}: its {service} client's {operation} was refused without "
            f"being sent: a function run by the emulator reaches AWS never; the emulator "
            f"serves Scheduler and EventBridge's rule operations, and moto's mock_aws, when "
            f"active, the other services"
        )

    def _reach(self, emitter: Any, service: str) -> None:
        with self._lock:
            if emitter in self._reached:
                return
            if emitter not in self._exempt:
                emitter.register(f"choose-signer.{service}", self._choose_signer)
            emitter.register(f"before-sign.{service}", self._prepare_signing)
            emitter.register(f"before-send.{service}", self._answer)
            if service == EVENTS_EVENT_ID:
                # After every other handler of the client, moto's included.
                emitter.register_last("before-send", self._refuse_unserved)
            self._reached.add(emitter)

    def keep_own_way(self, emitter: Any) -> None:
        with self._lock:
            self._exempt.add(emitter)

    def route(
        self, app: WSGIApp, checks_signatures: Callable[[], bool] = lambda: True, rules: bool = True
    ) -> AbstractContextManager[None]:
        """While the block runs, ``app`` answers the Scheduler requests of every client
        (``install()`` reaches them), and the rule operations of every events client unless
        ``rules`` is false; while ``checks_signatures()`` is false, they are not signed."""
        return _Route(self, app, checks_signatures, rules)

    def _enter(self, route: _Route) -> None:
        with self._lock:
            self._routes.append(route)

    def _leave(self, route: _Route) -> None:
        with self._lock:
            # By identity, so a route left out of order removes itself and no other.
            self._routes = [entered for entered in self._routes if entered is not route]

    def active_app(self) -> WSGIApp | None:
        """The app of the innermost active route, or None when nothing is intercepted."""
        route = self._active()
        return None if route is None else route.app

    def _active(self) -> _Route | None:
        with self._lock:
            return self._routes[-1] if self._routes else None

    def _serving(self, event_name: str) -> _Route | None:
        """The active route when it serves the request of ``event_name``
        (``<event>.<service>.<operation>``), None otherwise."""
        route = self._active()
        return route if route is not None and route.serves(*_named(event_name)) else None

    def _choose_signer(self, event_name: str, context: Any = None, **_: Any) -> Any:
        # SigV4 is a third of a call's cost, and an app that does not check signatures reads
        # only the credential scope: such requests go unsigned, with the scope alone
        # (``_prepare_signing``), as the emulator's own in-process clients send theirs.
        route = self._serving(event_name)
        if route is None or route.checks_signatures() or context is None:
            return None
        context[_UNSIGNED] = True
        return UNSIGNED

    def _answer(self, request: Any, event_name: str, **_: Any) -> Any:
        route = self._active()
        if route is None or getattr(request, _EXEMPT, False):
            return None
        transport = _transport()
        if transport.answered_in_process(request):
            return None
        if not route.serves(*_named(event_name)):
            if route.rules:
                setattr(request, _PASSED_ON, True)
            return None
        return transport.answer_in_process(route.app, request)

    def _refuse_unserved(self, request: Any, **_: Any) -> Any:
        # Called after every other handler: botocore takes the first answer, so this one
        # counts only when no handler before it (moto's) answered.
        if not getattr(request, _PASSED_ON, False):
            return None
        return _transport().refusal(request)

    def _prepare_signing(
        self,
        request: Any,
        event_name: str,
        request_signer: Any = None,
        signature_version: Any = None,
        region_name: str | None = None,
        signing_name: str | None = None,
        **_: Any,
    ) -> None:
        # ``_choose_signer`` leaves only requests the route serves unsigned.
        if request.context.get(_UNSIGNED):
            credentials = getattr(request_signer, "_credentials", None)
            access_key = "testing" if credentials is None else credentials.access_key
            request.headers["Authorization"] = unsigned_authorization(
                access_key, region_name or "", signing_name or SERVICE_EVENT_ID
            )
            return
        if self._serving(event_name) is None:
            # Not served here: signed as it would be without the emulator.
            return
        self._lend_credentials(
            request, request_signer, signature_version, signing_name or SERVICE_EVENT_ID
        )

    def _lend_credentials(
        self, request: Any, request_signer: Any, signature_version: Any, service: str
    ) -> None:
        # A client that found no credentials when it was built (a module-level client on a
        # machine without AWS configuration) keeps none, and signing would raise
        # NoCredentialsError before the request reaches ``_answer``. botocore versions with
        # per-request credentials let it sign with dummies instead: the default account.
        if signature_version is UNSIGNED:
            return
        if getattr(request_signer, "_credentials", True) is not None:
            return
        if not self._can_lend_credentials:
            import botocore

            raise SchedemuError(
                f"The schedemu emulator could not intercept this {service} client: it has no "
                f"credentials, and botocore {botocore.__version__} cannot sign a request "
                "with others than its client's (botocore "
                f"{FIRST_LENDING_BOTOCORE} and later can). Give the client any credentials "
                "(aws_access_key_id=..., or AWS_ACCESS_KEY_ID) or upgrade botocore; nothing "
                "was sent."
            )
        from botocore.credentials import Credentials

        signing = dict(request.context.get("signing") or {})
        signing.setdefault("request_credentials", Credentials("testing", "testing"))
        request.context["signing"] = signing


def _is_aws(url: str) -> bool:
    """Whether ``url``'s host is one of AWS's (``*.amazonaws.com``, ``*.api.aws``...)."""
    host = urlsplit(url).hostname or ""
    return any(host == suffix or host.endswith("." + suffix) for suffix in _AWS_DOMAINS)


def _named(event_name: str) -> tuple[str, str]:
    """The service and the operation of a botocore event name (``before-send.<service>.<op>``)."""
    parts = event_name.split(".", 2)
    return (parts[1], parts[2]) if len(parts) == 3 else ("", "")


@functools.cache
def _transport() -> ModuleType:
    # Not imported at the top: the plugin imports this module on every pytest run, and the
    # transport brings Werkzeug's modules. Once, not per request: an import statement in a
    # function costs each call a lookup of its own.
    from pytest_schedemu.wire import transport

    return transport


def _mark_exempt(request: Any, **_: Any) -> None:
    setattr(request, _EXEMPT, True)


#: The process's one registry.
interception = Interception()


def install() -> None:
    """Make every botocore ``scheduler`` and ``events`` client's next request reach the
    interception."""
    interception.install()


def route(
    app: WSGIApp, checks_signatures: Callable[[], bool] = lambda: True, rules: bool = True
) -> AbstractContextManager[None]:
    """A context manager: while it is active, every Scheduler client, and the rule
    operations of every events client unless ``rules`` is false, are answered by ``app``
    (unsigned while ``checks_signatures()`` is false)."""
    interception.install()
    return interception.route(app, checks_signatures, rules)


def exempt(client: Any) -> None:
    """Leave ``client``'s requests alone whatever route is active (it has its own way)."""
    service_id = client.meta.service_model.service_id.hyphenize()
    interception.keep_own_way(client.meta.events)
    client.meta.events.register_first(
        f"before-send.{service_id}", _mark_exempt, unique_id="schedemu-exempt"
    )
