"""The registry of rule systems, keyed by a scenario's `system:`.

The systems shipped with Kessel are imported when first asked for, so the core never
imports a system's package at load time; a test or a plug-in adds its own with `register`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from engine.state import GameState

if TYPE_CHECKING:
    from engine.model import Setup
    from engine.system import RuleSystem

# system id -> the module whose `SYSTEM` is its RuleSystem (imported on first use)
BUILTIN: dict[str, str] = {"wb95": "engine.wb95.system", "ags": "engine.ags.system"}

_LOADED: dict[str, RuleSystem] = {}


class UnknownSystem(KeyError):
    """A system id no RuleSystem is registered for."""

    def __str__(self) -> str:
        return str(self.args[0])


def register(system: RuleSystem) -> RuleSystem:
    """Make `system` the one for its id (replacing any before it)."""
    _LOADED[system.id] = system
    return system


def unregister(system_id: str) -> None:
    """Forget a registered system (a test's own); a built-in one loads again when asked."""
    _LOADED.pop(system_id, None)


def ids() -> list[str]:
    """Every system id that can be played: the built-in ones and those registered."""
    return sorted({*BUILTIN, *_LOADED})


def get(system_id: str) -> RuleSystem:
    found = _LOADED.get(system_id)
    if found is not None:
        return found
    module = BUILTIN.get(system_id)
    if module is None:
        raise UnknownSystem(
            f"unknown rule system '{system_id}'; Kessel plays {', '.join(ids()) or 'none'}"
        )
    return register(importlib.import_module(module).SYSTEM)


def of(game: Setup | GameState) -> RuleSystem:
    """The system that plays a setup, or the game a state is of."""
    setup = game.setup if isinstance(game, GameState) else game
    return get(setup.system)
