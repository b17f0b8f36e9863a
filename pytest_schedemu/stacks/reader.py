"""``read_stack``: a template file, a SAM template or a CDK assembly, resolved."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Union

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.partitions import dns_suffix_for_partition
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.assembly import is_assembly, read_assembly
from pytest_schedemu.stacks.bounds import over
from pytest_schedemu.stacks.location import file_error
from pytest_schedemu.stacks.names import stack_name_from_file, stack_name_refusal, valid_stack_name
from pytest_schedemu.stacks.resolve import Environment, resolve_template
from pytest_schedemu.stacks.sam import SAM_TRANSFORM, translate
from pytest_schedemu.stacks.stack import ResolvedStack
from pytest_schedemu.stacks.templates import load_template, transforms

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

Source = Union[str, "os.PathLike[str]"]


def read_stack(
    source: Source,
    *,
    account: str,
    region: str,
    seed: int,
    parameters: Mapping[str, str] | None = None,
    stack_name: str | None = None,
    imports: Mapping[str, str] | None = None,
    placeholders: bool = False,
    limits: TemplateLimits | None = None,
) -> ResolvedStack:
    """The stack ``source`` defines, resolved for ``account`` and ``region``.

    ``source`` is a CloudFormation template (JSON or YAML; a SAM template is translated
    first), or a CDK cloud assembly directory or its ``manifest.json``. A CDK stack whose
    environment is concrete is deployed there, whatever ``account`` and ``region`` say.
    ``stack_name`` chooses a stack of an assembly; for a template it is the stack's name,
    refused with CloudFormation's message when CloudFormation would refuse it, and by
    default the file's name made a valid one (``names.stack_name_from_file``). Generated
    names derive from ``seed``, the stack's name and each logical id. ``imports`` holds the
    values ``Fn::ImportValue`` reads, by export name. A ``Ref`` or ``Fn::GetAtt`` to a
    resource of a type this module does not know is an error, unless ``placeholders`` asks
    for a placeholder ARN. ``limits`` bound the template's file, its values and what its
    functions make (the defaults of ``TemplateLimits`` when none are given).

    Raises StackError, naming the file, the resource and what is wrong.
    """
    path = Path(source)
    paths: Mapping[str, str] = {}
    if is_assembly(path):
        stack = read_assembly(path, stack_name)
        template_path, source_path, paths = stack.template_file, stack.directory, stack.paths
        name = stack.name
        account, region = stack.account or account, stack.region or region
    else:
        template_path = source_path = path
        name = _template_stack_name(path, stack_name)
    template = load_template(template_path, limits)
    file = str(template_path)
    environment = Environment(name=name, account=account, region=region, seed=seed)
    try:
        for macro in transforms(template):
            if macro != SAM_TRANSFORM:
                raise file_error(file, f"Transform {macro} is not supported (only {SAM_TRANSFORM})")
            template = translate(
                template, file=file, parameters=parameters or {}, pseudo=_pseudo(environment)
            )
        return resolve_template(
            template,
            file=file,
            source=source_path,
            environment=environment,
            parameters=parameters,
            imports=imports,
            placeholders=placeholders,
            cdk_paths=paths,
            limits=limits,
        )
    except RecursionError:
        # Only a depth limit raised near Python's recursion limit lets a template this deep
        # through: the limit it passed is named, as what to lower.
        depth = (limits or TemplateLimits()).max_depth
        too_deep = over(
            "its values nest too deep for Python's recursion limit", "max_template_depth", depth
        )
        raise file_error(file, str(too_deep)) from None


def _template_stack_name(path: Path, chosen: str | None) -> str:
    if chosen is None:
        return stack_name_from_file(path)
    refusal = stack_name_refusal(chosen)
    if refusal is not None:
        raise file_error(str(path), f"{refusal}. A valid name: {valid_stack_name(chosen)!r}")
    return chosen


def _pseudo(environment: Environment) -> dict[str, str]:
    return {
        "AWS::AccountId": environment.account,
        "AWS::Region": environment.region,
        "AWS::Partition": environment.partition,
        "AWS::URLSuffix": dns_suffix_for_partition(environment.partition),
        "AWS::StackName": environment.name,
        "AWS::StackId": environment.stack_id,
    }
