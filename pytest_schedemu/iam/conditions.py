"""The ``Condition`` element: its operators, and whether a request's context meets it
(IAM User Guide, "IAM JSON policy elements: Condition operators", "...: Condition",
"Set operators for multivalued context keys").

A block holds when every condition holds: all operators, and within an operator all keys.
A condition holds when the request's value matches any of the policy's values. A key the
request lacks fails the condition, except that a negated operator (``StringNotEquals``,
``ArnNotLike``...) then holds, an ``...IfExists`` operator holds, and ``ForAllValues:``
holds (an empty set is a subset of anything), while ``ForAnyValue:`` fails. Keys are
case-insensitive, values case-sensitive unless the operator says otherwise.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.listing import did_you_mean
from pytest_schedemu.iam.patterns import FREE, NONE, SEGMENT, Lookup, Pattern, compile_pattern

# A malformed policy is the caller's mistake: reported at the caller's line, without
# this module's frames.
__tracebackhide__ = raised_for_the_caller

FOR_ANY = "ForAnyValue"
FOR_ALL = "ForAllValues"
IF_EXISTS = "IfExists"
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


@dataclass(frozen=True)
class Operator:
    """One base operator: how a policy value is read, and when a request value meets it."""

    name: str
    negated: bool
    prepare: Callable[[str, bool], Any]  # (policy value, variables allowed) -> prepared
    meets: Callable[[str, Any, Lookup], bool]  # (request value, prepared, context) -> bool


def _pattern(wildcard: str, ignore_case: bool = False) -> Callable[[str, bool], Any]:
    def prepare(value: str, variables: bool) -> Pattern:
        return compile_pattern(
            value, wildcard=wildcard, ignore_case=ignore_case, variables=variables
        )

    return prepare


def _pattern_meets(value: str, pattern: Pattern, lookup: Lookup) -> bool:
    return pattern.matches(value, lookup)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _instant(text: str) -> float | None:
    """Epoch seconds of an ISO 8601 time (a date alone is its midnight, UTC) or of epoch
    seconds written as a number, as AWS reads the date operators' values."""
    text = text.strip()
    if _NUMBER.fullmatch(text):
        return float(text)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def _prepared_or_refused(read: Callable[[str], Any], what: str) -> Callable[[str, bool], Any]:
    def prepare(value: str, variables: bool) -> Any:
        prepared = read(value)
        if prepared is None:
            raise ValueError(f"{value!r} is not {what}")
        return prepared

    return prepare


def _compared(
    test: Callable[[float, float], bool], read: Callable[[str], float | None]
) -> Callable[[str, float, Lookup], bool]:
    def meets(value: str, prepared: float, lookup: Lookup) -> bool:
        given = read(value)
        return given is not None and test(given, prepared)

    return meets


def _bool(text: str) -> str | None:
    lowered = text.lower()
    return lowered if lowered in ("true", "false") else None


def _binary(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _in_network(value: str, network: Any, lookup: Lookup) -> bool:
    try:
        return ipaddress.ip_address(value.strip()) in network
    except ValueError:
        return False


def _operators() -> dict[str, Operator]:
    found: dict[str, Operator] = {}

    def add(names: tuple[str, str], prepare: Callable[[str, bool], Any], meets: Any) -> None:
        found[names[0]] = Operator(names[0], False, prepare, meets)
        found[names[1]] = Operator(names[1], True, prepare, meets)

    add(("StringEquals", "StringNotEquals"), _pattern(NONE), _pattern_meets)
    add(
        ("StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase"),
        _pattern(NONE, ignore_case=True),
        _pattern_meets,
    )
    add(("StringLike", "StringNotLike"), _pattern(FREE), _pattern_meets)
    add(("ArnEquals", "ArnNotEquals"), _pattern(SEGMENT), _pattern_meets)
    add(("ArnLike", "ArnNotLike"), _pattern(SEGMENT), _pattern_meets)
    add(
        ("IpAddress", "NotIpAddress"),
        _prepared_or_refused(_network, "an IP address or CIDR range"),
        _in_network,
    )
    comparisons: dict[str, Callable[[float, float], bool]] = {
        "Equals": lambda a, b: a == b,
        "LessThan": lambda a, b: a < b,
        "LessThanEquals": lambda a, b: a <= b,
        "GreaterThan": lambda a, b: a > b,
        "GreaterThanEquals": lambda a, b: a >= b,
    }
    for family, read, what in (
        ("Numeric", _number, "a number"),
        ("Date", _instant, "an ISO 8601 time or epoch seconds"),
    ):
        prepare = _prepared_or_refused(read, what)
        for suffix, test in comparisons.items():
            found[family + suffix] = Operator(
                family + suffix, False, prepare, _compared(test, read)
            )
        # NotEquals is the negation of Equals, so that a missing key meets it as the guide
        # says a negated operator's does.
        not_equals = family + "NotEquals"
        found[not_equals] = Operator(
            not_equals, True, prepare, _compared(comparisons["Equals"], read)
        )
    found["Bool"] = Operator(
        "Bool",
        False,
        _prepared_or_refused(_bool, '"true" or "false"'),
        lambda value, prepared, lookup: value.lower() == prepared,
    )
    found["BinaryEquals"] = Operator(
        "BinaryEquals",
        False,
        _prepared_or_refused(_binary, "base64 text"),
        lambda value, prepared, lookup: _binary(value) == prepared,
    )
    found["Null"] = Operator(
        "Null", False, _prepared_or_refused(_bool, '"true" or "false"'), lambda *_: False
    )
    return found


OPERATORS = _operators()
_BY_LOWER = {name.lower(): operator for name, operator in OPERATORS.items()}
#: The operators whose values may hold policy variables (the guide's tables say which).
_WITH_VARIABLES = {name for name in OPERATORS if name.startswith(("String", "Arn"))}


@dataclass(frozen=True)
class Condition:
    """One key under one operator, with the policy's values for it."""

    operator: str  # as the policy writes it: ``ForAllValues:StringLikeIfExists``
    key: str  # as written
    lookup_key: str  # lower-cased
    values: tuple[str, ...]
    base: Operator
    qualifier: str | None
    if_exists: bool
    prepared: tuple[Any, ...]

    def holds(self, lookup: Lookup) -> bool:
        present = lookup.get(self.lookup_key)
        if self.base.name == "Null":
            absent = not present
            return any((value == "true") == absent for value in self.prepared)
        if not present:
            if self.if_exists or self.qualifier == FOR_ALL:
                return True
            if self.qualifier == FOR_ANY:
                return False
            return self.base.negated
        if len(present) == 1:
            return self._one(present[0], lookup)
        if self.qualifier == FOR_ALL:
            return all(self._one(value, lookup) for value in present)
        # A multivalued key without a set operator is read as ForAnyValue.
        return any(self._one(value, lookup) for value in present)

    def _one(self, value: str, lookup: Lookup) -> bool:
        meets = self.base.meets
        for prepared in self.prepared:
            if meets(value, prepared, lookup):
                return not self.base.negated
        return self.base.negated

    def failure(self, lookup: Lookup) -> str:
        """Why it does not hold: ``condition <operator> <key> is <value>, not <expected>``."""
        present = lookup.get(self.lookup_key)
        if not present:
            shown = "absent"
        elif len(present) == 1:
            shown = present[0]
        else:
            shown = "[" + ", ".join(present) + "]"
        if self.base.name == "Null":
            expected = "absent" if "true" in self.prepared else "present"
        else:
            expected = " or ".join(self._expected(lookup))
            if self.qualifier == FOR_ANY and not present:
                expected = f"one or more of {expected}"
            elif self.base.negated:
                expected = f"anything but {expected}"
        return f"condition {self.operator} {self.key} is {shown}, not {expected}"

    def _expected(self, lookup: Lookup) -> list[str]:
        shown = []
        for value, prepared in zip(self.values, self.prepared):
            resolved = prepared.resolved_text(lookup) if isinstance(prepared, Pattern) else None
            shown.append(resolved if resolved is not None else value)
        return shown


def _value_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def parse_conditions(
    block: Any, *, variables: bool, fail: Callable[[str], Exception]
) -> tuple[Condition, ...]:
    """The ``Condition`` element as a policy writes it; ``fail(problem)`` builds the error."""
    if not isinstance(block, Mapping):
        raise fail(f"must be an object of operators, not {block!r}")
    conditions: list[Condition] = []
    for written, keys in block.items():
        base, qualifier, if_exists = _operator(written, fail)
        if not isinstance(keys, Mapping) or not keys:
            raise fail(f"{written} must be an object of condition keys, not {keys!r}")
        for key, values in keys.items():
            listed = values if isinstance(values, list) else [values]
            texts = [_value_text(value) for value in listed]
            if not listed or any(text is None for text in texts):
                raise fail(
                    f"{written} {key} must be a string, number or boolean, or a list of "
                    f"them, not {values!r}"
                )
            allowed = variables and base.name in _WITH_VARIABLES
            try:
                prepared = tuple(base.prepare(text, allowed) for text in texts if text is not None)
            except ValueError as error:
                raise fail(f"{written} {key}: {error}") from None
            conditions.append(
                Condition(
                    operator=written,
                    key=key,
                    lookup_key=key.lower(),
                    values=tuple(text for text in texts if text is not None),
                    base=base,
                    qualifier=qualifier,
                    if_exists=if_exists,
                    prepared=prepared,
                )
            )
    return tuple(conditions)


def _operator(written: Any, fail: Callable[[str], Exception]) -> tuple[Operator, str | None, bool]:
    if not isinstance(written, str):
        raise fail(f"an operator is a name, not {written!r}")
    qualifier: str | None = None
    name = written
    if ":" in written:
        prefix, name = written.split(":", 1)
        qualifier = {FOR_ANY.lower(): FOR_ANY, FOR_ALL.lower(): FOR_ALL}.get(prefix.lower())
        if qualifier is None:
            raise fail(f"{written}: a set operator is {FOR_ANY} or {FOR_ALL}, not {prefix!r}")
    if_exists = name.lower().endswith(IF_EXISTS.lower()) and name.lower() not in _BY_LOWER
    base = _BY_LOWER.get(name[: -len(IF_EXISTS)].lower() if if_exists else name.lower())
    if base is None:
        hint = did_you_mean(name, OPERATORS)
        raise fail(f"{written} is not a condition operator" + (f"; {hint}" if hint else ""))
    if base.name == "Null" and (if_exists or qualifier):
        raise fail(f"{written}: Null takes neither IfExists nor a set operator")
    return base, qualifier, if_exists


def first_failing(conditions: tuple[Condition, ...], lookup: Lookup) -> Condition | None:
    """The first condition that does not hold, None when all do."""
    for condition in conditions:
        if not condition.holds(lookup):
            return condition
    return None
