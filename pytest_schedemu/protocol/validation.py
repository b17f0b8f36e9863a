"""Shape validation driven by botocore's service models: ``scheduler`` 2021-06-30, and
``events`` 2015-10-07 for EventBridge's rule operations.

Each model is botocore's own file for its API version, shipped with the package and loaded
through ``botocore.loaders``. It is pinned rather than taken from the installed botocore so
that an upgrade of a user's botocore never changes what the emulator answers; the
model-drift test notices when botocore's copy moves (``python -m tools.vendor``
re-vendors it).

The two services word their messages alike but not the same (``validation_wording``).

Patterns are full-match, as the service applies them (``Name='a b'`` is refused although
``[0-9a-zA-Z-_.]+`` occurs in it).

Each operation's input shape is compiled once into a tree of ``_Node`` checkers. A check
walks the request, raises ``SerializationException`` at the first member of the wrong JSON
type, collects every constraint violation in the AWS message format, and returns the
request with unknown members dropped and timestamps turned into datetimes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from re import Pattern
from typing import Any, Callable

from botocore.loaders import Loader
from botocore.model import ServiceModel, Shape

from pytest_schedemu.errors import SerializationException, ValidationException
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.protocol.wording import (
    SCHEDULER_STYLE,
    Style,
    anchored,
    compile_pattern,
    format_errors,
    member_path,
    violation,
)

_DATA = Path(__file__).parent / "data"

# Timestamps are accepted as epoch seconds (what botocore sends) or as ISO 8601 text that
# names its offset; a naive time would silently depend on the server's zone.
# An ISO 8601 date and time with an explicit offset: Z, +hh, +hhmm or +hh:mm.
_ISO_WITH_OFFSET = re.compile(
    r"(?P<local>.+[Tt].+?)(?:[Zz]|(?P<sign>[+-])(?P<hours>[0-9]{2}):?(?P<minutes>[0-9]{2})?)"
)


def load_service_model(service: str = "scheduler", api_version: str = "2021-06-30") -> ServiceModel:
    """A vendored service model: ``scheduler`` (the default) or ``events`` 2015-10-07."""
    loader = Loader(extra_search_paths=[str(_DATA)], include_default_search_paths=False)
    data = loader.load_service_model(service, "service-2", api_version=api_version)
    return ServiceModel(data, service_name=service)


class NotAnInteger:
    """A query value for an integer member that is not a decimal integer."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Node:
    """The compiled checks of one shape."""

    __slots__ = (
        "check",
        "constrained",
        "enum",
        "key",
        "kind",
        "maximum",
        "member",
        "members",
        "minimum",
        "pattern",
        "pattern_text",
        "required",
        "style",
        "value",
    )

    def __init__(self, shape: Shape, cache: dict[str, _Node], style: Style) -> None:
        cache[shape.name] = self
        self.style = style
        metadata = shape.metadata
        self.kind: str = shape.type_name
        self.minimum: int | None = metadata.get("min")
        self.maximum: int | None = metadata.get("max")
        pattern: str | None = metadata.get("pattern")
        self.pattern: Pattern[str] | None = compile_pattern(pattern) if pattern else None
        self.pattern_text: str | None = None
        if pattern is not None:
            self.pattern_text = anchored(pattern) if style.anchored_patterns else pattern
        self.enum: list[str] = list(getattr(shape, "enum", None) or [])
        self.members: list[tuple[str, str, _Node]] = []
        self.required: frozenset[str] = frozenset()
        self.member: _Node | None = None
        self.key: _Node | None = None
        self.value: _Node | None = None
        if self.kind == "structure":
            self.required = frozenset(shape.required_members)
            # Scheduler reports them alphabetically (§2.1); the model's own order is no
            # longer alphabetical since botocore 1.44.8. EventBridge keeps the model's.
            members = shape.members.items()
            self.members = [
                (name, member_path(name), _compile(member, cache, style))
                for name, member in (sorted(members) if style.alphabetical_members else members)
            ]
        elif self.kind == "list":
            self.member = _compile(shape.member, cache, style)
        elif self.kind == "map":
            self.key = _compile(shape.key, cache, style)
            self.value = _compile(shape.value, cache, style)
        #: Whether a string of this shape has anything to satisfy beyond being a string.
        self.constrained = bool(
            self.pattern is not None
            or self.enum
            or self.minimum is not None
            or self.maximum is not None
        )
        #: ``check(value, path, errors)``: the value checked (violations added to
        #: ``errors``) and cleaned; bound once to its kind's check, so that a walk over a
        #: request does not ask every node its kind again.
        self.check: Callable[[Any, str, list[str]], Any] = getattr(
            self, _CHECKS.get(self.kind, "_check_unknown")
        )

    def _check_string(self, value: Any, path: str, errors: list[str]) -> Any:
        if not isinstance(value, str):
            raise SerializationException()
        if self.constrained:
            self._check_scalar(value, len(value), path, errors)
        return value

    def _check_integer(self, value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, NotAnInteger):
            errors.append(violation(value.text, path, "Member must be an integer"))
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise SerializationException()
        self._check_range(value, path, errors)
        return value

    def _check_boolean(self, value: Any, path: str, errors: list[str]) -> Any:
        if not isinstance(value, bool):
            raise SerializationException()
        return value

    def _check_timestamp(self, value: Any, path: str, errors: list[str]) -> Any:
        return parse_timestamp(value)

    def _check_list(self, value: Any, path: str, errors: list[str]) -> Any:
        if not isinstance(value, list):
            raise SerializationException()
        assert self.member is not None
        self._check_length(value, len(value), path, errors)
        return [
            self.member.check(item, f"{path}.{index}.member", errors)
            for index, item in enumerate(value, 1)
            if item is not None
        ]

    def _check_unknown(self, value: Any, path: str, errors: list[str]) -> Any:
        raise SerializationException()

    def _check_structure(self, value: Any, path: str, errors: list[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise SerializationException()
        cleaned: dict[str, Any] = {}
        prefix = f"{path}." if path else ""
        for name, segment, node in self.members:
            item = value.get(name)
            if item is None:
                if name in self.required:
                    errors.append(violation(None, prefix + segment, "Member must not be null"))
                continue
            cleaned[name] = node.check(item, prefix + segment, errors)
        return cleaned

    def _check_map(self, value: Any, path: str, errors: list[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise SerializationException()
        assert self.key is not None and self.value is not None
        self._check_length(value, len(value), path, errors)
        key_problems: list[str] = []
        value_problems: list[str] = []
        for key, item in value.items():
            if not isinstance(item, str) and self.value.kind == "string":
                raise SerializationException()
            key_problems.extend(self.key.constraint_failures(key))
            value_problems.extend(self.value.constraint_failures(item))
        if key_problems:
            unique = ", ".join(dict.fromkeys(key_problems))
            errors.append(violation(value, path, f"Map key must satisfy constraint: [{unique}]"))
        if value_problems:
            unique = ", ".join(dict.fromkeys(value_problems))
            errors.append(violation(value, path, f"Map value must satisfy constraint: [{unique}]"))
        return dict(value)

    def constraint_failures(self, value: str) -> list[str]:
        failures: list[str] = []
        self._check_scalar(value, len(value), "", failures, bare=True)
        return failures

    def _check_scalar(
        self, value: str, length: int, path: str, errors: list[str], bare: bool = False
    ) -> None:
        early = self.style.pattern_before_length
        if not early:
            self._check_length(value, length, path, errors, bare)
        if self.pattern is not None and self.pattern.fullmatch(value) is None:
            self._fail(
                value,
                path,
                errors,
                f"Member must satisfy regular expression pattern: {self.pattern_text}",
                bare,
            )
        if early:
            self._check_length(value, length, path, errors, bare)
        if self.enum and value not in self.enum:
            self._fail(
                value,
                path,
                errors,
                "Member must satisfy enum value set: [" + ", ".join(self.enum) + "]",
                bare,
            )

    def _check_length(
        self, value: Any, length: int, path: str, errors: list[str], bare: bool = False
    ) -> None:
        if self.minimum is not None and length < self.minimum:
            constraint = f"Member must have length greater than or equal to {self.minimum}"
            self._fail(value, path, errors, constraint, bare)
        if self.maximum is not None and length > self.maximum:
            constraint = f"Member must have length less than or equal to {self.maximum}"
            self._fail(value, path, errors, constraint, bare)

    def _check_range(self, value: int, path: str, errors: list[str]) -> None:
        if self.minimum is not None and value < self.minimum:
            constraint = f"Member must have value greater than or equal to {self.minimum}"
            errors.append(violation(value, path, constraint))
        if self.maximum is not None and value > self.maximum:
            constraint = f"Member must have value less than or equal to {self.maximum}"
            errors.append(violation(value, path, constraint))

    @staticmethod
    def _fail(value: Any, path: str, errors: list[str], constraint: str, bare: bool) -> None:
        errors.append(constraint if bare else violation(value, path, constraint))


#: The check of each kind of shape (``_Node.check``).
_CHECKS = {
    "structure": "_check_structure",
    "string": "_check_string",
    "integer": "_check_integer",
    "long": "_check_integer",
    "boolean": "_check_boolean",
    "timestamp": "_check_timestamp",
    "list": "_check_list",
    "map": "_check_map",
}


def _compile(shape: Shape, cache: dict[str, _Node], style: Style) -> _Node:
    node = cache.get(shape.name)
    return node if node is not None else _Node(shape, cache, style)


def names_an_offset(text: str) -> bool:
    """Whether ISO 8601 text names its offset, as ``parse_timestamp`` requires."""
    return _ISO_WITH_OFFSET.fullmatch(text.strip()) is not None


def parse_timestamp(value: Any) -> datetime:
    """A request timestamp as an aware UTC datetime, truncated to milliseconds."""
    if isinstance(value, bool):
        raise SerializationException()
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise SerializationException()
        milliseconds = int(value * 1000) if isinstance(value, float) else value * 1000
        try:
            return EPOCH + timedelta(milliseconds=milliseconds)
        except OverflowError:
            raise _out_of_range(value) from None
    match = _ISO_WITH_OFFSET.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is not None:
        # The offset rewritten as +hh:mm, the one form every supported Python's
        # fromisoformat reads.
        offset = "+00:00"
        if match["sign"]:
            offset = f"{match['sign']}{match['hours']}:{match['minutes'] or '00'}"
        try:
            parsed = datetime.fromisoformat(match["local"].upper() + offset)
        except ValueError:
            raise SerializationException() from None
        try:
            parsed = parsed.astimezone(timezone.utc)
        except OverflowError:  # e.g. 9999-12-31T23:59:59-01:00, past the year 9999 in UTC
            raise _out_of_range(value) from None
        return parsed.replace(microsecond=parsed.microsecond // 1000 * 1000)
    raise SerializationException()


def _out_of_range(value: Any) -> ValidationException:
    shown = str(value)
    if len(shown) > 40:
        shown = f"{shown[:20]}…{shown[-8:]} ({len(shown)} characters)"
    return ValidationException(
        f"Value '{shown}' is not a valid timestamp: it lies outside the years 1 to 9999."
    )


class OperationValidator:
    """Validates one operation's input; query and path members arrive already typed."""

    def __init__(
        self, model: ServiceModel, operation: str, cache: dict[str, _Node], style: Style
    ) -> None:
        self.operation = model.operation_model(operation)
        self.root = _compile(self.operation.input_shape, cache, style)

    def validate(self, params: dict[str, Any]) -> Any:
        errors: list[str] = []
        cleaned = self.root.check(params, "", errors)
        if errors:
            raise ValidationException(format_errors(errors))
        return cleaned


class ServiceValidator:
    """Every operation's validator, or those of ``operations`` only."""

    def __init__(
        self,
        model: ServiceModel | None = None,
        style: Style = SCHEDULER_STYLE,
        operations: Iterable[str] | None = None,
    ) -> None:
        self.model = model or load_service_model()
        cache: dict[str, _Node] = {}
        names = self.model.operation_names if operations is None else operations
        self.operations = {
            name: OperationValidator(self.model, name, cache, style) for name in names
        }

    def __getitem__(self, operation: str) -> OperationValidator:
        return self.operations[operation]
