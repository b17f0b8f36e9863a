"""How a service words its validation messages (AWS's constraint-message format), and how a
model's pattern is read; ``validation`` walks the requests.

The two services word them alike but not the same (``Style``): EventBridge quotes a pattern
as its model writes it and visits members in the model's order, reporting a pattern
mismatch before a length (AWS's answers, as LocalStack recorded them against AWS:
``Value '!@#$' at 'targets.1.member.id' failed to satisfy constraint: Member must satisfy
regular expression pattern: [\\.\\-_A-Za-z0-9]+``). Scheduler's quote patterns anchored:
since botocore 1.44.8 its model writes them without ``^``/``$``, and a pattern without them
is quoted as ``^<pattern>$``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from re import Pattern
from typing import Any

from pytest_schedemu.formats.times import to_epoch


@dataclass(frozen=True)
class Style:
    """How a service words its validation messages."""

    #: Quote a pattern between ``^`` and ``$`` (Scheduler), or as the model writes it.
    anchored_patterns: bool = True
    #: Visit a structure's members alphabetically (Scheduler), or in the model's order.
    alphabetical_members: bool = True
    #: Check a string's pattern before its length (EventBridge), or after (Scheduler).
    pattern_before_length: bool = False


SCHEDULER_STYLE = Style()
EVENTS_STYLE = Style(
    anchored_patterns=False, alphabetical_members=False, pattern_before_length=True
)


# Java's Unicode classes, which EventBridge's model uses once (``RunCommandTargetKey``), in
# Python's terms: letters (with digits and ``_``, which ``\w`` adds), numbers, separators.
_JAVA_CLASSES = {r"\p{L}": r"\w", r"\p{N}": r"\d", r"\p{Z}": r"\s"}


def compile_pattern(pattern: str) -> Pattern[str]:
    r"""A model pattern as Python's ``re`` reads it: ASCII classes, unless the pattern names
    Unicode classes (``\p{L}``), which Python's ``re`` does not know."""
    if r"\p{" not in pattern:
        return re.compile(pattern, re.ASCII)
    for java, python in _JAVA_CLASSES.items():
        pattern = pattern.replace(java, python)
    return re.compile(pattern)


def anchored(pattern: str) -> str:
    """A model pattern as the service's messages quote it: between ``^`` and ``$``."""
    if pattern.startswith("^") and pattern.endswith("$"):
        return pattern
    return f"^{pattern}$"


def member_path(name: str) -> str:
    """The path segment AWS uses in messages: the member name, first letter lower-cased."""
    return name[:1].lower() + name[1:]


def render_value(value: Any) -> str:
    """A value as AWS quotes it in a constraint message."""
    if value is None:
        return "null"
    return f"'{_render(value)}'"


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    if isinstance(value, datetime):
        return str(round(to_epoch(value), 3))
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def format_errors(items: list[str]) -> str:
    count = len(items)
    noun = "error" if count == 1 else "errors"
    return f"{count} validation {noun} detected: " + "; ".join(items)


def violation(value: Any, path: str, constraint: str) -> str:
    return f"Value {render_value(value)} at '{path}' failed to satisfy constraint: {constraint}"
