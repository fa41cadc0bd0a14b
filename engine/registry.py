"""A registry of named parts loaded on first use (issue #19): the rule systems of the
engine, of the scenarios and of the bot are each one. A built-in part is a module's
attribute, imported only when asked for, so no layer imports a system's package at load
time; a test or a plug-in adds its own with `register`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Named(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """`builtin`: id -> the module whose `attr` is the part (the dict itself is kept, so
    a change to it is seen); `unknown(id, ids)` is the error for an id nobody plays."""

    def __init__(
        self,
        builtin: dict[str, str],
        attr: str,
        unknown: Callable[[str, list[str]], Exception],
    ) -> None:
        self.builtin = builtin
        self.attr = attr
        self.unknown = unknown
        self.loaded: dict[str, T] = {}

    def register(self, part: T) -> T:
        """Make `part` the one for its id (replacing any before it)."""
        self.loaded[part.id] = part
        return part

    def unregister(self, part_id: str) -> None:
        """Forget a registered part (a test's own); a built-in one loads again when asked."""
        self.loaded.pop(part_id, None)

    def ids(self) -> list[str]:
        """Every id that can be asked for: the built-in ones and those registered."""
        return sorted({*self.builtin, *self.loaded})

    def get(self, part_id: str) -> T:
        found = self.loaded.get(part_id)
        if found is not None:
            return found
        module = self.builtin.get(part_id)
        if module is None:
            raise self.unknown(part_id, self.ids())
        part: T = getattr(importlib.import_module(module), self.attr)
        return self.register(part)
