"""Entering an enemy hex that nothing there can hold: HQs alone (9.1.5) and towed
artillery (6.1.7), with HQs or without.

A regular unit (docs/rulings.md K20) may enter an enemy hex in which every unit is an HQ or
a towed artillery unit; every one of them is eliminated as it enters.

- HQs alone (9.1.5, K23): at the hex's ordinary cost, in the Movement and Strategic
  Movement Phase.
- Towed artillery, in either setup (6.1.7, E19, A-16, K49): in those phases the unit pays
  1 MP per towed artillery unit there, +1 MP once if the hex is fortified (FF, IF or a
  fixed position), on top of the hex's ordinary cost; the extra is not capped by R13. HQs
  stacked with the guns fall with them. In pursuit or the advance after combat (5.4,
  6.2.4 example, E20) the unit enters such a hex for nothing (5.4.7).

The movement code (`engine.wb95.movement`) prices and allows the step; `enter` eliminates
the units after any move, retreat, pursuit or advance into the hex.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.core import Ctx
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.elimination import eliminate
from engine.wb95.regular import is_regular

GUN_MP = Fraction(1)  # 6.1.7: per towed artillery unit (E19)
FORTIFIED_MP = Fraction(1)  # 6.1.7: once, if the artillery is in fortifications
FIXED_POSITION = "fixed-position"


@dataclass(frozen=True)
class Overrunnable:
    """An enemy hex a regular unit may enter, eliminating what is there."""

    hex: HexId
    units: tuple[str, ...]
    guns: int  # towed artillery units among them (6.1.7)
    fortified: bool

    @property
    def cost(self) -> Fraction:
        """The MPs entering costs in a movement phase beyond the hex's own cost (6.1.7,
        E19): none for HQs alone (9.1.5, K23)."""
        if not self.guns:
            return Fraction(0)
        return GUN_MP * self.guns + (FORTIFIED_MP if self.fortified else Fraction(0))


def is_gun(state: GameState, unit_id: str) -> bool:
    """Towed artillery (6.1.1, 6.2.1): type `art`."""
    return state.setup.units[unit_id].type == "art"


def overrunnable(state: GameState, side: str) -> dict[HexId, Overrunnable]:
    """The hexes where every unit of `side` is an HQ or towed artillery."""
    here: dict[HexId, list[str]] = {}
    for u in state.on_map(side):
        assert u.hex is not None
        here.setdefault(u.hex, []).append(u.id)
    out: dict[HexId, Overrunnable] = {}
    for h, ids in here.items():
        specs = [state.setup.units[x] for x in ids]
        if not all(s.is_hq or s.type == "art" for s in specs):
            continue
        guns = sum(1 for s in specs if s.type == "art")
        out[h] = Overrunnable(h, tuple(sorted(ids)), guns, _fortified(state, h, ids))
    return out


def _fortified(state: GameState, h: HexId, ids: list[str]) -> bool:
    """In FF or IF, or on a fixed position (6.1.7 "in fortifications", R20)."""
    if any(state.units[x].fortification in ("ff", "if") for x in ids):
        return True
    m = state.setup.map
    return any(FIXED_POSITION in m.features(h, n) for n in m.grid.neighbours(h))


def enter(ctx: Ctx, unit_id: str, h: HexId) -> None:
    """`unit_id` has entered `h`: if it is a regular unit and every enemy unit there is an
    HQ or towed artillery, they are all eliminated (9.1.5, 6.1.7)."""
    state = ctx.state
    mover = state.units[unit_id]
    if not is_regular(state.setup.units[mover.id]):
        return
    enemy = [u for u in state.units_at(h) if u.side != mover.side]
    if not enemy:
        return
    specs = [state.setup.units[u.id] for u in enemy]
    if not all(s.is_hq or s.type == "art" for s in specs):
        return
    guns = any(s.type == "art" for s in specs)
    for u in enemy:
        if state.setup.units[u.id].type == "art":
            cause = f"towed artillery in {h}, entered by the enemy regular unit {mover.id}"
            rule = "6.1.7"
        elif guns:
            cause = f"an HQ with towed artillery only in {h}, entered by {mover.id}"
            rule = "6.1.7, 9.1.5"
        else:
            cause = f"an HQ alone in {h}, entered by the enemy regular unit {mover.id}"
            rule = "9.1.5"
        eliminate(ctx, u.id, cause=cause, rule=rule, by=mover.id)
