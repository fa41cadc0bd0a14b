"""What both built-in WB-95 opponents (opponent.py, the baseline; ai/opponent.py, issue
#23) do with an input before they give it: try it on the engine (`apply` on the state,
the result discarded), so a given input is never rejected, and fall back on `done` or an
accepted engine candidate when nothing they planned is accepted."""

from __future__ import annotations

import random
from collections.abc import Iterable

from engine import orders as o
from engine.core import Applied
from engine.state import GameState
from engine.wb95.choices import candidate_orders
from engine.wb95.game import apply


class Checked:
    """The checks of a player of `side`; `_tried` holds the inputs tried this phase."""

    side: str
    rng: random.Random
    _tried: set[str]

    def _ok(self, state: GameState, order: o.Order) -> bool:
        return isinstance(apply(state, self.side, order), Applied)

    def _first_ok(
        self, state: GameState, orders: Iterable[o.Order], remember: bool = True
    ) -> o.Order | None:
        """The first accepted input; with `remember`, each is tried once a phase."""
        for order in orders:
            key = repr(order)
            if remember:
                if key in self._tried:
                    continue
                self._tried.add(key)
            if self._ok(state, order):
                return order
        return None

    def _fallback(self, state: GameState) -> o.Order | None:
        """`done` when it is accepted; otherwise an accepted engine candidate (a duty to
        meet, a decision to answer, a withdrawal the scenario requires), picked with the
        player's own seeded generator; None only when nothing at all is accepted."""
        done = o.Done()
        if self._ok(state, done):
            return done
        cands = candidate_orders(state, self.side, limit=50)
        self.rng.shuffle(cands)
        for c in cands:
            if self._ok(state, c):
                return c
        return None
