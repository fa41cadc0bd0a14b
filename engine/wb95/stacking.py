"""3.2 Stacking: at the end of every phase no hex may hold more than 8 CELs (3.2.1);
each HQ counts as 1 CEL (3.2.2).

Over-stacking is legal while a Movement Phase lasts (K14), but `done` waits until every
hex is back within the limit. So that a side can always end its phase, an input that
leaves the side's over-stacked hexes with no way back under the limit is refused (K94,
made exact by K97): `unclearable` searches for moves of the units still able to move
that bring every over-stacked hex within 8 CELs without over-stacking another.
"""

from __future__ import annotations

from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95 import flow, movement
from engine.wb95.dispatch import after_input

STACK_LIMIT = 8  # 3.2.1
SEARCH_BUDGET = 20_000  # steps of the clearing search; real positions need a handful


def weight(state: GameState, u: UnitState) -> int:
    """What the unit counts for stacking: its CELs, an HQ 1 (3.2.2)."""
    return 1 if state.setup.units[u.id].is_hq else u.cel


def stack_cels(state: GameState, side: str | None = None) -> dict[HexId, int]:
    """CELs per occupied hex, counted for stacking."""
    out: dict[HexId, int] = {}
    for u in state.on_map(side):
        assert u.hex is not None
        out[u.hex] = out.get(u.hex, 0) + weight(state, u)
    return out


def overstacked(state: GameState, side: str | None = None) -> dict[HexId, int]:
    """Hexes over the limit, with their CELs."""
    return {h: c for h, c in stack_cels(state, side).items() if c > STACK_LIMIT}


def unclearable(state: GameState, side: str) -> dict[HexId, int]:
    """The side's over-stacked hexes (with their CELs) when no set of moves of the units
    still able to move brings them all within the limit; empty when it can (or when
    nothing is over-stacked). A unit may leave for any hex it reaches that is not itself
    over-stacked, as long as that hex stays within the limit with everything sent there
    (3.2.1, K97)."""
    over = overstacked(state, side)
    if not over:
        return {}
    cels = stack_cels(state, side)
    movers: list[tuple[HexId, int, list[HexId]]] = []  # (from, weight, destinations)
    for h in sorted(over):
        for u in state.units_at(h):
            if u.side != side or movement.can_move(state, u) is not None:
                continue
            dests = sorted(d for d in movement.reachable(state, u) if d != h and d not in over)
            if dests:
                movers.append((h, weight(state, u), dests))
    movers.sort(key=lambda m: -m[1])  # the heaviest first: fewest moves to clear
    excess = {h: c - STACK_LIMIT for h, c in over.items()}
    room: dict[HexId, int] = {}
    budget = [SEARCH_BUDGET]

    def free(d: HexId) -> int:
        return room.get(d, STACK_LIMIT - cels.get(d, 0))

    def search(i: int) -> bool:
        if all(x <= 0 for x in excess.values()):
            return True
        budget[0] -= 1
        if i == len(movers) or budget[0] <= 0:
            return False
        h, w, dests = movers[i]
        if excess[h] > 0:
            tried: set[int] = set()
            for d in dests:
                r = free(d)
                if r < w or r in tried:  # hexes with the same room are alike here
                    continue
                tried.add(r)
                room[d] = r - w
                excess[h] -= w
                if search(i + 1):
                    return True
                excess[h] += w
                room[d] = r
        return search(i + 1)  # this unit stays

    return {} if search(0) else over


@after_input
def _refuse_stranding(ctx: Ctx) -> None:
    """An input that leaves a side's over-stacked hexes with no way back under the limit
    is refused at once, instead of leaving a `done` that can never be accepted (K94, K97):
    a move or entry into a full hex, a unit that starts building field fortifications in
    one, anything that takes the last way out. Checked once the whole input is through,
    so a stack entering together counts as one. A position that was already stuck (only
    a moderator's edit can make one) does not block the inputs that follow."""
    state = ctx.state
    if state.combat is not None or flow.current_phase(state).kind not in ("movement", "strategic"):
        return
    for side in state.setup.side_names:
        stuck = unclearable(state, side)
        if not stuck or unclearable(ctx.before, side):
            continue
        where = ", ".join(f"{h} ({c} CELs)" for h, c in sorted(stuck.items()))
        raise Rejected(
            f"this would leave {where} over-stacked with no unit able to move away enough "
            f"to bring it back to {STACK_LIMIT} CELs, so {side} could not end the phase",
            "3.2.1",
            "K97",
        )
