"""The HTTP control API under ``/_schedemu/``: time travel and inspection for suites that
are not written in Python (``schedemu serve``), on the same port as the Scheduler API.

JSON in and out. Errors have the same wire format as the Scheduler API's.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from datetime import datetime
from typing import Any, Callable
from urllib.parse import parse_qs

from pytest_schedemu import jsontext
from pytest_schedemu._version import __version__
from pytest_schedemu.api.body import MAX_BODY_BYTES, read_body
from pytest_schedemu.api.signing import verify as verify_signature
from pytest_schedemu.clock import Clock
from pytest_schedemu.errors import (
    ClockError,
    ConflictException,
    SerializationException,
    UnknownOperationException,
    ValidationException,
)
from pytest_schedemu.records import Records
from pytest_schedemu.settings import Settings
from pytest_schedemu.steering import TargetControl, TargetControls
from pytest_schedemu.times import ztime

PREFIX = "/_schedemu/"

Handler = Callable[[dict[str, Any], dict[str, str]], Any]
#: Empties the emulator's state, placing the clock at the given start if any.
Reset = Callable[[Any], None]


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
        controls: TargetControls,
        settings: Settings,
        reset: Reset,
    ) -> None:
        self._records = records
        self._clock = clock
        self._controls = controls
        self._settings = settings
        self._reset = reset
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "health"): self.health,
            ("GET", "clock"): self.clock,
            ("POST", "clock/advance"): self.advance,
            ("POST", "clock/move-to"): self.move_to,
            ("POST", "tick"): self.tick,
            ("GET", "attempts"): self.attempts,
            ("GET", "deliveries"): self.deliveries,
            ("GET", "dead-letters"): self.dead_letters,
            ("GET", "executions"): self.executions,
            ("GET", "activity"): self.activity,
            ("POST", "targets/fail"): self.fail_target,
            ("POST", "targets/missing"): self.missing_target,
            ("POST", "targets/recover"): self.recover_target,
            ("POST", "reset"): self.reset,
        }

    def __call__(self, environ: dict[str, Any]) -> tuple[int, bytes] | None:
        path = environ.get("PATH_INFO", "")
        if not path.startswith(PREFIX):
            return None
        method = environ.get("REQUEST_METHOD", "")
        handler = self.routes.get((method, path[len(PREFIX) :].rstrip("/")))
        if handler is None:
            raise UnknownOperationException(f"Unknown operation {method} {path}.")
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        raw = read_body(environ, MAX_BODY_BYTES)
        settings = self._settings
        if settings.verify_signatures:
            verify_signature(environ, raw, settings.credentials, self._clock.now())
        result = handler(self._body(raw), query)
        return 200, json.dumps(to_json(result), sort_keys=True).encode()

    @staticmethod
    def _body(raw: bytes) -> dict[str, Any]:
        if not raw.strip():
            return {}
        try:
            body = jsontext.loads(raw)
        except ValueError:
            raise SerializationException() from None
        if not isinstance(body, dict):
            raise SerializationException()
        return body

    # -- handlers --------------------------------------------------------------------------

    def health(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return {
            "status": "ok",
            "version": __version__,
            "now": self._clock.now(),
            "clock": "real" if self._clock.real_time else "virtual",
            "region": self._settings.region,
            "account_id": self._settings.account_id,
        }

    def clock(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return {"now": self._clock.now(), "real_time": self._clock.real_time}

    def _travel(self, move: Callable[[], list[Any]]) -> Any:
        try:
            attempts = move()
        except ClockError as error:
            raise ConflictException(str(error)) from None
        except (TypeError, ValueError) as error:
            raise ValidationException(str(error)) from None
        return {"now": self._clock.now(), "attempts": attempts}

    def advance(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        units = ("seconds", "minutes", "hours", "days", "weeks")
        if not any(unit in body for unit in units):
            raise ValidationException(
                'Give the amount to advance by, e.g. {"seconds": 60} (or minutes, hours, '
                "days, weeks)."
            )
        seconds, minutes, hours, days, weeks = (
            _number(body, unit) if unit in body else 0.0 for unit in units
        )
        return self._travel(
            lambda: self._clock.advance(
                seconds=seconds, minutes=minutes, hours=hours, days=days, weeks=weeks
            )
        )

    def move_to(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        when = body.get("time")
        if not isinstance(when, str):
            raise ValidationException(
                'Give the destination as {"time": "2026-03-02T00:00:00Z"} (ISO 8601 with an '
                "offset)."
            )
        return self._travel(lambda: self._clock.move_to(when))

    def tick(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._travel(self._clock.tick)

    def attempts(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._records.attempts(
            schedule=query.get("schedule"),
            group=query.get("group"),
            target_arn=query.get("target_arn"),
        )

    def deliveries(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._records.deliveries(
            target_arn=query.get("target_arn"),
            schedule=query.get("schedule"),
            group=query.get("group"),
        )

    def dead_letters(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._records.dead_letters(query.get("queue_arn"))

    def executions(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        schedule = query.get("schedule")
        if not schedule:
            raise ValidationException("Give the schedule: executions?schedule=<name>&group=<g>")
        return self._records.executions(schedule, group=query.get("group") or "default")

    def activity(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        return self._records.activity(query.get("kind"))

    def _target(self, body: dict[str, Any]) -> TargetControl:
        arn = body.get("arn")
        if not isinstance(arn, str) or not arn:
            raise ValidationException(
                'Give the target as {"arn": "<target ARN or service:action>"}'
            )
        return TargetControl(self._controls, arn, self._records.attempts_at)

    def fail_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        times = body.get("times")
        if times is not None and (not isinstance(times, int) or isinstance(times, bool)):
            raise ValidationException("times must be an integer or null")
        options = {
            key: body[key]
            for key in ("error_code", "message", "retryable")
            if body.get(key) is not None
        }
        try:
            self._target(body).fail(times=times, **options)
        except (TypeError, ValueError) as error:
            raise ValidationException(str(error)) from None
        return {}

    def missing_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        self._target(body).missing()
        return {}

    def recover_target(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        self._target(body).recover()
        return {}

    def reset(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        try:
            self._reset(body.get("start"))
        except ClockError as error:
            raise ConflictException(str(error)) from None
        except (TypeError, ValueError) as error:
            raise ValidationException(str(error)) from None
        return {"now": self._clock.now()}


def _number(body: dict[str, Any], key: str) -> float:
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationException(f"{key} must be a number, not {value!r}")
    return float(value)
