"""CDK cloud assemblies (``cdk.out``): which stack, its template, its environment, and the
construct path of each of its resources."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.stacks.files import check_regular, confined, read_bounded
from pytest_schedemu.stacks.location import file_error

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

_STACK = "aws:cloudformation:stack"
_LOGICAL_ID = "aws:cdk:logicalId"
_UNKNOWN = ("unknown-account", "unknown-region")
#: The most bytes any file of an assembly may hold: sixteen times the largest template
#: CloudFormation takes (1 MB, from S3), and far more than a manifest or a stack's
#: metadata needs.
FILE_LIMIT = 16 * 1024 * 1024


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
    manifest = _json(manifest_path, str(manifest_path))
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
    named = _properties(artifact).get("templateFile", f"{artifact_id}.template.json")
    template_file, resolved = _inside(directory, manifest_path, "templateFile", str(named))
    # A template that is not there is the template reader's to report, with its neighbours;
    # so is its size, bounded as every template's is (``max_template_bytes``).
    if os.path.lexists(resolved):
        check_regular(resolved, f"{manifest_path}: templateFile {named!r}")
    account, region = _environment(artifact.get("environment"))
    return AssemblyStack(
        directory=directory,
        name=_stack_name(artifact_id, artifact),
        template_file=template_file,
        account=account,
        region=region,
        paths=_logical_paths(directory, manifest_path, artifact),
    )


def _inside(directory: Path, manifest: Path, field: str, named: str) -> tuple[Path, Path]:
    """The file a manifest's ``field`` names, as named and resolved: StackError, naming the
    manifest and the name, for one outside the assembly, by any way out (an absolute
    path, ``..``, a symbolic link), before anything opens it."""
    return confined(directory, named, f"{manifest}: {field}", "the assembly")


def _properties(artifact: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = artifact.get("properties")
    return properties if isinstance(properties, dict) else {}


def _stack_name(artifact_id: str, artifact: Mapping[str, Any]) -> str:
    return str(_properties(artifact).get("stackName") or artifact_id)


def _environment(environment: Any) -> tuple[str | None, str | None]:
    if not isinstance(environment, str) or not environment.startswith("aws://"):
        return None, None
    account, _, region = environment[len("aws://") :].partition("/")
    return (
        account if account and account not in _UNKNOWN else None,
        region if region and region not in _UNKNOWN else None,
    )


def _logical_paths(directory: Path, manifest: Path, artifact: Mapping[str, Any]) -> dict[str, str]:
    # Recent CDK releases write the metadata to a file of its own; older ones inline it.
    inline = artifact.get("metadata")
    metadata = dict(inline) if isinstance(inline, dict) else {}
    extra = artifact.get("additionalMetadataFile")
    if isinstance(extra, str):
        _, resolved = _inside(directory, manifest, "additionalMetadataFile", extra)
        found = _json(resolved, f"{manifest}: additionalMetadataFile {extra!r}")
        if not isinstance(found, dict):
            raise file_error(
                f"{manifest}: additionalMetadataFile {extra!r}",
                "not CDK metadata: its top level is not a mapping",
            )
        metadata.update(found)
    paths = {}
    for path, entries in metadata.items():
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("type") == _LOGICAL_ID:
                paths[str(entry.get("data"))] = path.lstrip("/")
    return paths


def _json(path: Path, what: str) -> Any:
    """The JSON in ``path``, read up to the limit; ``what`` names it in an error."""
    content = read_bounded(path, FILE_LIMIT, what)
    try:
        return json.loads(content.decode("utf-8"))
    except ValueError as error:
        raise file_error(what, f"not JSON: {error}") from None
    except RecursionError:
        raise file_error(what, "not JSON: nested deeper than the JSON reader follows") from None
