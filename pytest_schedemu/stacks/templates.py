"""Reading a template file: CloudFormation JSON or YAML."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.formats.listing import suggestion
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.bounds import OverLimit, check_data, read_text, too_deep
from pytest_schedemu.stacks.location import file_error
from pytest_schedemu.stacks.yaml_tags import load_yaml

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: The endings of the files a missing template's message lists as its neighbours.
_TEMPLATE_SUFFIXES = (".json", ".yaml", ".yml", ".template")


def load_template(path: Path, limits: TemplateLimits | None = None) -> dict[str, Any]:
    """The template in ``path``, JSON or YAML, with YAML's short forms in long form;
    StackError, naming the file, when it cannot be read, is not UTF-8, is not a template
    or is beyond ``limits`` (the defaults when none are given)."""
    limits = limits or TemplateLimits()
    try:
        content = read_text(path, limits)
    except FileNotFoundError as error:
        raise file_error(str(path), f"cannot be read: {error.strerror}{_near(path)}") from None
    except OSError as error:
        raise file_error(str(path), f"cannot be read: {error.strerror or error}") from None
    except (OverLimit, ValueError) as error:
        raise file_error(str(path), str(error)) from None
    try:
        template = _parsed(content, limits)
    except OverLimit as error:
        raise file_error(str(path), str(error)) from None
    except (ValueError, yaml.YAMLError) as error:
        raise file_error(str(path), f"not a template: {error}") from None
    if not isinstance(template, dict):
        raise file_error(str(path), "not a template: its top level is not a mapping")
    return template


def _parsed(content: str, limits: TemplateLimits) -> Any:
    # JSON first where it looks like JSON: exact, and much faster than YAML's reader.
    if not content.lstrip().startswith("{"):
        return load_yaml(content, limits)
    try:
        template = json.loads(content)
    except RecursionError:
        # json's parser nests as deep as Python's recursion limit lets it.
        if limits.max_depth < sys.getrecursionlimit():
            raise too_deep(limits) from None
        raise OverLimit(
            "its values nest deeper than Python's recursion limit lets it be read"
        ) from None
    check_data(template, limits)
    return template


def _near(path: Path) -> str:
    """The templates beside a missing one, and the one a typo would have missed."""
    try:
        there = [entry.name for entry in path.parent.iterdir() if entry.is_file()]
    except OSError:
        return ""
    templates = [name for name in there if name.endswith(_TEMPLATE_SUFFIXES)]
    if not templates:
        return f"; {path.parent} holds no template"
    return f"; {suggestion(path.name, templates, 'templates there')}"


def transforms(template: dict[str, Any]) -> list[str]:
    """The names of the macros the template's ``Transform`` asks for, in order."""
    declared = template.get("Transform")
    if declared is None:
        return []
    if isinstance(declared, (str, dict)):
        declared = [declared]
    names = []
    for item in declared:
        # The long form, {"Name": "AWS::Include", "Parameters": ...}, names a macro too.
        names.append(str(item.get("Name")) if isinstance(item, dict) else str(item))
    return names
