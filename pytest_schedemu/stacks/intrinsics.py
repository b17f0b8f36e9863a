"""CloudFormation's intrinsic functions and condition functions, evaluated.

The evaluator knows the functions; what a name refers to (a parameter, a pseudo parameter,
a resource, a condition) it asks its ``References``, which the stack resolver provides, so
that a resource's name and ARN are worked out only when something refers to them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Callable, Protocol

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.bounds import answer_size, over, too_many_values
from pytest_schedemu.stacks.functions import cidr, join, select, split, text
from pytest_schedemu.stacks.location import Location

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class _NoValue:
    """``AWS::NoValue``: the property or list item that holds it is removed."""

    def __repr__(self) -> str:
        return "AWS::NoValue"


NO_VALUE: Any = _NoValue()

_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")


class References(Protocol):
    """What the names in a template stand for."""

    region: str
    mappings: Mapping[str, Any]
    imports: Mapping[str, str]

    def ref(self, name: str, at: Location) -> Any: ...

    def get_att(self, resource: str, attribute: str, at: Location) -> Any: ...

    def condition(self, name: str, at: Location) -> bool: ...


class Evaluator:
    """Evaluates a template's values against ``references``.

    What its functions answer is counted, across the template: the text (``Fn::Sub``,
    ``Fn::Join``, a long name, ...) against ``max_bytes``, the values of lists and
    mappings (``Fn::FindInMap``, ``Fn::Split``, a list parameter) against ``max_nodes``,
    so that a small template cannot make a huge stack by repeating a function.
    """

    def __init__(self, references: References, limits: TemplateLimits | None = None) -> None:
        self.references = references
        self.limits = limits or TemplateLimits()
        self._text_left = self.limits.max_bytes
        self._values_left = self.limits.max_nodes
        self._functions: dict[str, Callable[[Any, Location], Any]] = {
            "Ref": self._ref,
            "Fn::GetAtt": self._get_att,
            "Fn::Sub": self._sub,
            "Fn::Join": lambda args, at: join(self._args(args, at), at),
            "Fn::Select": lambda args, at: select(self._args(args, at), at),
            "Fn::Split": lambda args, at: split(self._args(args, at), at),
            "Fn::If": self._if,
            "Fn::FindInMap": self._find_in_map,
            "Fn::Base64": self._base64,
            "Fn::ImportValue": self._import_value,
            "Fn::GetAZs": self._get_azs,
            "Fn::Cidr": lambda args, at: cidr(self._args(args, at), at),
        }

    def value(self, node: Any, at: Location, *, track: bool = True) -> Any:
        """``node`` with every function evaluated; ``NO_VALUE`` for ``AWS::NoValue``.

        ``track`` extends ``at`` by each key and index passed; a function's arguments are
        evaluated without, so that an error names the property that holds the function.
        """
        if isinstance(node, dict):
            if len(node) == 1:
                ((key, args),) = node.items()
                function = self._functions.get(key)
                if function is not None:
                    answer = function(args, at)
                    # Text, nearly every answer, is counted here: it stays cheap per call.
                    if type(answer) is str:
                        self._text_left -= len(answer)
                        if self._text_left >= 0:
                            return answer
                    elif not isinstance(answer, (dict, list)):
                        return answer
                    return self._counted(answer, key, at)
                if key.startswith("Fn::"):
                    raise at.error(f"{key} is not supported")
            resolved = {}
            for key, item in node.items():
                item = self.value(item, at.at(key) if track else at, track=track)
                if item is not NO_VALUE:
                    resolved[key] = item
            return resolved
        if isinstance(node, list):
            items = [
                self.value(item, at.at(index) if track else at, track=track)
                for index, item in enumerate(node)
            ]
            return [item for item in items if item is not NO_VALUE]
        return node

    def _counted(self, answer: Any, function: str, at: Location) -> Any:
        """``answer``, a list or mapping, counted; or the error of text past the limit."""
        if isinstance(answer, (dict, list)):
            self._values_left -= answer_size(answer, self._values_left)
        if self._values_left >= 0 and self._text_left >= 0:
            return answer
        if self._text_left < 0:
            limit = self.limits.max_bytes
            error = over(
                f"its functions make more than {limit} bytes of text", "max_template_bytes", limit
            )
        else:
            error = too_many_values(self.limits, "its functions answer")
        raise at.error(f"{function}: {error}")

    def _args(self, node: Any, at: Location) -> Any:
        return self.value(node, at, track=False)

    def condition(self, node: Any, at: Location) -> bool:
        """The truth of a condition function (``Fn::Equals``, ``Fn::And``, ``Fn::Or``,
        ``Fn::Not``, ``Condition``)."""
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict) or len(node) != 1:
            raise at.error(f"a condition must be a condition function, not {node!r}")
        ((key, args),) = node.items()
        inner = at
        if key == "Condition":
            return self.references.condition(_name(args, "Condition", inner), inner)
        if key == "Fn::Equals":
            if not isinstance(args, list) or len(args) != 2:
                raise inner.error(f"Fn::Equals takes [value, value], not {args!r}")
            first, second = (_comparable(self._args(arg, inner)) for arg in args)
            return bool(first == second)
        if key in ("Fn::And", "Fn::Or"):
            if not isinstance(args, list) or not 2 <= len(args) <= 10:
                raise inner.error(f"{key} takes 2 to 10 conditions, not {args!r}")
            truths = (self.condition(arg, inner) for arg in args)
            return all(truths) if key == "Fn::And" else any(truths)
        if key == "Fn::Not":
            if not isinstance(args, list) or len(args) != 1:
                raise inner.error(f"Fn::Not takes [condition], not {args!r}")
            return not self.condition(args[0], inner)
        raise at.error(f"{key} is not a condition function")

    def _ref(self, args: Any, at: Location) -> Any:
        return self.references.ref(_name(self._args(args, at), "Ref", at), at)

    def _get_att(self, args: Any, at: Location) -> Any:
        if isinstance(args, str) and "." in args:
            args = args.split(".", 1)
        if not isinstance(args, list) or len(args) != 2:
            raise at.error(f"Fn::GetAtt takes [resource, attribute], not {args!r}")
        resource = _name(args[0], "Fn::GetAtt", at)
        attribute = _name(self._args(args[1], at), "Fn::GetAtt", at)
        return self.references.get_att(resource, attribute, at)

    def _sub(self, args: Any, at: Location) -> str:
        variables: dict[str, Any] = {}
        if isinstance(args, list) and len(args) == 2 and isinstance(args[1], dict):
            args, given = args
            variables = {name: self._args(item, at) for name, item in given.items()}
        if not isinstance(args, str):
            raise at.error(f"Fn::Sub takes a string or [string, variables], not {args!r}")

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return text(variables[name], at, f"Fn::Sub ${{{name}}}")
            if "." in name and not name.startswith("AWS::"):
                resource, attribute = name.split(".", 1)
                found = self.references.get_att(resource, attribute, at)
            else:
                found = self.references.ref(name, at)
            return text(found, at, f"Fn::Sub ${{{name}}}")

        return _SUB_VARIABLE.sub(substitute, args)

    def _if(self, args: Any, at: Location) -> Any:
        if not isinstance(args, list) or len(args) != 3:
            raise at.error(f"Fn::If takes [condition, if true, if false], not {args!r}")
        chosen = self.references.condition(_name(args[0], "Fn::If", at), at)
        return self.value(args[1] if chosen else args[2], at)

    def _find_in_map(self, args: Any, at: Location) -> Any:
        if not isinstance(args, list) or len(args) != 3:
            raise at.error(f"Fn::FindInMap takes [map, top key, second key], not {args!r}")
        names = [text(self._args(arg, at), at, "Fn::FindInMap") for arg in args]
        found: Any = self.references.mappings
        for depth, key in enumerate(names):
            if not isinstance(found, Mapping) or key not in found:
                within = ".".join(names[:depth]) or "Mappings"
                raise at.error(f"Fn::FindInMap {'.'.join(names)}: {within} has no key {key!r}")
            found = found[key]
        return found

    def _base64(self, args: Any, at: Location) -> str:
        data = text(self._args(args, at), at, "Fn::Base64")
        return base64.b64encode(data.encode("utf-8")).decode("ascii")

    def _import_value(self, args: Any, at: Location) -> str:
        name = text(self._args(args, at), at, "Fn::ImportValue")
        try:
            return self.references.imports[name]
        except KeyError:
            raise at.error(
                f"Fn::ImportValue {name}: no export named {name!r} (pass its value in imports=)"
            ) from None

    def _get_azs(self, args: Any, at: Location) -> list[str]:
        region = text(self._args(args, at), at, "Fn::GetAZs") or self.references.region
        # Three zones, as every commercial region has at least.
        return [f"{region}{zone}" for zone in "abc"]


def _name(value: Any, function: str, at: Location) -> str:
    if not isinstance(value, str):
        raise at.error(f"{function} needs a name, not {value!r}")
    return value


def _comparable(value: Any) -> Any:
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value
