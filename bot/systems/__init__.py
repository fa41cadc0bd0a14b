"""The bot's side of each rule system, keyed like `engine.systems` by a scenario's
`system:`: how the system's events and decisions read as sentences (its `Describer`) and
its built-in opponent. Everything else the bot asks of a game goes through
`engine.system.RuleSystem`.

A system with no opponent of its own is played by its deadline policy
(`RuleSystem.next_default`): every input it gives is one the referee accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import systems as engine_systems
from engine.core import Event
from engine.orders import Order
from engine.registry import Registry
from engine.state import GameState

# One side's built-in player: the next input, or None when the game does not await it.
Chooser = Callable[[GameState], Order | None]


class Describer(Protocol):
    """Engine events, decisions and sealed inputs as sentences (bot/describe.py is
    WB-95's). Events come as a viewer may read them (`engine.view.visible_events`)."""

    def event(self, e: Event) -> str: ...

    def lines(self, events: Iterable[Event], *, numbered: bool = False) -> list[str]: ...

    def decision(
        self,
        kind: str,
        rule: str,
        options: Any,
        info: Mapping[str, Any] | None = None,
        *,
        side: str = "",
        state: GameState | None = None,
        viewer: str | None = None,
    ) -> str: ...

    def answers(
        self,
        kind: str,
        options: Any,
        info: Mapping[str, Any] | None = None,
        *,
        side: str = "",
        state: GameState | None = None,
    ) -> list[str]: ...

    def sealed_item(self, kind: Any, item: Any) -> str: ...


@dataclass(frozen=True)
class BotSystem:
    id: str
    describer: Describer
    opponent: Callable[[str, int], Chooser] | None = None  # (side, seed) -> its player
    # Modules of this package that may use the system's engine package directly (the
    # layering test, tests/test_layering.py, allows them and no others).
    adapters: tuple[str, ...] = field(default=())


# system id -> the module whose `BOT_SYSTEM` it is (imported on first use)
BUILTIN: dict[str, str] = {"wb95": "bot.systems.wb95", "ags": "bot.systems.ags"}


def _unknown(system_id: str, known: list[str]) -> Exception:
    return engine_systems.UnknownSystem(
        f"no describer or opponent registered for rule system '{system_id}'"
    )


_REGISTRY: Registry[BotSystem] = Registry(BUILTIN, "BOT_SYSTEM", _unknown)
register = _REGISTRY.register
unregister = _REGISTRY.unregister
get = _REGISTRY.get


def of(state: GameState) -> BotSystem:
    return get(state.setup.system)


def describer(state: GameState) -> Describer:
    return of(state).describer


def builtin_opponent(side: str, seed: int) -> Chooser:
    """The built-in player of `side`: its system's opponent, made for the first state it
    is asked about (a referee seats one before it knows the game's system)."""
    player: Chooser | None = None

    def choose(state: GameState) -> Order | None:
        nonlocal player
        if player is None:
            made = of(state).opponent
            player = made(side, seed) if made is not None else _by_defaults(side)
        return player(state)

    return choose


def _by_defaults(side: str) -> Chooser:
    def choose(state: GameState) -> Order | None:
        rules = engine_systems.of(state)
        if side not in rules.awaited_sides(state):
            return None
        return rules.next_default(state, side)

    return choose
