"""A template's Parameters: the value each takes (an override, else its Default) and the
checks CloudFormation makes of it before it creates anything."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

from pytest_schedemu.errors import StackError, raised_for_the_caller

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: A parameter's value: a string, or a list of strings for the list types.
ParameterValue = Union[str, list[str]]

_SSM_TYPE = "AWS::SSM::Parameter::Value<"


@dataclass(frozen=True)
class Parameter:
    """One declared parameter and the value it takes.

    ``value`` is None for an SSM-typed parameter given no value here: CloudFormation would
    read it from Parameter Store, which a test does not reach, so only a ``Ref`` to it
    fails (CDK's ``BootstrapVersion`` is declared in every stack and never referenced).
    """

    name: str
    type: str
    value: ParameterValue | None


def read_parameters(
    declared: Any, overrides: Mapping[str, str] | None, file: str
) -> dict[str, Parameter]:
    """Each declared parameter with its checked value; StackError for a value that fails
    a check, a parameter with no value, or an override for no declared parameter."""
    if declared is None:
        declared = {}
    if not isinstance(declared, Mapping):
        raise StackError(f"{file}: Parameters must be a mapping, not {type(declared).__name__}")
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(declared))
    if unknown:
        raise StackError(
            f"{file}: parameters= names parameters the template does not declare: "
            f"{', '.join(unknown)} (declared: {', '.join(declared) or 'none'})"
        )
    return {
        name: _parameter(name, spec, overrides.get(name), f"{file}: parameter {name}")
        for name, spec in declared.items()
    }


def _parameter(name: str, spec: Any, override: str | None, where: str) -> Parameter:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("Type"), str):
        raise StackError(f"{where}: a parameter needs a Type")
    kind = spec["Type"]
    if override is not None:
        text: Any = override
    elif "Default" in spec:
        text = spec["Default"]
    elif kind.startswith(_SSM_TYPE):
        return Parameter(name, kind, None)
    else:
        raise StackError(f"{where}: no value given and no Default (pass it in parameters=)")
    if kind.startswith(_SSM_TYPE) and override is None:
        # The Default is the name of the SSM parameter to read, not the value.
        return Parameter(name, kind, None)
    text = _as_text(text)
    if kind == "CommaDelimitedList" or kind.startswith("List<"):
        items = [item.strip() for item in text.split(",")] if text else []
        element = kind[len("List<") : -1] if kind.startswith("List<") else "String"
        for item in items:
            _check(item, element, spec, where)
        return Parameter(name, kind, items)
    _check(text, kind, spec, where)
    return Parameter(name, kind, text)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_as_text(item) for item in value)
    return str(value)


def _check(value: str, kind: str, spec: Mapping[str, Any], where: str) -> None:
    allowed = spec.get("AllowedValues")
    if allowed is not None and value not in [_as_text(option) for option in allowed]:
        options = ", ".join(_as_text(option) for option in allowed)
        raise StackError(f"{where}: {value!r} is not one of the AllowedValues [{options}]")
    pattern = spec.get("AllowedPattern")
    if pattern is not None and re.fullmatch(str(pattern), value) is None:
        raise StackError(f"{where}: {value!r} does not match the AllowedPattern {pattern!r}")
    if "MinLength" in spec and len(value) < int(spec["MinLength"]):
        raise StackError(f"{where}: {value!r} is shorter than MinLength {spec['MinLength']}")
    if "MaxLength" in spec and len(value) > int(spec["MaxLength"]):
        raise StackError(f"{where}: {value!r} is longer than MaxLength {spec['MaxLength']}")
    if kind == "Number":
        try:
            number = float(value)
        except ValueError:
            raise StackError(f"{where}: {value!r} is not a Number") from None
        if "MinValue" in spec and number < float(spec["MinValue"]):
            raise StackError(f"{where}: {value} is less than MinValue {spec['MinValue']}")
        if "MaxValue" in spec and number > float(spec["MaxValue"]):
            raise StackError(f"{where}: {value} is more than MaxValue {spec['MaxValue']}")
