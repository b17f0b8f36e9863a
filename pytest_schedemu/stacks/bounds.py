"""A template's bounds, checked before anything of it is built: the bytes of its file,
read no further than the limit; its values with every YAML alias expanded, counted on the
parser's nodes (where an alias is one shared node, however often it is used); how deep they
nest; and what its functions make. Each refusal names the limit and the setting that raises
it, for a template that is large on purpose."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.files import read_regular

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class OverLimit(Exception):
    """A template beyond one of its ``TemplateLimits``: the message says which, and how
    to raise it; the reader puts the file's name in front."""


def over(what: str, setting: str, value: int) -> OverLimit:
    return OverLimit(f"{what} ({setting}={value}; the setting {setting} raises it)")


def too_many_values(limits: TemplateLimits, where: str) -> OverLimit:
    return over(
        f"{where} more than {limits.max_nodes} values", "max_template_nodes", limits.max_nodes
    )


def too_deep(limits: TemplateLimits) -> OverLimit:
    return over(
        f"its values nest more than {limits.max_depth} levels deep",
        "max_template_depth",
        limits.max_depth,
    )


def read_text(path: Path, limits: TemplateLimits) -> str:
    """The file's text, UTF-8; OSError when it cannot be read, OverLimit when it holds more
    than ``max_bytes`` (no more than one byte past the limit is read), ValueError when it is
    not a regular file or not UTF-8."""
    # A fifo or a device is never opened: reading one could wait, or never end.
    content = read_regular(path, limits.max_bytes)
    if len(content) > limits.max_bytes:
        raise over(
            f"the file holds more than {limits.max_bytes} bytes",
            "max_template_bytes",
            limits.max_bytes,
        )
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as error:
        line = content.count(b"\n", 0, error.start) + 1
        raise ValueError(
            f"not UTF-8 text: byte 0x{content[error.start]:02x} at offset {error.start} "
            f"(line {line}) is {error.reason}"
        ) from None


def check_data(data: Any, limits: TemplateLimits) -> None:
    """OverLimit when ``data`` (a parsed JSON document: nothing in it is shared) holds more
    values than ``max_nodes`` or nests deeper than ``max_depth``."""
    nodes = 0
    for depth, level in enumerate(levels(data), start=1):
        if depth > limits.max_depth:
            raise too_deep(limits)
        nodes += len(level)
        if nodes > limits.max_nodes:
            raise too_many_values(limits, "it holds")


def check_nodes(root: yaml.Node, limits: TemplateLimits) -> None:
    """OverLimit when the YAML document ``root`` holds more values than ``max_nodes`` once
    every alias is expanded, or nests deeper than ``max_depth`` (an alias inside the value
    it names nests without end).

    Level by level, each distinct node once with the number of times it occurs there: an
    alias bomb's ten-fold fan-out, seven deep, is seventy nodes weighing ten million.
    """
    level: dict[yaml.Node, int] = {root: 1}
    nodes = depth = 1
    while level:
        below: dict[yaml.Node, int] = {}
        count = below.get
        deeper = False
        for node, times in level.items():
            if type(node) is yaml.MappingNode:
                children = [child for pair in node.value for child in pair]
            elif type(node) is yaml.SequenceNode:
                children = node.value
            else:
                continue
            deeper = deeper or bool(children)
            nodes += times * len(children)
            for child in children:
                # A scalar ends its branch here: only lists and mappings go on.
                if type(child) is not yaml.ScalarNode:
                    below[child] = count(child, 0) + times
        if nodes > limits.max_nodes:
            raise too_many_values(limits, "with its aliases expanded, it holds")
        if deeper:
            depth += 1
            if depth > limits.max_depth:
                raise too_deep(limits)
        level = below


def answer_size(value: Any, left: int) -> int:
    """The values ``value`` holds (itself included), counted no further than ``left + 1``."""
    count = 0
    for level in levels(value):
        count += len(level)
        if count > left:
            break
    return count


def levels(value: Any) -> Iterator[list[Any]]:
    """The values of a parsed document level by level: ``value`` alone, then what its lists
    and mappings hold, and so on; walked without recursion, so no depth ends it early."""
    level = [value]
    while level:
        yield level
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                below.extend(item.values())
            elif isinstance(item, list):
                below.extend(item)
        level = below
