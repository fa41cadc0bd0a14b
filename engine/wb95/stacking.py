"""3.2 Stacking: at the end of every phase no hex may hold more than 8 CELs (3.2.1);
each HQ counts as 1 CEL (3.2.2)."""

from __future__ import annotations

from engine.hexgrid import HexId
from engine.state import GameState

STACK_LIMIT = 8  # 3.2.1


def stack_cels(state: GameState, side: str | None = None) -> dict[HexId, int]:
    """CELs per occupied hex, counted for stacking."""
    out: dict[HexId, int] = {}
    for u in state.on_map(side):
        assert u.hex is not None
        weight = 1 if state.setup.units[u.id].is_hq else u.cel  # 3.2.2
        out[u.hex] = out.get(u.hex, 0) + weight
    return out


def overstacked(state: GameState, side: str | None = None) -> dict[HexId, int]:
    """Hexes over the limit, with their CELs."""
    return {h: c for h, c in stack_cels(state, side).items() if c > STACK_LIMIT}
