"""A stack resource's properties as the request of the API operation that creates it.

CloudFormation's properties of the resource types a stack loads carry the API's member
names (where they do not, the caller renames them first). CloudFormation converts values
to the types the model says: a template's ``"3"`` is an integer, ``"true"`` a boolean, a
time without an offset is UTC. The request is then the API's own to validate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from botocore.model import Shape

from pytest_schedemu.errors import ApiError, StackError, raised_for_the_caller
from pytest_schedemu.protocol.validation import names_an_offset
from pytest_schedemu.stacks import ResolvedStack, StackResource

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


def refuse_unknown(stack: ResolvedStack, resource: StackResource, members: Iterable[str]) -> None:
    """Refuse a property the resource type does not take: CloudFormation would."""
    taken = set(members)
    unknown = sorted(set(resource.properties) - taken)
    if unknown:
        raise StackError(
            f"{stack.source.name}: resource {resource.logical_id} ({resource.type}): "
            f"unsupported properties {unknown}; {resource.type} takes {sorted(taken)}"
        )


def typed(value: Any, shape: Shape) -> Any:
    """``value`` with the conversions CloudFormation makes for the model's types: numbers
    and booleans written as strings become numbers and booleans; a time without an offset
    is UTC."""
    kind = shape.type_name
    if kind == "structure" and isinstance(value, Mapping):
        members = shape.members
        return {k: typed(v, members[k]) if k in members else v for k, v in value.items()}
    if kind == "list" and isinstance(value, list):
        return [typed(item, shape.member) for item in value]
    if kind == "map" and isinstance(value, Mapping):
        return {k: typed(v, shape.value) for k, v in value.items()}
    if isinstance(value, str):
        if kind in ("integer", "long") and value.strip().lstrip("-").isdigit():
            return int(value)
        if kind == "boolean" and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if kind == "timestamp" and not names_an_offset(value):
            return value + "Z"  # CloudFormation reads a schedule's dates as UTC
    return value


def failure(stack: ResolvedStack, resource: StackResource, error: ApiError) -> StackError:
    """The load's error for a resource the API refuses: the file, the logical id, and
    AWS's code and message."""
    return StackError(
        f"{stack.source.name}: resource {resource.logical_id} ({resource.type}): "
        f"{error.code}: {error.message}"
    )
