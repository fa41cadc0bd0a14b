"""3.2 Stacking: at the end of every phase no hex may hold more than 8 CELs (3.2.1);
each HQ counts as 1 CEL (3.2.2)."""

from __future__ import annotations

from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95 import flow, movement
from engine.wb95.dispatch import after_input

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


@after_input
def _refuse_stranding(ctx: Ctx) -> None:
    """An input whose moves or entries leave a hex over-stacked for good is refused at
    once, instead of leaving a `done` that can never be accepted (K94). Checked once the
    whole input is through, so a stack entering together counts as one."""
    state = ctx.state
    if state.combat is not None or flow.current_phase(state).kind not in ("movement", "strategic"):
        return
    ended = sorted({e.data["unit"] for e in ctx.events if e.kind in MOVES})
    for uid in ended:
        u = state.units[uid]
        if u.on_map and u.hex is not None and stranded(state, u.hex, u.side):
            cels = stack_cels(state, u.side)[u.hex]
            raise Rejected(
                f"{uid} would leave {u.hex} over-stacked ({cels} CELs) with no unit there "
                "able to move on, so the phase could not end",
                "3.2.1",
                "K94",
            )


MOVES = ("moved", "reinforcement_entered")
