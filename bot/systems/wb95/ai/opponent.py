"""The built-in opponent (issue #23): `Opponent(side, seed, level).choose(state)` returns
the next input of its side, or None when the game does not await it.

It reads the enemy only through its side's view (sight.py, engine.view.view: 16.1, K27,
K28); its own units, the map and the scenario it knows in full. Every input it returns
has been tried on the engine (`apply` on the state, the result discarded), so it is never
rejected, and a refused try tells it no more than a player's refused order would. Its own
`random.Random(seed)` only breaks ties in the fallback; the engine's dice are never
touched, so a game is deterministic for a seed.

Levels trade thinking time for quality: 1 looks for attacks within 6 hexes and tries the
engine's attacker sets only; 2 (the default) within 9 hexes and also the subsets that
leave strong units free and the attackers' special abilities (15.1.6); 3 within 12.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from bot.systems.wb95.ai import airplay, battle
from bot.systems.wb95.ai.aims import Aims, read
from bot.systems.wb95.ai.answers import answers
from bot.systems.wb95.ai.board import Step
from bot.systems.wb95.ai.plan import plan
from bot.systems.wb95.ai.sight import Sight, look
from bot.systems.wb95.checking import Checked
from engine import orders as o
from engine.state import GameState
from engine.wb95 import defaults, flow, odds
from engine.wb95.crt import COLUMNS

LEVELS = (1, 2, 3)
DEFAULT_LEVEL = 2


class Opponent(Checked):
    """The built-in player of one side."""

    def __init__(self, side: str, seed: int = 0, level: int = DEFAULT_LEVEL) -> None:
        if level not in LEVELS:
            raise ValueError(f"level {level}: one of {', '.join(map(str, LEVELS))}")
        self.side = side
        self.level = level
        self.rng = random.Random(seed)
        self._phase: tuple[int, int] | None = None
        self._tried: set[str] = set()
        self._steps: list[Step] = []
        self._dropped: set[str] = set()  # groups with a refused step
        self._planned = False
        self._ranked: list[tuple[o.Order, int]] | None = None  # this Combat Phase's inputs
        self._intents: dict[str, set[str]] = {}  # attacks its last Movement Phase prepared

    def choose(self, state: GameState) -> o.Order | None:
        if state.over:
            return None
        side = self.side
        now = (state.turn, state.phase)
        if now != self._phase:
            self._phase, self._tried, self._steps = now, set(), []
            self._dropped, self._planned, self._ranked = set(), False, None
        mine = [d for d in state.pending if d.side == side]
        if mine:
            d = mine[0]
            sight, aims = look(state, side), read(state, side)
            options = [
                *answers(state, side, d.kind, d.options, d.info, sight, aims),
                *defaults.answers(state, d),
            ]
            return self._first_ok(state, options, remember=False) or self._fallback(state)
        if state.pending or side not in flow.awaited_sides(state):
            return None
        kind = flow.current_phase(state).kind
        if kind == "movement":
            picked = self._movement(state)
        elif kind == "combat":
            picked = self._combat(state)
        else:
            picked = self._first_ok(state, self._menu(state, kind))
        return picked if picked is not None else self._fallback(state)

    def _menu(self, state: GameState, kind: str) -> Iterable[o.Order]:
        side = self.side
        if kind == "air":
            return airplay.orders(state, side, look(state, side), read(state, side))
        if kind == "barrage":
            return airplay.barrage(state, side, look(state, side))
        if kind == "strategic":
            return [o.Done()]
        return []

    def _movement(self, state: GameState) -> o.Order | None:
        if not self._planned:
            self._planned = True
            sight: Sight = look(state, self.side)
            aims: Aims = read(state, self.side)
            self._steps, self._intents = plan(state, self.side, sight, aims, self.level)
        while self._steps:
            step = self._steps.pop(0)
            if step.group in self._dropped:
                continue
            if self._ok(state, step.order):
                return step.order
            if isinstance(step.order, o.Move) and step.group.startswith("a-"):
                self._dropped.add(step.group)  # an attack short of a mover: nobody goes
        late = self._late_withdrawals(state)
        return self._first_ok(state, [*late, o.Done()])

    def _combat(self, state: GameState) -> o.Order | None:
        """The Combat Phase's attacks are ranked once (battle.choices, many previews); each
        later input re-checks only the next one, and ranks them again when an earlier
        combat has made it worse (a stack grew, a duty changed)."""
        fresh = self._ranked is None
        if self._ranked is None:
            self._ranked = battle.choices(
                state,
                self.side,
                read(state, self.side),
                look(state, self.side),
                self.level,
                self._intents,
            )
        while self._ranked:
            order, col = self._ranked.pop(0)
            key = repr(order)
            if key in self._tried:
                continue
            if isinstance(order, o.Attack) and not fresh:
                p = odds.preview(state, self.side, order)
                if not isinstance(p, dict):
                    continue
                if COLUMNS.index(p["column"]) < col:
                    self._ranked = None  # the odds have changed: rank again
                    return self._combat(state)
            self._tried.add(key)
            if self._ok(state, order):
                return order
        if not fresh:
            self._ranked = None  # a duty may have appeared: one more ranking
            return self._combat(state)
        return None

    def _late_withdrawals(self, state: GameState) -> list[o.Order]:
        """The Retreat: units that have just reached a withdrawal zone leave too."""
        from engine.wb95.victory import escape_hexes

        zones = escape_hexes(state, self.side)
        return [o.Withdraw(units=(u.id,)) for u in state.on_map(self.side) if u.hex in zones]
