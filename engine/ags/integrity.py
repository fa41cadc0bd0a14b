"""Panzer divisional integrity (AGS 9.9; AGS-K 19.5, 19.51-19.55, 19.57; A12, A30, A31,
K152).

A panzer division is every panzer and panzergrenadier regiment of one formation (the
Korsun counter sheet: three each). Attack (19.51, A30): all its regiments in one hex and
all in the same attack or overrun -- the hex's division units attack doubled. Defence
(19.52, A12, A31): each regiment doubled when every regiment is within two hexes of every
other, no enemy unit and no friendly unit outside the division stands in a hex between
two of them (every hex adjacent to both, A31; an enemy ZoC there does not matter, 19.52,
K152), and no regiment is stacked with a unit outside the division but a StuG or the
Baeke regiment, which are not doubled (19.53). All its regiments must be in play (19.54);
out of supply or isolated they still qualify (19.55: doubled, then halved)."""

from __future__ import annotations

from collections.abc import Iterable

from engine.ags import game
from engine.hexgrid import HexId
from engine.state import GameState, UnitState

PANZER_TYPES = ("panzer-regiment", "panzergrenadier-regiment")
FREE_COMPANIONS = ("stug-regiment", "heavy-tank-regiment")  # AGS-K 19.53


def division_of(state: GameState, uid: str) -> str | None:
    sp = game.spec(state, uid)
    if sp.side != "german" or sp.type not in PANZER_TYPES or not sp.formation:
        return None  # 19.57: infantry, StuG, Wallonien, Baeke, Soviet units never
    return sp.formation


def members(state: GameState, formation: str) -> list[str]:
    return sorted(
        uid
        for uid, sp in game.scenario(state).units.items()
        if sp.side == "german" and sp.type in PANZER_TYPES and sp.formation == formation
    )


def _in_play(state: GameState, uids: Iterable[str]) -> list[UnitState] | None:
    """19.54: every regiment on the map (reduced is fine), else None."""
    out = []
    for uid in uids:
        u = state.units.get(uid)
        if u is None or not u.on_map or u.hex is None:
            return None
        out.append(u)
    return out


def _clean_stacks(state: GameState, formation: str, hexes: Iterable[HexId]) -> bool:
    """19.53: no regiment stacked with a unit outside the division but StuG/Baeke."""
    for h in hexes:
        for x in state.units_at(h):
            if division_of(state, x.id) == formation:
                continue
            if game.spec(state, x.id).type not in FREE_COMPANIONS:
                return False
    return True


def attack_doubled(state: GameState, attackers: Iterable[UnitState]) -> dict[str, str]:
    """The attackers doubled for integrity (unit -> formation): 19.51, A30."""
    ids = {a.id for a in attackers}
    out: dict[str, str] = {}
    for f in {division_of(state, i) for i in ids} - {None}:
        assert f is not None
        regs = _in_play(state, members(state, f))
        if not regs or not all(r.id in ids for r in regs):
            continue  # A30: all three in the same attack
        hexes = {r.hex for r in regs}
        if len(hexes) != 1 or not _clean_stacks(state, f, hexes):  # type: ignore[arg-type]
            continue
        out.update({r.id: f for r in regs})
    return out


def defence_doubled(state: GameState, u: UnitState) -> bool:
    """Whether `u` defends doubled for its division's integrity (19.52-19.55, A31)."""
    f = division_of(state, u.id)
    if f is None:
        return False
    regs = _in_play(state, members(state, f))
    if not regs:
        return False
    b = game.board(state)
    hexes = {r.hex for r in regs if r.hex is not None}
    if not _clean_stacks(state, f, hexes):
        return False
    outsiders = {
        x.hex for x in state.on_map() if x.hex is not None and division_of(state, x.id) != f
    }
    for a in hexes:
        for c in hexes:
            d = b.grid.distance(a, c)
            if d > 2:
                return False
            if d == 2:
                between = set(b.grid.neighbours(a)) & set(b.grid.neighbours(c))
                if between & outsiders:
                    return False  # A31: enemy units or friends outside the division
    return True
