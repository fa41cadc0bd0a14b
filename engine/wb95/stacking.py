"""3.2 Stacking: at the end of every phase no hex may hold more than 8 CELs (3.2.1);
each HQ counts as 1 CEL (3.2.2)."""

from __future__ import annotations

from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95 import flow, movement

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


def stranded(state: GameState, h: HexId, side: str) -> bool:
    """Whether `side`'s stack in `h` is over the limit and none of its units can still
    move away, so the phase could never end (3.2.1, K94)."""
    if stack_cels(state, side).get(h, 0) <= STACK_LIMIT:
        return False
    return not any(
        movement.can_move(state, u) is None
        and any(dest != h for dest in movement.reachable(state, u))
        for u in state.units_at(h)
        if u.side == side
    )


def _refuse_stranding(ctx: Ctx, unit_id: str, path: list[HexId]) -> None:
    """A move or entry that would over-stack a hex for good is refused at once, instead
    of leaving a `done` that can never be accepted (K94)."""
    state = ctx.state
    if state.combat is not None or flow.current_phase(state).kind not in ("movement", "strategic"):
        return
    u = state.units[unit_id]
    if u.hex is not None and stranded(state, u.hex, u.side):
        cels = stack_cels(state, u.side)[u.hex]
        raise Rejected(
            f"{unit_id} would leave {u.hex} over-stacked ({cels} CELs) with no unit there "
            "able to move on, so the phase could not end",
            "3.2.1",
            "K94",
        )


movement.AFTER_MOVE.append(_refuse_stranding)
