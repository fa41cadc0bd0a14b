"""Which function referees which order. Rule modules register their handlers with
`@handles(OrderType)`; `engine.wb95.game` imports every rule module so all are known."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.core import Ctx
from engine.orders import Order

Handler = Callable[[Ctx, str, Any], None]
ORDER_HANDLERS: dict[type[Order], Handler] = {}

F = TypeVar("F", bound=Handler)


def handles(*types: type[Order]) -> Callable[[F], F]:
    def register(fn: F) -> F:
        for t in types:
            if t in ORDER_HANDLERS:
                raise RuntimeError(f"two handlers for {t.__name__}")
            ORDER_HANDLERS[t] = fn
        return fn

    return register


AfterInput = Callable[[Ctx], None]
AFTER_INPUT: list[AfterInput] = []


def after_input(fn: AfterInput) -> AfterInput:
    """Register a step that runs after every accepted input, once its handler is through
    (e.g. bridge control, which follows the units at each end as they come and go:
    14.1.3). Such a step emits events only for what actually changed."""
    AFTER_INPUT.append(fn)
    return fn


# `done` given while the side owes a decision of one of these kinds ends that decision's
# step instead of the phase (e.g. the set-up placement of improved fortifications, 7.2.1).
DECISION_DONE: dict[str, Handler] = {}

GameStart = Callable[[Ctx], None]
GAME_START: list[GameStart] = []


def at_game_start(fn: GameStart) -> GameStart:
    """Register a set-up step that runs once when a game starts, after its first phase has
    begun (e.g. the German player's free placement of improved fortifications)."""
    GAME_START.append(fn)
    return fn
