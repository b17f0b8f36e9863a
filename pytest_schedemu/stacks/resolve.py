"""A template resolved: every parameter, condition and function evaluated, every resource
named, with its ARN and what ``Ref`` and ``Fn::GetAtt`` answer for it.

A resource's identity (its name, ARN and answers) is worked out the first time something
refers to it, because a name property may itself refer to other resources; a reference
back to a resource still being worked out is a cycle, and an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.listing import did_you_mean
from pytest_schedemu.model.partitions import dns_suffix_for_partition, partition_for_region
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.intrinsics import NO_VALUE, Evaluator
from pytest_schedemu.stacks.location import Location, file_error
from pytest_schedemu.stacks.names import derived_uuid, generated_name, token
from pytest_schedemu.stacks.parameters import Parameter, read_parameters
from pytest_schedemu.stacks.resources import KINDS, ResourceKind
from pytest_schedemu.stacks.stack import ResolvedStack, StackResource

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: CDK's logical ids end in 8 upper-case hex digits of a hash of the construct's path.
_CDK_HASH = re.compile(r"^(?P<id>.+?)[0-9A-F]{8}$")


@dataclass(frozen=True)
class Identity:
    """What a resource is called and what references to it answer."""

    physical_name: str | None
    arn: str | None
    ref: str | None
    attributes: Mapping[str, str]


@dataclass(frozen=True)
class Environment:
    """Where the stack is deployed, and what makes its made-up names."""

    name: str
    account: str
    region: str
    seed: int

    @property
    def partition(self) -> str:
        return partition_for_region(self.region)

    @property
    def stack_id(self) -> str:
        uuid = derived_uuid(self.seed, "stack", self.name)
        return (
            f"arn:{self.partition}:cloudformation:{self.region}:{self.account}:"
            f"stack/{self.name}/{uuid}"
        )


def resolve_template(
    template: Mapping[str, Any],
    *,
    file: str,
    source: Path,
    environment: Environment,
    parameters: Mapping[str, str] | None = None,
    imports: Mapping[str, str] | None = None,
    placeholders: bool = False,
    cdk_paths: Mapping[str, str] | None = None,
    limits: TemplateLimits | None = None,
) -> ResolvedStack:
    """The stack ``template`` makes in ``environment``; StackError for anything that
    cannot be resolved, or when its functions make more than ``limits`` allow.
    ``cdk_paths`` maps logical ids to CDK construct paths."""
    stack = _Stack(template, file, environment, parameters, imports or {}, placeholders, limits)
    return ResolvedStack(
        name=environment.name,
        source=source,
        account=environment.account,
        region=environment.region,
        partition=environment.partition,
        stack_id=environment.stack_id,
        resources=stack.resolve(cdk_paths or {}),
    )


class _Stack:
    """The references of one template: parameters, pseudo parameters, conditions,
    mappings and resources (``intrinsics.References``)."""

    def __init__(
        self,
        template: Mapping[str, Any],
        file: str,
        environment: Environment,
        parameters: Mapping[str, str] | None,
        imports: Mapping[str, str],
        placeholders: bool,
        limits: TemplateLimits | None,
    ) -> None:
        if not isinstance(template, Mapping):
            raise file_error(file, "not a template: its top level is not a mapping")
        resources = template.get("Resources")
        if not isinstance(resources, Mapping) or not resources:
            raise file_error(file, "not a template: it has no Resources")
        self.file = file
        self.environment = environment
        self.region = environment.region
        self.imports = imports
        self.placeholders = placeholders
        self.mappings: Mapping[str, Any] = template.get("Mappings") or {}
        self.parameters: dict[str, Parameter] = read_parameters(
            template.get("Parameters"), parameters, file
        )
        self.conditions: Mapping[str, Any] = template.get("Conditions") or {}
        self.resources: Mapping[str, Any] = resources
        partition = environment.partition
        self.pseudo: dict[str, Any] = {
            "AWS::AccountId": environment.account,
            "AWS::Region": environment.region,
            "AWS::Partition": partition,
            "AWS::URLSuffix": dns_suffix_for_partition(partition),
            "AWS::StackName": environment.name,
            "AWS::StackId": environment.stack_id,
            "AWS::NotificationARNs": [],
            "AWS::NoValue": NO_VALUE,
        }
        self.evaluator = Evaluator(self, limits)
        self._truths: dict[str, bool] = {}
        self._identities: dict[str, Identity] = {}
        self._working: list[str] = []
        self._deciding: list[str] = []

    # -- the stack's resources ---------------------------------------------------------

    def resolve(self, cdk_paths: Mapping[str, str]) -> tuple[StackResource, ...]:
        resolved = []
        for logical_id in self.resources:
            at = Location(self.file, "resource", logical_id)
            definition = self._definition(logical_id, at)
            if not self._created(logical_id, at):
                continue
            identity = self.identity(logical_id, at)
            properties = self.evaluator.value(
                definition.get("Properties") or {}, at.at("Properties")
            )
            path = cdk_paths.get(logical_id) or _template_cdk_path(definition)
            resolved.append(
                StackResource(
                    logical_id=logical_id,
                    type=definition["Type"],
                    physical_name=identity.physical_name,
                    arn=identity.arn,
                    ref=identity.ref,
                    properties=properties if isinstance(properties, dict) else {},
                    construct_id=_construct_id(logical_id) if path else None,
                    cdk_path=path,
                )
            )
        return tuple(resolved)

    def _definition(self, logical_id: str, at: Location) -> Mapping[str, Any]:
        definition = self.resources[logical_id]
        if not isinstance(definition, Mapping) or not isinstance(definition.get("Type"), str):
            raise at.error("a resource needs a Type")
        return definition

    def _created(self, logical_id: str, at: Location) -> bool:
        condition = self.resources[logical_id].get("Condition")
        return condition is None or self.condition(condition, at.at("Condition"))

    def identity(self, logical_id: str, at: Location) -> Identity:
        found = self._identities.get(logical_id)
        if found is not None:
            return found
        if logical_id in self._working:
            cycle = " -> ".join([*self._working[self._working.index(logical_id) :], logical_id])
            raise at.error(f"circular reference: {cycle}")
        self._working.append(logical_id)
        try:
            identity = self._identify(logical_id)
        finally:
            self._working.pop()
        self._identities[logical_id] = identity
        return identity

    def _identify(self, logical_id: str) -> Identity:
        at = Location(self.file, "resource", logical_id)
        definition = self._definition(logical_id, at)
        kind = KINDS.get(definition["Type"])
        if kind is None:
            if self.placeholders:
                return self._placeholder(logical_id, definition["Type"])
            return Identity(None, None, None, {})
        properties = definition.get("Properties") or {}
        properties_at = at.at("Properties")

        def read(name: str) -> Any:
            found = self.evaluator.value(properties.get(name), properties_at.at(name))
            return None if found is NO_VALUE else found

        environment = self.environment
        values = {
            "partition": environment.partition,
            "region": environment.region,
            "account": environment.account,
            "dns_suffix": self.pseudo["AWS::URLSuffix"],
        }
        name = self._physical_name(logical_id, kind, read, properties_at)
        values["name"] = name or ""
        if kind.extras is not None:

            def derive(label: str) -> str:
                if label == "uuid":
                    return derived_uuid(environment.seed, label, environment.name, logical_id)
                return token(environment.seed, 20, label, environment.name, logical_id)

            values.update(kind.extras(read, derive, values))
            name = values["name"] or None
        arn = kind.arn.format_map(values) if kind.arn else None
        values["arn"] = arn or ""
        return Identity(
            physical_name=name,
            arn=arn,
            ref=kind.ref.format_map(values) if kind.ref else None,
            attributes={key: form.format_map(values) for key, form in kind.attributes.items()},
        )

    def _physical_name(
        self, logical_id: str, kind: ResourceKind, read: Any, at: Location
    ) -> str | None:
        if kind.name_property is not None:
            explicit = read(kind.name_property)
            if explicit is not None:
                if not isinstance(explicit, str):
                    raise at.at(kind.name_property).error(
                        f"{kind.name_property} must be a string, not {explicit!r}"
                    )
                return explicit
        if not kind.generated:
            return None
        fifo = kind.fifo_property is not None and str(read(kind.fifo_property)).lower() == "true"
        environment = self.environment
        name = generated_name(
            environment.seed,
            environment.name,
            logical_id,
            kind.max_length,
            tail=".fifo" if fifo else "",
        )
        return name.lower() if kind.lower_case else name

    def _placeholder(self, logical_id: str, resource_type: str) -> Identity:
        environment = self.environment
        service = resource_type.split("::")[1].lower() if "::" in resource_type else "unknown"
        arn = (
            f"arn:{environment.partition}:{service}:{environment.region}:"
            f"{environment.account}:{logical_id.lower()}"
        )
        return Identity(None, arn, arn, _PlaceholderAttributes(arn))

    # -- references (intrinsics.References) --------------------------------------------

    def ref(self, name: str, at: Location) -> Any:
        if name in self.parameters:
            value = self.parameters[name].value
            if value is None:
                raise at.error(
                    f"Ref {name}: parameter {name} is read from SSM "
                    f"({self.parameters[name].type}); pass its value in parameters="
                )
            return value
        if name in self.pseudo:
            return self.pseudo[name]
        self._referred(name, f"Ref {name}", at)
        identity = self.identity(name, at)
        if identity.ref is None:
            raise at.error(f"Ref {name}: {self._unanswered(name)}")
        return identity.ref

    def get_att(self, resource: str, attribute: str, at: Location) -> Any:
        what = f"Fn::GetAtt {resource}.{attribute}"
        definition = self._referred(resource, what, at)
        identity = self.identity(resource, at)
        if not identity.attributes and identity.arn is None and identity.ref is None:
            raise at.error(f"{what}: {self._unanswered(resource)}")
        try:
            return identity.attributes[attribute]
        except KeyError:
            known = ", ".join(identity.attributes) or "none"
            raise at.error(
                f"{what}: type {definition['Type']} has no attribute {attribute} (known: {known})"
            ) from None

    def _referred(self, name: str, what: str, at: Location) -> Mapping[str, Any]:
        if name not in self.resources:
            self._missing(name, what, at)
        definition = self._definition(name, Location(self.file, "resource", name))
        if not self._created(name, Location(self.file, "resource", name)):
            raise at.error(
                f"{what}: resource {name} is not created (its Condition "
                f"{definition.get('Condition')} is false)"
            )
        return definition

    def _missing(self, name: str, what: str, at: Location) -> NoReturn:
        if what.startswith("Ref"):
            known = [*self.parameters, *self.pseudo, *self.resources]
            raise at.error(
                f"{what}: no parameter, pseudo parameter or resource {name}{_hint(name, known)}"
            )
        raise at.error(f"{what}: no resource {name}{_hint(name, self.resources)}")

    def _unanswered(self, name: str) -> str:
        resource_type = self.resources[name]["Type"]
        if resource_type in KINDS:
            return f"resource {name} has no Ref for type {resource_type}"
        return (
            f"resource {name} has no known Ref for type {resource_type} "
            "(placeholders=True answers a placeholder ARN)"
        )

    def condition(self, name: str, at: Location) -> bool:
        if not isinstance(name, str):
            raise at.error(f"a Condition must be a condition's name, not {name!r}")
        truth = self._truths.get(name)
        if truth is not None:
            return truth
        if name not in self.conditions:
            known = ", ".join(self.conditions) or "none"
            raise at.error(f"no condition {name} (declared: {known})")
        if name in self._deciding:
            cycle = " -> ".join([*self._deciding[self._deciding.index(name) :], name])
            raise at.error(f"circular condition: {cycle}")
        self._deciding.append(name)
        try:
            truth = self.evaluator.condition(
                self.conditions[name], Location(self.file, "condition", name)
            )
        finally:
            self._deciding.pop()
        self._truths[name] = truth
        return truth


class _PlaceholderAttributes(dict[str, str]):
    """Any attribute of a resource of an unknown type, as a placeholder: its ARN for an
    ``*Arn`` attribute, else the ARN and the attribute's name."""

    def __init__(self, arn: str) -> None:
        super().__init__()
        self.arn = arn

    def __missing__(self, attribute: str) -> str:
        return self.arn if attribute.endswith("Arn") else f"{self.arn}/{attribute}"

    def __bool__(self) -> bool:
        return True


def _construct_id(logical_id: str) -> str:
    match = _CDK_HASH.match(logical_id)
    return match.group("id") if match else logical_id


def _template_cdk_path(definition: Mapping[str, Any]) -> str | None:
    metadata = definition.get("Metadata")
    path = metadata.get("aws:cdk:path") if isinstance(metadata, Mapping) else None
    return path if isinstance(path, str) else None


def _hint(name: str, known: Iterable[str]) -> str:
    guess = did_you_mean(name, known)
    return f"; {guess}" if guess else ""
