"""What a resolved stack says of its Lambda functions: a ``FunctionDefinition`` each, with
its code found on disk where it can be, and why not where it cannot.

Where the code is:

- an inline ``Code.ZipFile`` (a SAM ``InlineCode`` too) is the module ``index``;
- a SAM ``CodeUri`` directory arrives as ``stacks.sam.LOCAL_CODE_BUCKET``'s key, relative
  to the template;
- a CDK asset is the ``Code.S3Key`` an asset manifest (``*.assets.json`` in the assembly)
  uploads from one of the assembly's directories.

A directory must lie inside the template's directory or the assembly, by any way out (the
stack files' own confinement check); code anywhere else is not run, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_schedemu.errors import StackError
from pytest_schedemu.functions.definition import (
    DEFAULT_MAXIMUM_EVENT_AGE_SECONDS,
    DEFAULT_MAXIMUM_RETRY_ATTEMPTS,
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_SECONDS,
    FunctionDefinition,
)
from pytest_schedemu.stacks import ResolvedStack, StackResource
from pytest_schedemu.stacks.assembly import FILE_LIMIT
from pytest_schedemu.stacks.files import confined, read_bounded
from pytest_schedemu.stacks.sam import LOCAL_CODE_BUCKET

FUNCTION = "AWS::Lambda::Function"
EVENT_INVOKE_CONFIG = "AWS::Lambda::EventInvokeConfig"
#: The function's version an unqualified ARN invokes.
LATEST = "$LATEST"


def read_functions(stack: ResolvedStack) -> tuple[FunctionDefinition, ...]:
    """Each ``AWS::Lambda::Function`` of ``stack``, in template order, with the
    ``AWS::Lambda::EventInvokeConfig`` that names it."""
    configs = _invoke_configs(stack)
    assets = _asset_sources(stack.source) if stack.source.is_dir() else {}
    return tuple(
        _definition(stack, resource, configs, assets) for resource in stack.of_type(FUNCTION)
    )


def _definition(
    stack: ResolvedStack,
    resource: StackResource,
    configs: Mapping[str, Mapping[str, Any]],
    assets: Mapping[str, str],
) -> FunctionDefinition:
    properties = resource.properties
    name = resource.physical_name or resource.logical_id
    arn = (
        resource.arn
        or f"arn:{stack.partition}:lambda:{stack.region}:{stack.account}:function:{name}"
    )
    code = _mapping(properties.get("Code"))
    runtime = _text(properties.get("Runtime"))
    image = properties.get("PackageType") == "Image" or "ImageUri" in code
    inline = _text(code.get("ZipFile"))
    code_dir, missing = (
        (None, None) if image or inline is not None else _code_dir(stack, code, assets)
    )
    config = configs.get(name) or configs.get(arn) or {}
    destinations = _mapping(config.get("DestinationConfig"))
    dead_letters = _mapping(properties.get("DeadLetterConfig"))
    variables = _mapping(_mapping(properties.get("Environment")).get("Variables"))
    return FunctionDefinition(
        arn=arn,
        name=name,
        logical_id=resource.logical_id,
        stack=stack.name,
        runtime=None if image else runtime,
        handler=None if image else _text(properties.get("Handler")),
        code_dir=code_dir,
        inline_code=inline,
        environment={str(key): _variable(value) for key, value in variables.items()},
        timeout_seconds=_number(properties.get("Timeout"), DEFAULT_TIMEOUT_SECONDS),
        memory_mb=_number(properties.get("MemorySize"), DEFAULT_MEMORY_MB),
        maximum_retry_attempts=_number(
            config.get("MaximumRetryAttempts"), DEFAULT_MAXIMUM_RETRY_ATTEMPTS
        ),
        maximum_event_age_seconds=_number(
            config.get("MaximumEventAgeInSeconds"), DEFAULT_MAXIMUM_EVENT_AGE_SECONDS
        ),
        on_success=_destination(destinations.get("OnSuccess")),
        on_failure=_destination(destinations.get("OnFailure")),
        dead_letter_arn=_text(dead_letters.get("TargetArn")),
        not_runnable=_not_runnable(image, runtime, inline, code_dir, missing),
    )


def _not_runnable(
    image: bool, runtime: str | None, inline: str | None, code_dir: Path | None, missing: str | None
) -> str | None:
    if image:
        return "an image"
    if runtime is None or not runtime.startswith("python"):
        return f"runtime {runtime}"
    if inline is None and code_dir is None:
        return f"code not on disk: {missing}"
    return None


def _code_dir(
    stack: ResolvedStack, code: Mapping[str, Any], assets: Mapping[str, str]
) -> tuple[Path | None, str | None]:
    """The directory holding the function's code, or None with what the code is instead."""
    bucket, key = _text(code.get("S3Bucket")), _text(code.get("S3Key"))
    if key is None:
        return None, f"no code in {dict(code)!r}"
    if bucket == LOCAL_CODE_BUCKET:
        root, named, container = stack.source.parent, key, "the template's directory"
        what = f"{stack.source}: CodeUri"
    elif key in assets:
        root, named, container = stack.source, assets[key], "the assembly"
        what = f"{stack.source}: the asset of {key}"
    else:
        return None, f"s3://{bucket}/{key}"
    try:
        _, resolved = confined(root, named, what, container)
    except StackError as error:
        return None, str(error)
    if not resolved.is_dir():
        return None, f"{resolved} is not a directory"
    return resolved, None


def _asset_sources(assembly: Path) -> dict[str, str]:
    """S3 key -> the path, relative to the assembly, its asset manifests upload from."""
    found: dict[str, str] = {}
    for manifest in sorted(assembly.glob("*.assets.json")):
        try:
            content = json.loads(read_bounded(manifest, FILE_LIMIT, str(manifest)))
        except ValueError:
            continue
        files = content.get("files") if isinstance(content, dict) else None
        for asset in files.values() if isinstance(files, dict) else ():
            source = asset.get("source") if isinstance(asset, dict) else None
            path = source.get("path") if isinstance(source, dict) else None
            if isinstance(path, str):
                for key in _object_keys(asset.get("destinations")):
                    found[key] = path
    return found


def _object_keys(destinations: Any) -> Iterable[str]:
    for destination in destinations.values() if isinstance(destinations, dict) else ():
        key = destination.get("objectKey") if isinstance(destination, dict) else None
        if isinstance(key, str):
            yield key


def _invoke_configs(stack: ResolvedStack) -> dict[str, Mapping[str, Any]]:
    """Function name or ARN -> its ``EventInvokeConfig``'s properties: the one on
    ``$LATEST`` where there are several (a config on a version or an alias stands for the
    function too where it has no other)."""
    configs: dict[str, Mapping[str, Any]] = {}
    for resource in stack.of_type(EVENT_INVOKE_CONFIG):
        named = _text(resource.properties.get("FunctionName"))
        if named is None:
            continue
        latest = resource.properties.get("Qualifier", LATEST) == LATEST
        if latest or named not in configs:
            configs[named] = resource.properties
    return configs


def _destination(destination: Any) -> str | None:
    return _text(destination.get("Destination")) if isinstance(destination, Mapping) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _variable(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number(value: Any, default: int) -> int:
    try:
        return default if value is None else int(value)
    except (TypeError, ValueError):
        return default
