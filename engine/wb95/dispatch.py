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
