"""``@slotted``: a frozen dataclass kept without an instance dictionary.

A service keeps its stored schedules by the hundred thousand, and an instance dictionary
costs more than the fields it holds. ``dataclass(slots=True)`` does the same from Python
3.10 on; this serves every Python the package supports. Put it above
``@dataclass(frozen=True)``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def slotted(cls: type[T]) -> type[T]:
    """``cls``, a frozen dataclass, made again with ``__slots__`` for its own fields."""
    inherited = {name for base in cls.__mro__[1:] for name in getattr(base, "__slots__", ())}
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = tuple(field.name for field in fields if field.name not in inherited)
    # The fields' defaults are class attributes, which slots of the same names would
    # clash with; the generated __init__ holds the defaults itself.
    namespace = {
        key: value
        for key, value in cls.__dict__.items()
        if key not in names and key not in ("__dict__", "__weakref__")
    }
    namespace["__slots__"] = names
    # A frozen instance refuses setattr, which copy and pickle restore slots with.
    namespace["__getstate__"] = _getstate
    namespace["__setstate__"] = _setstate
    made: type[T] = type(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, field.name) for field in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for field, value in zip(dataclasses.fields(self), state):
        object.__setattr__(self, field.name, value)
