"""CDK cloud assemblies (``cdk.out``): which stack, its template, its environment, and the
construct path of each of its resources."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.stacks.location import file_error

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

_STACK = "aws:cloudformation:stack"
_LOGICAL_ID = "aws:cdk:logicalId"
_UNKNOWN = ("unknown-account", "unknown-region")


@dataclass(frozen=True)
class AssemblyStack:
    """One stack artifact of an assembly."""

    directory: Path
    name: str
    template_file: Path
    #: From the artifact's environment, where it is concrete.
    account: str | None
    region: str | None
    #: Logical id -> construct path (``Billing/ChargeFn/Resource``).
    paths: Mapping[str, str]


def is_assembly(path: Path) -> bool:
    return path.is_dir() or path.name == "manifest.json"


def read_assembly(path: Path, stack_name: str | None) -> AssemblyStack:
    """The stack ``stack_name`` of the assembly at ``path`` (its directory or its
    ``manifest.json``); the only one when no name is given."""
    directory = path.parent if path.name == "manifest.json" else path
    manifest_path = directory / "manifest.json"
    manifest = _json(manifest_path)
    artifacts = manifest.get("artifacts") if isinstance(manifest, dict) else None
    if not isinstance(artifacts, dict):
        raise file_error(str(manifest_path), "not a CDK cloud assembly manifest: no artifacts")
    stacks = {
        artifact_id: artifact
        for artifact_id, artifact in artifacts.items()
        if isinstance(artifact, dict) and artifact.get("type") == _STACK
    }
    if not stacks:
        raise file_error(str(manifest_path), "the assembly holds no CloudFormation stack")
    names = {
        _stack_name(artifact_id, artifact): artifact_id for artifact_id, artifact in stacks.items()
    }
    listed = ", ".join(names)
    if stack_name is None:
        if len(stacks) > 1:
            raise file_error(
                str(manifest_path),
                f"the assembly holds several stacks ({listed}): pass stack_name=",
            )
        artifact_id = next(iter(stacks))
    else:
        found = names.get(stack_name) or (stack_name if stack_name in stacks else None)
        if found is None:
            raise file_error(
                str(manifest_path), f"the assembly holds no stack {stack_name!r} (stacks: {listed})"
            )
        artifact_id = found
    artifact = stacks[artifact_id]
    properties = artifact.get("properties") or {}
    template_file = directory / str(properties.get("templateFile", f"{artifact_id}.template.json"))
    account, region = _environment(artifact.get("environment"))
    return AssemblyStack(
        directory=directory,
        name=_stack_name(artifact_id, artifact),
        template_file=template_file,
        account=account,
        region=region,
        paths=_logical_paths(directory, artifact),
    )


def _stack_name(artifact_id: str, artifact: Mapping[str, Any]) -> str:
    properties = artifact.get("properties") or {}
    return str(properties.get("stackName") or artifact_id)


def _environment(environment: Any) -> tuple[str | None, str | None]:
    if not isinstance(environment, str) or not environment.startswith("aws://"):
        return None, None
    account, _, region = environment[len("aws://") :].partition("/")
    return (
        account if account and account not in _UNKNOWN else None,
        region if region and region not in _UNKNOWN else None,
    )


def _logical_paths(directory: Path, artifact: Mapping[str, Any]) -> dict[str, str]:
    # Recent CDK releases write the metadata to a file of its own; older ones inline it.
    metadata = dict(artifact.get("metadata") or {})
    extra = artifact.get("additionalMetadataFile")
    if isinstance(extra, str):
        metadata.update(_json(directory / extra))
    paths = {}
    for path, entries in metadata.items():
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("type") == _LOGICAL_ID:
                paths[str(entry.get("data"))] = path.lstrip("/")
    return paths


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise file_error(str(path), f"cannot be read: {error.strerror or error}") from None
    except ValueError as error:
        raise file_error(str(path), f"not JSON: {error}") from None
