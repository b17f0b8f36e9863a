"""The HTTP control API under ``/_schedemu/``: time travel and inspection for suites that
are not written in Python (``schedemu serve``), on the same port as the Scheduler API.

JSON in and out, errors in the Scheduler API's wire format. A call that changes the
emulator (any method but GET, HEAD or OPTIONS) must say its body is JSON, even when it has
none: a page on another site can post a form, text or nothing unasked, but not JSON. With
``verify_signatures`` every request here is verified like a Scheduler API request. What it
answers is bounded whatever the state holds: lists come in pages (``limit``,
``next_token``), and a clock move answers how many attempts it made (``attempts_made``),
how many of them it kept (the newest ``max_records``: ``attempt_count``), and at most
``limit`` of those (``attempts``).

Besides the exact paths of ``routes``, a route may name parts of its path
(``schedules/{group}/{name}/fire``, ``rules/{name}/fire``): ``path_routes`` match a path
part by part, and the handler is given the parts it named.

The clock's routes are named after its Python verbs (``clock/advance-to-next`` for
``advance_to_next``). The names they had before (``RENAMED_ROUTES``) still answer, exactly
as their successors do, until the next release, each answer saying so in a ``Deprecation``
header and naming the successor in a ``Link`` header (RFC 9745, RFC 8288).
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from datetime import datetime, timedelta
from typing import Any, Callable
from urllib.parse import parse_qs

from pytest_schedemu._version import __version__
from pytest_schedemu.control_api.dashboard import DashboardRoutes, Document, disabled_page, is_page
from pytest_schedemu.control_api.numbers import MAX_FAILURES, amount, most_of, shown, whole
from pytest_schedemu.control_api.records import (
    MAX_LIMIT,
    Handler,
    RecordRoutes,
    limit_of,
    whole_number,
)
from pytest_schedemu.control_api.rules import RuleRoutes
from pytest_schedemu.control_api.schedules import ScheduleRoutes, stack_json
from pytest_schedemu.delivery.steering import TargetControl, TargetControls
from pytest_schedemu.errors import (
    ApiError,
    ClockError,
    ClockTimeout,
    ConflictException,
    DispatchLimitExceeded,
    HandlerError,
    InternalServerException,
    ResourceNotFoundException,
    SchedemuError,
    ServiceQuotaExceededException,
    UnknownOperationException,
    ValidationException,
)
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.protocol.body import MAX_BODY_BYTES, json_object, read_body, require_json_body
from pytest_schedemu.protocol.signing import verify as verify_signature
from pytest_schedemu.provisioning.loading import LoadedStacks
from pytest_schedemu.records import Attempt, MoveAttempts, PendingWork, Records
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.timekeeping.clock import Clock, DeliveryGuard
from pytest_schedemu.timekeeping.stepping import MAX_STEPS

PREFIX = "/_schedemu/"
#: The methods that change nothing; any other must send JSON (``require_json_body``).
_READS = ("GET", "HEAD", "OPTIONS")

#: Empties the emulator's state, placing the clock at the given start if any.
Reset = Callable[[Any], None]
#: A handler of a route with named path parts: the body, the query, and the parts.
PathHandler = Callable[[dict[str, Any], dict[str, str], dict[str, str]], Any]
#: How many pieces of pending work ``GET pending`` lists unless ``limit`` says.
PENDING_LIMIT = 100
#: Fires a rule by hand: (rule, target id, account, region) -> the first attempts.
FireRule = Callable[..., list[Attempt]]
#: What a rule's fire route may be told besides the rule's name in its path.
_FIRE_RULE_FIELDS = ("target_id", "account_id", "region")
#: The routes renamed after the clock's verbs, each with its new name; the old names go in
#: the next release.
RENAMED_ROUTES = {
    ("POST", "clock/next"): "clock/advance-to-next",
    ("POST", "clock/until-idle"): "clock/run-until-idle",
    ("POST", "tick"): "clock/tick",
}
#: The headers of a response: (name, value) pairs.
Headers = list[tuple[str, str]]


def match_path(template: str, route: str) -> dict[str, str] | None:
    """The parts ``route`` gives the ``{names}`` of ``template``, or None if it does not
    match: every other part equal, each named one a single non-empty part."""
    wanted, given = template.split("/"), route.split("/")
    if len(wanted) != len(given):
        return None
    parts: dict[str, str] = {}
    for want, part in zip(wanted, given):
        if want.startswith("{") and want.endswith("}"):
            if not part:
                return None
            parts[want[1:-1]] = part
        elif want != part:
            return None
    return parts


def to_json(value: Any) -> Any:
    """Records as JSON: dataclasses as objects, datetimes as Z-times."""
    if isinstance(value, datetime):
        return ztime(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_json(item) for key, item in value.items()}
    return value


class ControlApi:
    def __init__(
        self,
        *,
        records: Records,
        clock: Clock,
        guard: DeliveryGuard,
        controls: TargetControls,
        settings: LiveSettings,
        reset: Reset,
        schema_version: int | None = None,
        state_failure: Callable[[], str | None] = lambda: None,
        stacks: LoadedStacks | None = None,
        pending: Callable[[int], list[PendingWork]] | None = None,
        fire: Callable[[str, str], Attempt] | None = None,
        fire_rule: FireRule | None = None,
        rules: Callable[[], list[Rule]] = list,
    ) -> None:
        self._records = records
        self._schema_version = schema_version
        self._state_failure = state_failure
        self._clock = clock
        self._guard = guard
        self._controls = controls
        self._settings = settings
        self._reset = reset
        self._pending = pending
        self._fire = fire
        self._fire_rule = fire_rule
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "health"): self.health,
            ("GET", "clock"): self.clock,
            ("POST", "clock/advance"): self.advance,
            ("POST", "clock/move-to"): self.move_to,
            ("POST", "clock/advance-to-next"): self.advance_to_next,
            ("POST", "clock/run-until-idle"): self.run_until_idle,
            ("POST", "clock/tick"): self.tick,
            ("GET", "pending"): self.pending,
            ("POST", "targets/fail"): self.fail_target,
            ("POST", "targets/missing"): self.missing_target,
            ("POST", "targets/recover"): self.recover_target,
            ("POST", "reset"): self.reset,
        }
        self.routes.update(RecordRoutes(records).routes())
        self.routes.update(ScheduleRoutes(records).routes())
        self.routes.update(RuleRoutes(rules, records).routes())
        self.routes[("GET", "stacks")] = lambda body, query: {
            "stacks": [] if stacks is None else [stack_json(s) for s in stacks.all()]
        }
        self.routes.update(DashboardRoutes(records, clock, settings, rules).routes())
        self.path_routes: dict[tuple[str, str], PathHandler] = {
            ("POST", "schedules/{group}/{name}/fire"): self.fire,
            ("POST", "rules/{name}/fire"): self.fire_rule,
        }

    def __call__(self, environ: dict[str, Any], headers: Headers) -> tuple[int, bytes, str] | None:
        """Answer a request under ``/_schedemu/`` as (status, body, content type), adding
        to ``headers`` what every answer to it carries, an error too; None for any other
        path."""
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return None
        method = environ.get("REQUEST_METHOD", "")
        raw = read_body(environ, MAX_BODY_BYTES)
        route = path[len(PREFIX) :].rstrip("/")
        successor = RENAMED_ROUTES.get((method, route))
        if successor is not None:
            headers += [
                ("Deprecation", "true"),
                ("Link", f'<{PREFIX}{successor}>; rel="successor-version"'),
            ]
            route = successor
        settings = self._settings.current
        if settings.verify_signatures:
            if method == "GET" and is_page(route):
                return disabled_page()
            verify_signature(environ, raw, settings.credentials, self._clock.now())
        handler = self.routes.get((method, route)) or self._path_route(method, route)
        if handler is None:
            raise UnknownOperationException(f"Unknown operation {method} {path}.")
        if method not in _READS:
            require_json_body(environ)
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        try:
            result = handler(json_object(raw), query)
        except LookupError as error:
            raise ResourceNotFoundException(str(error.args[0])) from None
        except (TypeError, ValueError, OverflowError) as error:
            if isinstance(error, ClockError):
                raise ConflictException(str(error)) from None
            raise ValidationException(str(error)) from None
        if isinstance(result, Document):
            return 200, result.body, result.content_type
        return 200, json.dumps(to_json(result), sort_keys=True).encode(), "application/json"

    def _path_route(self, method: str, route: str) -> Handler | None:
        for (wanted, template), handler in self.path_routes.items():
            parts = match_path(template, route) if wanted == method else None
            if parts is not None:
                return _with_parts(handler, parts)
        return None

    # -- health and the clock ------------------------------------------------------------

    def health(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        settings = self._settings.current
        return {
            "status": "ok",
            "version": __version__,
            "now": self._clock.now(),
            "clock": "real" if self._clock.real_time else "virtual",
            "region": settings.region,
            "account_id": settings.account_id,
            "dropped_records": int(self._records.dropped_records),
            "dropped_by_kind": self._records.dropped_records.by_kind,
            # The state file (``--state``) and its schema version; null without one.
            "state": settings.state,
            "schema_version": self._schema_version,
            # Why the state file refused the last write, until a write succeeds; null when
            # it writes (or there is none). Every change it refused was undone.
            "state_failing": self._state_failure(),
        }

    def clock(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return {"now": self._clock.now(), "real_time": self._clock.real_time}

    def _travel(self, move: Callable[[], list[Any]], query: dict[str, str]) -> Any:
        limit = limit_of(query)
        self._refuse_while_delivering("move it")
        try:
            attempts = move()
        except ClockTimeout as error:
            # The clock went as far as it was allowed: it stands there, and the caller learns
            # what is still pending.
            raise ConflictException(str(error), details={"now": ztime(self._clock.now())}) from None
        except DispatchLimitExceeded as error:
            raise ServiceQuotaExceededException(
                str(error), details={"now": ztime(self._clock.now())}
            ) from None
        except HandlerError as error:
            # The test that gave the handler is not the caller: it sees the bug at teardown.
            self._controls.handler_errors.keep(error)
            raise InternalServerException(
                str(error), details={"now": ztime(self._clock.now())}
            ) from None
        # Only a clock with nothing attached answers a plain (empty) list.
        made = attempts.attempts_made if isinstance(attempts, MoveAttempts) else len(attempts)
        return {
            "now": self._clock.now(),
            "attempts_made": made,
            "attempt_count": len(attempts),
            "attempts": attempts[:limit],
            "truncated": len(attempts) > limit,
        }

    def advance(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        units = ("seconds", "minutes", "hours", "days", "weeks")
        if not any(unit in body for unit in units):
            raise ValidationException(
                'Give the amount to advance by, e.g. {"seconds": 60} (or minutes, hours, '
                "days, weeks)."
            )
        seconds, minutes, hours, days, weeks = (
            amount(body, unit) if unit in body else 0.0 for unit in units
        )
        return self._travel(
            lambda: self._clock.advance(
                seconds=seconds, minutes=minutes, hours=hours, days=days, weeks=weeks
            ),
            query,
        )

    def move_to(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        when = body.get("time")
        if not isinstance(when, str):
            raise ValidationException(
                'Give the destination as {"time": "2026-03-02T00:00:00Z"} (ISO 8601 with an '
                "offset)."
            )
        return self._travel(lambda: self._clock.move_to(when), query)

    def tick(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._travel(self._clock.tick, query)

    def advance_to_next(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        steps = whole(body, "n", 1, 1, MAX_STEPS, "steps")
        return self._travel(lambda: self._clock.advance_to_next(steps), query)

    def run_until_idle(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        within = body.get("within")
        if isinstance(within, dict):
            units = ("seconds", "minutes", "hours", "days", "weeks")
            unknown = sorted(set(within) - set(units))
            if unknown or not within:
                raise ValidationException(
                    f"within takes seconds, minutes, hours, days or weeks, not {unknown!r}"
                )
            span = timedelta(**{unit: amount(within, unit) for unit in within})
        elif isinstance(within, (int, float)) and not isinstance(within, bool):
            span = timedelta(seconds=amount(body, "within", "seconds"))
        else:
            raise ValidationException(
                'Give how long the clock may run, as {"within": {"hours": 24}} (or seconds, '
                'minutes, days, weeks) or {"within": 86400} in seconds, from 0 to '
                f"{most_of('seconds')}"
                + ("" if within is None else f"; within must not be {shown(within)}")
            )
        return self._travel(lambda: self._clock.run_until_idle(within=span), query)

    def pending(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        limit = whole_number(query, "limit", PENDING_LIMIT, 0, MAX_LIMIT)
        return {"pending": [] if self._pending is None else self._pending(limit)}

    def fire(self, body: dict[str, Any], query: dict[str, str], parts: dict[str, str]) -> Any:
        fire = self._fire
        if fire is None:
            raise UnknownOperationException("This emulator does not fire schedules by hand.")
        attempt = self._by_hand("fire a schedule", lambda: fire(parts["name"], parts["group"]))
        return {"now": self._clock.now(), "attempt": attempt}

    def fire_rule(self, body: dict[str, Any], query: dict[str, str], parts: dict[str, str]) -> Any:
        fire_rule = self._fire_rule
        if fire_rule is None:
            raise UnknownOperationException("This emulator does not fire rules by hand.")
        given = {name: body.get(name) for name in _FIRE_RULE_FIELDS}
        for name, value in given.items():
            if value is not None and (not isinstance(value, str) or not value):
                raise ValidationException(f"{name} must be a non-empty string, not {value!r}")
        attempts = self._by_hand(
            "fire a rule",
            lambda: fire_rule(
                parts["name"],
                given["target_id"],
                account_id=given["account_id"],
                region=given["region"],
            ),
        )
        return {"now": self._clock.now(), "attempts": attempts}

    def _by_hand(self, action: str, fire: Callable[[], Any]) -> Any:
        self._refuse_while_delivering(action)
        try:
            return fire()
        except HandlerError as error:
            self._controls.handler_errors.keep(error)
            raise InternalServerException(
                str(error), details={"now": ztime(self._clock.now())}
            ) from None
        except SchedemuError as error:
            if isinstance(error, ApiError):
                raise
            # What this emulator cannot do (a real-time clock, a state file), not a bug.
            raise ConflictException(str(error)) from None

    # -- steering and reset ----------------------------------------------------------------

    def _target(self, body: dict[str, Any]) -> TargetControl:
        arn = body.get("arn")
        if not isinstance(arn, str) or not arn:
            raise ValidationException(
                'Give the target as {"arn": "<target ARN or service:action>"}'
            )
        return TargetControl(self._controls, arn, self._records.attempts_at)

    def fail_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        times = (
            None
            if body.get("times") is None
            else whole(body, "times", 1, 1, MAX_FAILURES, "failures")
        )
        options = {
            key: body[key]
            for key in ("error_code", "message", "retryable")
            if body.get(key) is not None
        }
        self._target(body).fail(times=times, **options)
        return {}

    def missing_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        self._target(body).missing()
        return {}

    def recover_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        self._target(body).recover()
        return {}

    def reset(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        self._refuse_while_delivering("reset")
        self._reset(body.get("start"))
        return {"now": self._clock.now()}

    def _refuse_while_delivering(self, action: str) -> None:
        # The request may come from a target handler, whose delivery holds a virtual clock:
        # waiting for the clock would wait for ourselves. A real-time clock's deliveries run
        # on their own threads and hold nothing.
        if not self._clock.real_time and self._guard.busy:
            raise ConflictException(
                f"The clock is delivering an attempt; {action} once the delivery is done."
            )


def _with_parts(handler: PathHandler, parts: dict[str, str]) -> Handler:
    return lambda body, query: handler(body, query, parts)
