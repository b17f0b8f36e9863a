"""The Scheduler REST API as a WSGI application, and the emulator's one endpoint.

Routing, request parsing, shape validation, idempotency and error rendering live here; the
operations themselves live in ``operations``. The HTTP server and the in-process transport
both call this one application, so both answer byte for byte the same. It hands the
control API its paths (``extra_routes``) and EventBridge's JSON 1.1 requests, which name
their operation in ``X-Amz-Target``, to ``events_app``.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import parse_qs

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.errors import (
    ApiError,
    ConflictException,
    InternalServerException,
    ServiceUnavailableException,
    StateError,
    UnknownOperationException,
)
from pytest_schedemu.events_api.app import EventsApi
from pytest_schedemu.formats.times import truncate_to_ms
from pytest_schedemu.protocol.body import MAX_BODY_BYTES, json_object, read_body, refuse_form_body
from pytest_schedemu.protocol.faults import ApiErrorInjections, ServerErrors
from pytest_schedemu.protocol.signing import Caller, claimed_caller, partition_of
from pytest_schedemu.protocol.signing import verify as verify_signature
from pytest_schedemu.protocol.validation import NotAnInteger, ServiceValidator
from pytest_schedemu.protocol.wsgi import (
    StartResponse,
    WSGIEnvironment,
    canonical_json,
    json_bytes,
    request_id,
    status_line,
)
from pytest_schedemu.scheduler_api.operations import Operations
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.idempotency import StoredResponse
from pytest_schedemu.timekeeping.clock import Clock

_INTEGER = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True)
class _Binding:
    """Where one input member travels on the wire."""

    member: str
    location: str | None  # "uri", "querystring", or None for the JSON body
    wire_name: str
    kind: str


@functools.cache
def service_validator() -> ServiceValidator:
    # Compiling the model takes milliseconds; every emulator in the process shares it.
    return ServiceValidator()


def _bindings(validator: ServiceValidator) -> dict[str, list[_Binding]]:
    result: dict[str, list[_Binding]] = {}
    for name in validator.model.operation_names:
        shape = validator.model.operation_model(name).input_shape
        result[name] = [
            _Binding(
                member,
                member_shape.serialization.get("location"),
                member_shape.serialization.get("name", member),
                member_shape.type_name,
            )
            for member, member_shape in shape.members.items()
        ]
    return result


class _RequestPlan:
    """What reading one operation's request takes, worked out once from its bindings."""

    __slots__ = ("bindings", "reads_body", "token_wire_name")

    def __init__(self, bindings: list[_Binding]) -> None:
        #: Each binding as (member, where: 1 URI, 2 query string, else 0: the body, wire
        #: name, kind).
        self.bindings = tuple(
            (b.member, {"uri": 1, "querystring": 2}.get(b.location or "", 0), b.wire_name, b.kind)
            for b in bindings
        )
        self.reads_body = any(b.location is None for b in bindings)
        self.token_wire_name = next(
            (b.wire_name for b in bindings if b.member == "ClientToken"), None
        )


class Router:
    """Method and path to operation and URI labels, built from the model's request URIs.

    A label matches one or more characters of any kind, "/" included: the server decodes
    %2F before routing, and a name containing "/" must reach validation (and its
    ValidationException) rather than end as an unknown route.
    """

    def __init__(self, validator: ServiceValidator) -> None:
        self._routes: dict[str, list[tuple[re.Pattern[str], str]]] = {}
        for name in validator.model.operation_names:
            http = validator.model.operation_model(name).http
            pattern = re.sub(r"\\{(\w+)\\}", r"(?P<\1>.+)", re.escape(http["requestUri"]))
            self._routes.setdefault(http["method"], []).append((re.compile(pattern), name))

    def match(self, method: str, path: str) -> tuple[str, dict[str, str]] | None:
        for pattern, operation in self._routes.get(method, ()):
            found = pattern.fullmatch(path)
            if found is not None:
                return operation, found.groupdict()
        return None


_canonical = canonical_json


#: Answers the requests of another API on the same port (the control API) as (status, body,
#: content type), or None when the request is not its; it may add to the headers given,
#: which go out with whatever the request is answered, an error too.
ExtraRoutes = Callable[[WSGIEnvironment, "list[tuple[str, str]]"], "tuple[int, bytes, str] | None"]


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> bytes:
    return json_bytes({**(details or {}), "Message": message, "__type": code})


class SchedulerApp:
    def __init__(
        self,
        *,
        commands: Commands,
        clock: Clock,
        settings: LiveSettings,
        extra_routes: ExtraRoutes | None = None,
    ) -> None:
        #: The one way in for the changes of both APIs (and of the stacks loaded beside).
        self.commands = commands
        self.store = commands.store
        self.clock = clock
        self.settings = settings
        self.server_errors = ServerErrors()
        self.validator = service_validator()
        self.operations = Operations(self.commands)
        self.bindings = _bindings(self.validator)
        self.plans = {name: _RequestPlan(bindings) for name, bindings in self.bindings.items()}
        self.router = Router(self.validator)
        self.injections = ApiErrorInjections(self.bindings)
        self.extra_routes = extra_routes
        #: EventBridge's rule operations (``events_app``), on the same endpoint.
        self.events = EventsApi(
            commands=self.commands,
            clock=clock,
            settings=settings,
            server_errors=self.server_errors,
        )

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        # The JSON 1.1 protocol names its operation in a header, and answers in its own shape.
        if "HTTP_X_AMZ_TARGET" in environ:
            return self.events(environ, start_response)
        headers = [("x-amzn-RequestId", request_id())]
        operation: str | None = None
        content_type = "application/json"
        try:
            handled = self.extra_routes(environ, headers) if self.extra_routes is not None else None
            if handled is not None:
                status, body, content_type = handled
            else:
                operation, labels = self._route(environ)
                status, body = self._handle(environ, operation, labels)
        except (ApiError, StateError) as raised:
            # A state file that refused a write: the change was undone, the service lives.
            error = (
                raised if isinstance(raised, ApiError) else ServiceUnavailableException(str(raised))
            )
            status, body = error.status, error_body(error.code, error.message, error.details)
            headers.append(("x-amzn-ErrorType", error.code))
        except Exception as exc:
            self.server_errors.crashed(environ, operation, exc)
            crash = InternalServerException()
            status, body = crash.status, error_body(crash.code, crash.message)
            headers.append(("x-amzn-ErrorType", crash.code))
        headers.append(("Content-Type", content_type))
        headers.append(("Content-Length", str(len(body))))
        start_response(status_line(status), headers)
        return [body]

    # -- request parsing -------------------------------------------------------------------

    def _route(self, environ: WSGIEnvironment) -> tuple[str, dict[str, str]]:
        method = environ.get("REQUEST_METHOD", "")
        # WSGI hands the decoded path over as latin-1 text; the labels are UTF-8.
        path = environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8", "replace")
        found = self.router.match(method, path)
        if found is None:
            raise UnknownOperationException(f"Unknown operation {method} {path}.")
        return found

    def _handle(
        self, environ: WSGIEnvironment, operation: str, labels: dict[str, str]
    ) -> tuple[int, bytes]:
        raw_body = read_body(environ, MAX_BODY_BYTES)
        settings = self.settings.current
        # The partition is the verified credential's, when signatures are verified: a
        # header is read once, by the verifier, and never a second time another way.
        caller: Caller | None
        if settings.verify_signatures:
            caller = verify_signature(environ, raw_body, settings.credentials, self.clock.now())
        else:
            caller = claimed_caller(environ)
        refuse_form_body(environ)
        plan = self.plans[operation]
        body: dict[str, Any] = json_object(raw_body) if plan.reads_body else {}
        query_string = environ.get("QUERY_STRING", "")
        query = parse_qs(query_string, keep_blank_values=True) if query_string else {}
        params: dict[str, Any] = {}
        for member, where, wire_name, kind in plan.bindings:
            if where == 0:
                if member in body:
                    params[member] = body[member]
            elif where == 1:
                params[member] = labels.get(wire_name)
            else:
                values = query.get(wire_name)
                if values is not None:
                    params[member] = self._query_value(values, kind)
        self.injections.raise_for(operation)
        cleaned = self.validator[operation].validate(params)
        account_id, region = partition_of(caller, settings.account_id, settings.region)
        handler = self.operations.handlers[operation]
        token = cleaned.get("ClientToken")
        fingerprint = (
            None if token is None else self._fingerprint(body, labels, query, plan.token_wire_name)
        )
        # The whole operation, its timestamp included, happens under the store lock: the
        # clock may be moving in another thread, and a change must take effect at the
        # virtual instant it is stamped with.
        with self.store.lock:
            call = Call(account_id, region, truncate_to_ms(self.clock.now()))
            if token is None:
                response = json_bytes(handler(call, cleaned))
            else:
                stored = self.store.stored_response(account_id, region, operation, token)
                if stored is not None:
                    if stored.fingerprint != fingerprint:
                        raise ConflictException(
                            f"Idempotency token {token} was already used with different "
                            "request parameters."
                        )
                    return stored.status, stored.body
                response = json_bytes(handler(call, cleaned))
                assert fingerprint is not None
                self.store.store_response(
                    account_id, region, operation, token, StoredResponse(fingerprint, 200, response)
                )
            # With a state path the change is durable before the client hears of it: the
            # one unit of work of this request, its idempotency token included.
            self.store.commit()
            return 200, response

    @staticmethod
    def _fingerprint(
        body: dict[str, Any],
        labels: dict[str, str],
        query: dict[str, list[str]],
        token_wire_name: str | None,
    ) -> str:
        canonical = _canonical(
            {
                "body": {k: v for k, v in body.items() if k != "ClientToken"},
                "path": labels,
                "query": {k: v for k, v in query.items() if k != token_wire_name},
            }
        )
        return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()

    @staticmethod
    def _query_value(values: list[str], kind: str) -> Any:
        if kind == "list":
            return values
        # A repeated scalar key: the first value wins.
        first = values[0]
        if kind == "integer":
            return int(first) if _INTEGER.fullmatch(first) else NotAnInteger(first)
        return first
