"""EventBridge's rule operations on the emulator's endpoint: the ``events`` JSON 1.1 protocol.

A request is ``POST /`` with ``X-Amz-Target: AWSEvents.<Operation>``, its members in a JSON
body (``Content-Type: application/x-amz-json-1.1``), signed for the service ``events``. The
Scheduler application hands every request that names a target here (``SchedulerApp``), so
the HTTP server and the in-process transport answer both APIs alike.

The answer is JSON 1.1's: ``200`` with the operation's output, or an error as
``{"__type": <code>, "message": <text>}``. Errors a client caused are ``400`` whatever a
REST API would answer (a missing rule is a ``ResourceNotFoundException`` with ``400``), as
EventBridge answers them, a signature it cannot read or that does not match included
(``docs/signing.md``, "On the events API"); a missing Authorization header, a Host or
Origin refused and the connection's refusals keep their status (403, 408, 413, 415), and a
bug in the emulator is a ``500`` ``InternalException``, kept for the test like the
Scheduler API's (``server_errors``).

Only the rule operations are served (``RULE_OPERATIONS``); any other ``AWSEvents``
operation (``PutEvents``, ``CreateEventBus``...) is refused with an
``UnknownOperationException`` that names what is served.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.errors import (
    ApiError,
    ServiceUnavailableException,
    StateError,
    UnknownOperationException,
)
from pytest_schedemu.events_api.names import (
    CONTENT_TYPE,
    RULE_OPERATIONS,
    SIGNING_NAME,
    TARGET_PREFIX,
    served_operations,
)
from pytest_schedemu.events_api.operations import RuleOperations
from pytest_schedemu.formats.times import truncate_to_ms
from pytest_schedemu.protocol.body import MAX_BODY_BYTES, json_object, read_body, refuse_form_body
from pytest_schedemu.protocol.faults import ServerErrors
from pytest_schedemu.protocol.signing import Caller, claimed_caller, partition_of
from pytest_schedemu.protocol.signing import verify as verify_signature
from pytest_schedemu.protocol.validation import ServiceValidator, load_service_model
from pytest_schedemu.protocol.wording import EVENTS_STYLE
from pytest_schedemu.protocol.wsgi import (
    StartResponse,
    WSGIEnvironment,
    json_bytes,
    request_id,
    status_line,
)
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.timekeeping.clock import Clock

#: The statuses a JSON 1.1 error keeps: the connection's refusals, a missing Authorization
#: header's, and the server's own failures. Every other error a client caused is a 400.
_OWN_STATUS = frozenset({403, 408, 413, 415, 500, 503})
#: The signature refusals EventBridge answers with 400, not the 403 of a REST API.
_SIGNATURE_REFUSALS = frozenset(
    {"IncompleteSignatureException", "InvalidSignatureException", "UnrecognizedClientException"}
)
_CRASH = "Unexpected error occurred while processing the request"


@functools.cache
def events_validator() -> ServiceValidator:
    # Compiling the rule operations' shapes takes milliseconds; every emulator shares them.
    model = load_service_model("events", "2015-10-07")
    return ServiceValidator(model, EVENTS_STYLE, RULE_OPERATIONS)


def error_document(code: str, message: str) -> bytes:
    """A JSON 1.1 error body."""
    return json_bytes({"__type": code, "message": message})


class EventsApi:
    """The WSGI application of EventBridge's rule operations."""

    def __init__(
        self,
        *,
        commands: Commands,
        clock: Clock,
        settings: LiveSettings,
        server_errors: ServerErrors,
    ) -> None:
        self.store = commands.store
        self.clock = clock
        self.settings = settings
        self.server_errors = server_errors
        self.validator = events_validator()
        self.operations = RuleOperations(commands)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        headers = [("x-amzn-RequestId", request_id())]
        operation: str | None = None
        try:
            operation = self._operation(environ)
            status, body = 200, self._handle(environ, operation)
        except (ApiError, StateError) as raised:
            # A state file that refused a write: the change was undone, the service lives.
            error = (
                raised if isinstance(raised, ApiError) else ServiceUnavailableException(str(raised))
            )
            kept = error.status in _OWN_STATUS and error.code not in _SIGNATURE_REFUSALS
            status = error.status if kept else 400
            body = error_document(error.code, error.message)
        except Exception as exc:
            self.server_errors.crashed(environ, operation, exc)
            status, body = 500, error_document("InternalException", _CRASH)
        headers.append(("Content-Type", CONTENT_TYPE))
        headers.append(("Content-Length", str(len(body))))
        start_response(status_line(status), headers)
        return [body]

    def _operation(self, environ: WSGIEnvironment) -> str:
        target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
        prefix, dot, operation = target.partition(".")
        if f"{prefix}{dot}" != TARGET_PREFIX:
            raise UnknownOperationException(
                f"Unknown operation X-Amz-Target: {target}. The emulator serves the EventBridge "
                f"rule operations (X-Amz-Target: {TARGET_PREFIX}<Operation>) and the "
                "EventBridge Scheduler API."
            )
        if operation not in RULE_OPERATIONS:
            raise UnknownOperationException(
                f"The emulator serves only the EventBridge rule operations ({served_operations()})"
                f"; {operation or '(none)'} is not one of them."
            )
        method, path = environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", "")
        if method != "POST" or path != "/":
            raise UnknownOperationException(
                f"Unknown operation {method} {path} for {target}: EventBridge's operations are "
                "sent as POST /."
            )
        return operation

    def _handle(self, environ: WSGIEnvironment, operation: str) -> bytes:
        raw_body = read_body(environ, MAX_BODY_BYTES)
        settings = self.settings.current
        # As for the Scheduler API: the partition is the verified credential's when
        # signatures are verified, read once, by the verifier.
        caller: Caller | None
        if settings.verify_signatures:
            caller = verify_signature(
                environ, raw_body, settings.credentials, self.clock.now(), SIGNING_NAME
            )
        else:
            caller = claimed_caller(environ)
        refuse_form_body(environ)
        params = json_object(raw_body)
        cleaned = self.validator[operation].validate(params)
        account_id, region = partition_of(caller, settings.account_id, settings.region)
        handler = self.operations.handlers[operation]
        # The whole operation happens under the store's lock, at one virtual instant: the
        # clock may be moving in another thread.
        with self.store.lock:
            call = Call(account_id, region, truncate_to_ms(self.clock.now()))
            response = json_bytes(handler(call, cleaned))
            # With a state path the change is durable before the client hears of it.
            self.store.commit()
            return response
