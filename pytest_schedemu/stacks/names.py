"""Names and identifiers CloudFormation makes up, made up here from a seed instead, and
the stack's own name, which CloudFormation checks.

A deployed stack's generated names end in a random suffix; here the suffix, the stack's
UUID, a KMS key's id and the like are derived from (seed, stack name, logical id), so the
same inputs give the same names on every run and two stacks or resources never share one.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

from pytest_schedemu.errors import raised_for_the_caller

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: CloudFormation's suffixes are 12 or 13 characters; the older, longer form is kept.
SUFFIX_LENGTH = 13

#: CreateStack's rule for a stack's name, as its ValidationError quotes it.
STACK_NAME_PATTERN = "[a-zA-Z][-a-zA-Z0-9]*"
STACK_NAME_MAX_LENGTH = 128
_STACK_NAME = re.compile(STACK_NAME_PATTERN, re.ASCII)
_NOT_IN_A_STACK_NAME = re.compile(r"[^-a-zA-Z0-9]+", re.ASCII)
#: What a name that would not start with a letter is given in front.
_PREFIX = "stack-"


def stack_name_from_file(path: Path) -> str:
    """The stack name a template file gives: its name without the last extension, made a
    valid stack name (``valid_stack_name``); ``billing.prod.template.json`` gives
    ``billing-prod-template``."""
    return valid_stack_name(path.stem)


def valid_stack_name(text: str) -> str:
    """``text`` with each run of characters a stack name may not hold (dots, underscores,
    spaces) made one hyphen, and no hyphen at either end; prefixed with ``stack-`` when it
    would not start with a letter, and cut to the length CloudFormation allows."""
    name = _NOT_IN_A_STACK_NAME.sub("-", text).strip("-")
    if not name[:1].isalpha():
        name = _PREFIX + name
    return name[:STACK_NAME_MAX_LENGTH].rstrip("-")


def stack_name_refusal(name: str) -> str | None:
    """CloudFormation's ValidationError for ``name`` as a stack's name (CreateStack's
    wording), or None when it is a valid one."""
    value = f"Value '{name}' at 'stackName' failed to satisfy constraint: Member must"
    failures = []
    if _STACK_NAME.fullmatch(name) is None:
        failures.append(f"{value} satisfy regular expression pattern: {STACK_NAME_PATTERN}")
    if len(name) > STACK_NAME_MAX_LENGTH:
        failures.append(f"{value} have length less than or equal to {STACK_NAME_MAX_LENGTH}")
    if not failures:
        return None
    errors = "error" if len(failures) == 1 else "errors"
    return f"{len(failures)} validation {errors} detected: " + "; ".join(failures)


def digest(seed: int, *parts: str) -> bytes:
    """A digest of the seed and ``parts``, which no other choice of parts shares."""
    text = "\x00".join([str(seed), *parts])
    return hashlib.sha256(text.encode("utf-8")).digest()


def token(seed: int, length: int, *parts: str) -> str:
    """``length`` upper-case letters and digits derived from the seed and ``parts``."""
    number = int.from_bytes(digest(seed, *parts), "big")
    characters = []
    for _ in range(length):
        number, index = divmod(number, len(_ALPHABET))
        characters.append(_ALPHABET[index])
    return "".join(characters)


def derived_uuid(seed: int, *parts: str) -> str:
    """A version-4-shaped UUID derived from the seed and ``parts``."""
    return str(uuid.UUID(bytes=digest(seed, *parts)[:16], version=4))


def generated_name(
    seed: int, stack_name: str, logical_id: str, max_length: int, *, tail: str = ""
) -> str:
    """CloudFormation's name for a resource whose template names it not:
    ``<stack name>-<logical id>-<suffix>``, then ``tail`` (a FIFO queue's ``.fifo``).

    When that is longer than ``max_length`` the stack name and the logical id are shortened,
    the longer one first, and the suffix is kept whole: it is what makes the name unique.
    """
    suffix = token(seed, SUFFIX_LENGTH, "name", stack_name, logical_id)
    budget = max_length - len(suffix) - len(tail) - 2
    stack_part, logical_part = _shortened(stack_name, logical_id, max(budget, 0))
    parts = [part for part in (stack_part, logical_part) if part]
    return "-".join([*parts, suffix]) + tail


def _shortened(first: str, second: str, budget: int) -> tuple[str, str]:
    if len(first) + len(second) <= budget:
        return first, second
    half = budget // 2
    if len(first) <= half:
        return first, second[: budget - len(first)].rstrip("-")
    if len(second) <= budget - half:
        return first[: budget - len(second)].rstrip("-"), second
    return first[: budget - half].rstrip("-"), second[:half].rstrip("-")
