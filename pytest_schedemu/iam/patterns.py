"""Wildcards and policy variables: how the text a policy writes matches what a request names.

Four ways to read ``*`` and ``?``, one per place of a policy (IAM User Guide, "IAM JSON
policy elements: Action", "...: Resource", "...: Condition operators"):

* ``FREE`` (Action, ``StringLike``): ``*`` is any run of characters, ``?`` any one.
* ``RESOURCE`` (Resource): the same within one colon-separated segment of the ARN; a ``*``
  that ends a segment may run on across the colons that follow it.
* ``SEGMENT`` (``ArnLike``/``ArnEquals``): each of the six parts of the ARN is matched on
  its own; the sixth, the resource part, is everything after the fifth colon.
* ``NONE`` (``StringEquals`` and the like): no wildcard, only variables.

Policy variables (``${aws:username}``, ``${aws:username, 'default'}``, and ``${*}``,
``${?}``, ``${$}`` for the characters themselves) are replaced from the request context
before matching (IAM User Guide, "IAM policy elements: Variables and tags"), only in
policies of version ``2012-10-17``; a variable whose key the request lacks, and which has no
default, matches nothing. A replaced value is literal text: a ``*`` in a user's name is not a
wildcard.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

FREE = "free"
RESOURCE = "resource"
SEGMENT = "segment"
NONE = "none"

#: A request context as the matchers read it: lower-cased keys, each with its values.
Lookup = Mapping[str, tuple[str, ...]]

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_DEFAULT = re.compile(r"^\s*([^,\s]+)\s*,\s*'([^']*)'\s*$")
#: ``${*}``, ``${?}``, ``${$}``: the characters themselves, where a policy needs them literal.
_ESCAPED = frozenset("*?$")


class Wildcard:
    """``*`` or ``?`` in a pattern: a piece of its own, never confused with the same
    character in literal text (from ``${*}``, or a value put in for a variable)."""

    __slots__ = ("char",)

    def __init__(self, char: str) -> None:
        self.char = char

    def __repr__(self) -> str:
        return self.char


STAR = Wildcard("*")
ONE = Wildcard("?")


@dataclass(frozen=True)
class Variable:
    """``${key}`` or ``${key, 'default'}`` in a policy's text."""

    key: str  # lower-cased: context keys are case-insensitive
    default: str | None


Piece = Union[str, Variable, Wildcard]
_WILDCARDS = re.compile(r"([*?])")


def _pieces(text: str, wildcard: str, variables: bool) -> tuple[Piece, ...]:
    """``text`` cut into literal runs, wildcards and variables."""
    pieces: list[Piece] = []

    def add(chunk: str) -> None:
        parts = [chunk] if wildcard == NONE else _WILDCARDS.split(chunk)
        for part in parts:
            if wildcard != NONE and part in ("*", "?"):
                pieces.append(STAR if part == "*" else ONE)
            elif part:
                pieces.append(part)

    position = 0
    for match in _VARIABLE.finditer(text) if variables else ():
        add(text[position : match.start()])
        inner = match.group(1)
        if inner in _ESCAPED:
            pieces.append(inner)
        else:
            default = _DEFAULT.match(inner)
            if default:
                pieces.append(Variable(default.group(1).lower(), default.group(2)))
            else:
                pieces.append(Variable(inner.strip().lower(), None))
        position = match.end()
    add(text[position:])
    return _joined(pieces)


def _joined(pieces: list[Piece]) -> tuple[Piece, ...]:
    """Adjacent literal runs as one, so that what follows a wildcard is seen whole."""
    joined: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, str) and joined and isinstance(joined[-1], str):
            joined[-1] += piece
        else:
            joined.append(piece)
    return tuple(joined)


def _regex(pieces: tuple[Piece, ...], wildcard: str) -> str:
    """The regular expression of resolved pieces (no variables left)."""
    out: list[str] = []
    colons = 0
    for index, piece in enumerate(pieces):
        if isinstance(piece, Wildcard):
            anywhere = wildcard == FREE or (wildcard == SEGMENT and colons >= 5)
            if wildcard == RESOURCE and piece is STAR:
                following = pieces[index + 1] if index + 1 < len(pieces) else ":"
                anywhere = isinstance(following, str) and following.startswith(":")
            if piece is STAR:
                out.append(".*" if anywhere else "[^:]*")
            else:
                out.append("." if anywhere else "[^:]")
        elif isinstance(piece, str):
            colons += piece.count(":")
            out.append(re.escape(piece))
        else:  # pragma: no cover - variables are replaced before
            raise AssertionError(piece)
    return "".join(out)


@lru_cache(maxsize=2048)
def _compiled(regex: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(regex, re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _has_wildcard(pieces: tuple[Piece, ...]) -> bool:
    return any(isinstance(piece, Wildcard) for piece in pieces)


def _plain(pieces: tuple[Piece, ...]) -> str:
    return "".join(
        piece.char if isinstance(piece, Wildcard) else piece
        for piece in pieces
        if not isinstance(piece, Variable)
    )


@dataclass(frozen=True)
class Pattern:
    """One value a policy writes, ready to match: an exact text when it has neither
    wildcard nor variable, a compiled expression when it has wildcards, and its pieces
    when a variable must first be replaced from the request."""

    text: str
    wildcard: str
    ignore_case: bool
    exact: str | None
    regex: re.Pattern[str] | None
    pieces: tuple[Piece, ...]

    @property
    def has_variables(self) -> bool:
        return self.exact is None and self.regex is None

    def resolve(self, lookup: Lookup) -> tuple[Piece, ...] | None:
        """The pieces with every variable replaced; None when a key is missing."""
        resolved: list[Piece] = []
        for piece in self.pieces:
            if isinstance(piece, Variable):
                values = lookup.get(piece.key)
                if values is not None and len(values) == 1:
                    value = values[0]
                elif piece.default is not None and not values:
                    value = piece.default
                else:
                    # A multivalued key cannot stand in one place of a text.
                    return None
                resolved.append(value)
            else:
                resolved.append(piece)
        return _joined(resolved)

    def resolved_text(self, lookup: Lookup) -> str | None:
        """The text with its variables replaced (for messages and exact comparisons)."""
        if not self.has_variables:
            return _plain(self.pieces)
        pieces = self.resolve(lookup)
        if pieces is None:
            return None
        return _plain(pieces)

    def matches(self, value: str, lookup: Lookup) -> bool:
        if self.exact is not None:
            return (value.lower() if self.ignore_case else value) == self.exact
        if self.regex is not None:
            return self.regex.fullmatch(value) is not None
        pieces = self.resolve(lookup)
        if pieces is None:
            return False
        if self.wildcard == NONE or not _has_wildcard(pieces):
            text = _plain(pieces)
            if self.ignore_case:
                return value.lower() == text.lower()
            return value == text
        return (
            _compiled(_regex(pieces, self.wildcard), self.ignore_case).fullmatch(value) is not None
        )


def compile_pattern(
    text: str, *, wildcard: str, ignore_case: bool = False, variables: bool = False
) -> Pattern:
    """``text`` as a policy writes it, ready to match a request's value."""
    pieces = _pieces(text, wildcard, variables)
    if any(isinstance(piece, Variable) for piece in pieces):
        return Pattern(text, wildcard, ignore_case, None, None, pieces)
    if not _has_wildcard(pieces):
        plain = _plain(pieces)
        return Pattern(
            text, wildcard, ignore_case, plain.lower() if ignore_case else plain, None, pieces
        )
    return Pattern(
        text, wildcard, ignore_case, None, _compiled(_regex(pieces, wildcard), ignore_case), pieces
    )


@dataclass(frozen=True)
class PatternSet:
    """The values of one element (``Action``, ``Resource``): a request's value is in it
    when any of them matches. Exact values are looked up in a set, so the common policy
    (a few named actions, a named resource) costs one hash per element."""

    anything: bool
    exact: frozenset[str]
    regexes: tuple[re.Pattern[str], ...]
    variable: tuple[Pattern, ...]

    def matches(self, value: str, lookup: Lookup) -> bool:
        """Whether ``value`` is in it; an action is given lower-cased (``Request.action_key``),
        as the set's exact actions are kept."""
        if self.anything or value in self.exact:
            return True
        for regex in self.regexes:
            if regex.fullmatch(value) is not None:
                return True
        return any(pattern.matches(value, lookup) for pattern in self.variable)


def pattern_set(
    texts: tuple[str, ...], *, wildcard: str, ignore_case: bool = False, variables: bool = False
) -> PatternSet:
    compiled = [
        compile_pattern(text, wildcard=wildcard, ignore_case=ignore_case, variables=variables)
        for text in texts
    ]
    return PatternSet(
        anything="*" in texts,
        exact=frozenset(p.exact for p in compiled if p.exact is not None),
        regexes=tuple(p.regex for p in compiled if p.regex is not None),
        variable=tuple(p for p in compiled if p.has_variables),
    )
