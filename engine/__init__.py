"""Kessel's rules engine: pure, synchronous and deterministic (DESIGN §1-2).

The small public API, after python-chess:

    applied = new_game(setup, seed=7)          # Applied(events, state)
    result = apply(state, "soviet", order)     # Applied(events, state) | Rejection
    view(state, "german")                      # what one viewer may see
    legal_moves(state, "s-232")                # reachable hexes with cost and path
    replay(setup, seed, dice, events)          # rebuild a state from its events

Setups come from the `scenarios` package; orders from `engine.notation.parse_orders`.
"""

from engine.core import Applied, Event, Rejection
from engine.notation import NotationError, format_order, parse_order, parse_orders
from engine.state import GameState
from engine.view import View, view
from engine.wb95.game import apply, legal_moves, new_game, replay

__all__ = [
    "Applied",
    "Event",
    "GameState",
    "NotationError",
    "Rejection",
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
