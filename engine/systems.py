"""The registry of rule systems, keyed by a scenario's `system:`.

The systems shipped with Kessel are imported when first asked for, so the core never
imports a system's package at load time; a test or a plug-in adds its own with `register`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.registry import Registry
from engine.state import GameState

if TYPE_CHECKING:
    from engine.model import Setup
    from engine.system import RuleSystem

# system id -> the module whose `SYSTEM` is its RuleSystem (imported on first use)
BUILTIN: dict[str, str] = {"wb95": "engine.wb95.system", "ags": "engine.ags.system"}


class UnknownSystem(KeyError):
    """A system id no RuleSystem is registered for."""

    def __str__(self) -> str:
        return str(self.args[0])


def _unknown(system_id: str, known: list[str]) -> Exception:
    return UnknownSystem(
        f"unknown rule system '{system_id}'; Kessel plays {', '.join(known) or 'none'}"
    )


_REGISTRY: Registry[RuleSystem] = Registry(BUILTIN, "SYSTEM", _unknown)
register = _REGISTRY.register  # make a system the one for its id
unregister = _REGISTRY.unregister  # forget a test's own system
ids = _REGISTRY.ids  # every system id that can be played
get = _REGISTRY.get


def of(game: Setup | GameState) -> RuleSystem:
    """The system that plays a setup, or the game a state is of."""
    setup = game.setup if isinstance(game, GameState) else game
    return get(setup.system)
