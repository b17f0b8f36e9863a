"""Names and identifiers CloudFormation makes up, made up here from a seed instead.

A deployed stack's generated names end in a random suffix; here the suffix, the stack's
UUID, a KMS key's id and the like are derived from (seed, stack name, logical id), so the
same inputs give the same names on every run and two stacks or resources never share one.
"""

from __future__ import annotations

import hashlib
import uuid

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: CloudFormation's suffixes are 12 or 13 characters; the older, longer form is kept.
SUFFIX_LENGTH = 13


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
