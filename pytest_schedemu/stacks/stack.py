"""What a stack resolves to: its resources, concrete, and the ways a test names one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.listing import did_you_mean, suggestion

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: The suffix CDK gives the construct of an L2 that holds its L1 resource.
_RESOURCE_LEAF = "/Resource"


@dataclass(frozen=True)
class StackResource:
    """One resource of a resolved stack."""

    logical_id: str
    type: str
    #: The name CloudFormation gives it: its explicit name property, or a generated one.
    physical_name: str | None
    #: Its ARN, where its type has one.
    arn: str | None
    #: What ``Ref`` answers for it.
    ref: str | None
    #: Every intrinsic evaluated, every ``AWS::NoValue`` removed.
    properties: Mapping[str, Any]
    #: CDK: the logical id without CDK's 8-hex-digit suffix (``ChargeFn``).
    construct_id: str | None = None
    #: CDK: the construct's path, e.g. ``Billing/ChargeFn/Resource``.
    cdk_path: str | None = None


@dataclass(frozen=True)
class ResolvedStack:
    """A template resolved for one account, region and seed."""

    name: str
    #: The template file, or the CDK assembly directory, that was read.
    source: Path
    account: str
    region: str
    partition: str
    stack_id: str
    #: In template order; a resource whose Condition is false is absent.
    resources: tuple[StackResource, ...]
    _names: Mapping[str, tuple[StackResource, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names: dict[str, list[StackResource]] = {}
        for resource in self.resources:
            for name in _names_of(resource):
                found = names.setdefault(name, [])
                if resource not in found:
                    found.append(resource)
        object.__setattr__(self, "_names", {name: tuple(found) for name, found in names.items()})

    def resource(self, name: str) -> StackResource:
        """The resource named ``name``: its logical id, its CDK construct id, or its CDK path
        (with or without the trailing ``/Resource``). LookupError when no resource or more
        than one has that name."""
        found = self._names.get(name, ())
        if len(found) == 1:
            return found[0]
        if found:
            ids = ", ".join(resource.logical_id for resource in found)
            raise LookupError(f"{name!r} names several resources of stack {self.name}: {ids}")
        # Any name may be the one meant; the logical ids alone are listed when none is.
        hint = did_you_mean(name, self._names) or suggestion(
            name, [resource.logical_id for resource in self.resources], "its resources"
        )
        raise LookupError(f"stack {self.name} has no resource {name!r}; {hint}")

    def of_type(self, resource_type: str) -> tuple[StackResource, ...]:
        """The resources of ``resource_type`` (e.g. ``AWS::Scheduler::Schedule``), in order."""
        return tuple(resource for resource in self.resources if resource.type == resource_type)


def _names_of(resource: StackResource) -> list[str]:
    names = [resource.logical_id]
    if resource.construct_id:
        names.append(resource.construct_id)
    if resource.cdk_path:
        names.append(resource.cdk_path)
        if resource.cdk_path.endswith(_RESOURCE_LEAF):
            names.append(resource.cdk_path[: -len(_RESOURCE_LEAF)])
    return names
