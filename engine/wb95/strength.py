"""Combat strength of units (1.2, 1.7, 5.6.4, 10.2.2, R5) and HQ range (9.2.2).

A unit's SPs are its printed value; a unit that has lost CELs fights with its reduced
(reverse) value, which a countersheet without reverse values gives as the printed SPs in
proportion to the CELs left, rounded up (docs/rulings.md K15). Each halving cause is then
applied in turn, rounding up (R5): disorganized (5.6.4), out of supply (10.2.2: attack
only, and not when the unit paid a level for full strength, 10.2.3).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.state import GameState, UnitState
from engine.wb95.crt import halve

# 9.2.2: HQ range by the HQ's nation; every other nation 3.
HQ_RANGE = {"german": 4, "ss": 4, "american": 4, "british": 4}
DEFAULT_HQ_RANGE = 3

TOWED_TYPES = frozenset({"art", "at", "aa"})


@dataclass(frozen=True)
class Strength:
    sp: int
    why: str  # "6, reduced 3, disorganized 2"


def is_towed(state: GameState, u: UnitState) -> bool:
    """Towed units (5.1.10, 5.4.9): towed artillery, AT and AA guns that are not
    mechanized."""
    spec = state.setup.units[u.id]
    return spec.type in TOWED_TYPES and spec.move != "mechanized"


def printed_sp(state: GameState, u: UnitState, attacking: bool) -> int:
    spec = state.setup.units[u.id]
    if spec.art is not None:
        return spec.art[0] if attacking else spec.art[1]
    return spec.sp


def strength(state: GameState, u: UnitState, attacking: bool) -> Strength:
    base = printed_sp(state, u, attacking)
    sp = base
    parts = [str(base)]
    if u.cel < u.max_cel and u.max_cel > 1:
        sp = -(-sp * u.cel // u.max_cel)  # K15: in proportion to CELs left, rounded up
        parts.append(f"reduced {sp}")
    if u.disorganized:
        sp = halve(sp)
        parts.append(f"disorganized {sp} (5.6.4)")
    if u.oos >= 1 and attacking:  # 10.2.2: full strength in defence
        if u.full_attack:
            parts.append("out of supply, full strength for an OoS level (10.2.3)")
        else:
            sp = halve(sp)
            parts.append(f"out of supply {sp} (10.2.2)")
    return Strength(sp, ", ".join(parts))


def hq_range(state: GameState, hq: UnitState) -> int:
    return HQ_RANGE.get(state.setup.units[hq.id].nation, DEFAULT_HQ_RANGE)


def within_hq_range(state: GameState, side: str, units: list[UnitState]) -> bool:
    """9.2.1: every unit of `side` in the combat is within range of a friendly HQ on the
    map (R18: hex distance); any of the side's HQs may cover any unit (K16)."""
    grid = state.setup.map.grid
    hqs = [h for h in state.on_map(side) if state.setup.units[h.id].is_hq and h.hex is not None]
    if not hqs or not units:
        return False
    for u in units:
        assert u.hex is not None
        if not any(grid.distance(u.hex, h.hex) <= hq_range(state, h) for h in hqs if h.hex):
            return False
    return True
