"""What a request asks: who (a principal), may do what (an action), on what (a resource), in
which circumstances (the request context). Frozen and hashable, so that a caller's cache key
is the request itself."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Union

from pytest_schedemu.formats.times import to_utc

#: A value a caller may give for a context key; a list (or tuple, set) is a multivalued key.
ContextValue = Union[str, bool, int, float, datetime, bytes]

AWS = "AWS"
SERVICE = "Service"
FEDERATED = "Federated"
CANONICAL_USER = "CanonicalUser"


def _text(value: ContextValue) -> str:
    # Booleans first: True is an int too.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return to_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(f"a context value must be text, a number, a boolean or a time, not {value!r}")


@dataclass(frozen=True)
class Context:
    """The request context's keys and values. Keys are case-insensitive, as AWS reads them;
    values are kept as text, each key with a tuple of them (one for a single-valued key).
    Made by ``Context.of``, which lower-cases the keys and orders them, so that equal
    contexts are equal whatever order and case they were given in."""

    items: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The items by key, for the lookups of an evaluation.
    values: Mapping[str, tuple[str, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", dict(self.items))

    @classmethod
    def of(
        cls,
        mapping: Mapping[str, ContextValue | Iterable[ContextValue] | None] | None = None,
        /,
        **keys: ContextValue | Iterable[ContextValue] | None,
    ) -> Context:
        """A context from a mapping of keys (``{"aws:SourceAccount": "123456789012"}``) and
        keyword arguments; a value of None leaves its key out."""
        found: dict[str, tuple[str, ...]] = {}
        spelt: dict[str, str] = {}
        for key, value in [*(mapping or {}).items(), *keys.items()]:
            lowered = key.lower()
            if lowered in spelt and spelt[lowered] != key:
                raise ValueError(
                    f"context keys {spelt[lowered]!r} and {key!r} are one key: AWS reads "
                    "condition keys without regard to case"
                )
            spelt[lowered] = key
            if value is None:
                found.pop(lowered, None)
            elif isinstance(value, (str, bool, int, float, datetime, bytes)):
                found[lowered] = (_text(value),)
            else:
                found[lowered] = tuple(_text(item) for item in value)
        return cls(tuple(sorted(found.items())))

    def get(self, key: str) -> tuple[str, ...] | None:
        """The values of ``key`` (any case), None when the request lacks it."""
        return self.values.get(key.lower())

    def merged(self, other: Context) -> Context:
        """This context with ``other``'s keys added (``other`` wins a key both have)."""
        if not other.items:
            return self
        if not self.items:
            return other
        return Context(tuple(sorted({**self.values, **other.values}.items())))


EMPTY_CONTEXT = Context()


@dataclass(frozen=True)
class Principal:
    """Who makes a request: an AWS principal (an account's root, a role, a role's session,
    a user) by its ARN, or a service by its name (``events.amazonaws.com``)."""

    kind: str  # "AWS", "Service", "Federated", "CanonicalUser"
    name: str
    #: The account of an AWS principal; None for a service, which belongs to none.
    account: str | None = field(default=None, compare=False)
    #: The role of an assumed-role session (policies that name the role name its sessions).
    role_arn: str | None = field(default=None, compare=False)

    @classmethod
    def aws(cls, arn: str) -> Principal:
        """An AWS principal: an account id, or the ARN of a root, role, session or user."""
        if arn.isdigit() and len(arn) == 12:
            return cls(AWS, f"arn:aws:iam::{arn}:root", arn)
        parts = arn.split(":", 5)
        if len(parts) != 6 or parts[0] != "arn" or parts[2] not in ("iam", "sts"):
            raise ValueError(f"an AWS principal is an account id or an IAM or STS ARN, not {arn!r}")
        partition, service, account, path = parts[1], parts[2], parts[4], parts[5]
        role = None
        if service == "sts" and path.startswith("assumed-role/"):
            name = path.split("/")[1]
            role = f"arn:{partition}:iam::{account}:role/{name}"
        return cls(AWS, arn, account or None, role)

    @classmethod
    def service(cls, name: str) -> Principal:
        """A service principal, ``scheduler.amazonaws.com``."""
        return cls(SERVICE, name.lower())

    @classmethod
    def federated(cls, name: str) -> Principal:
        """A federated principal: an identity provider's ARN or name."""
        return cls(FEDERATED, name)

    @property
    def is_root(self) -> bool:
        return self.kind == AWS and self.name.endswith(":root")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Request:
    """May ``principal`` do ``action`` on ``resource`` in ``context``? The principal may be
    left out when only identity policies are asked (they belong to the principal)."""

    action: str
    resource: str
    principal: Principal | None = None
    context: Context = EMPTY_CONTEXT
    #: The action as actions compare: case-insensitively.
    action_key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "action_key", self.action.lower())
