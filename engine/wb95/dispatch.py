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
