"""Movement point costs (AGS 5.1, 10.2, 10.3; AGS-K 19.2, 20.12; A1, A8, A9, A20, A21).

Entering a hex costs its terrain (woods, swamp, rough dearer for `mech`), plus +1 for a
minor and +2 for a major river hexside (A1). A mechanized unit or HQ moving along a road
pays 1/2 and no river cost where the road crosses (AGS 10.23, AGS-K 19.22, A20); roads do
nothing for infantry. The Dniepr's hexes are impassable (AGS-K 19.25)."""

from __future__ import annotations

from fractions import Fraction

from engine.ags.board import Board
from engine.ags.tec import MoveClass, Tec
from engine.hexgrid import HexId


def step_cost(board: Board, tec: Tec, cls: MoveClass, a: HexId, b: HexId) -> Fraction | None:
    """MPs to move from a into the adjacent hex b (None: prohibited)."""
    if board.blocked(b) or board.blocked(a):
        return None
    if board.road(a, b):
        road = tec.roads["road"].cost(cls)
        if road is not None:
            return road  # A20: along the road, no river cost
    terrain_cls: MoveClass = "inf" if cls == "hq" else cls  # A9
    cost = tec.row(board.terrain_at(b)).cost(terrain_cls)
    if cost is None:
        return None
    feature = board.feature(a, b)
    if feature is not None:
        cost += tec.hexsides[feature].cost
    return cost


def allowance(printed: int, cls: MoveClass, *, mud: bool, in_supply: bool) -> int:
    """AGS-K 20.12: in mud, mechanized units and HQs have 4; then out of supply at the
    start of the phase halves it, fractions dropped (AGS 5.25, A21)."""
    ma = 4 if mud and cls in ("mech", "hq") else printed
    return ma if in_supply else ma // 2
