"""Kessel's rules engine: pure, synchronous and deterministic (DESIGN §1-2).

The small public API, after python-chess:

    applied = new_game(setup, seed=7)          # Applied(events, state)
    result = apply(state, "soviet", order)     # Applied(events, state) | Rejection
    view(state, "german")                      # what one viewer may see
    legal_moves(state, "s-232")                # reachable hexes with cost and path
    replay(setup, seed, dice, events)          # rebuild a state from its events

Setups come from the `scenarios` package; orders from `engine.notation.parse_orders`.
Each call goes to the rule system of the game (`engine.systems.of`, by the scenario's
`system:`; `engine.system.RuleSystem` is the whole interface).
"""

from collections.abc import Mapping, Sequence

from engine import systems
from engine.core import Applied, Event, Rejection
from engine.model import Setup
from engine.notation import NotationError, format_order, parse_order, parse_orders
from engine.orders import Order
from engine.state import GameState
from engine.system import Reach, RuleSystem
from engine.view import View, view


def new_game(setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
    return systems.of(setup).new_game(setup, seed, dice)


def apply(state: GameState, side: str | None, order: Order) -> Applied | Rejection:
    return systems.of(state).apply(state, side, order)


def legal_moves(state: GameState, unit_id: str) -> Mapping[str, Reach]:
    return systems.of(state).legal_moves(state, unit_id)


def replay(setup: Setup, seed: int, dice: Sequence[int], events: Sequence[Event]) -> GameState:
    return systems.of(setup).replay(setup, seed, dice, events)


__all__ = [
    "Applied",
    "Event",
    "GameState",
    "NotationError",
    "Rejection",
    "RuleSystem",
    "View",
    "apply",
    "format_order",
    "legal_moves",
    "new_game",
    "parse_order",
    "parse_orders",
    "replay",
    "view",
]
