"""Reinforcements (AGS 15.0; AGS-K 26.0-26.2; A8): on their Game-Turn, in the owner's
Initial Movement Phase, on any hex of their entry area not occupied by the enemy, paying
that hex's cost to enter (A8: 26.0's one MP is the clear-terrain case). They must enter
(26.0) and are in supply for that player-turn (15.0)."""

from __future__ import annotations

from engine.ags import game, sequence, stacking
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState


def due(state: GameState, side: str) -> list[UnitState]:
    """`side`'s reinforcements that must enter now (AGS-K 26.0)."""
    p = sequence.current(state)
    if p.side != side or p.kind != "movement" or p.mech:
        return []
    return [
        u
        for u in state.units.values()
        if u.side == side and u.arrives is not None and int(u.arrives["turn"]) <= state.turn
    ]


def entry_hexes(state: GameState, u: UnitState) -> list[HexId]:
    """The hexes of its area it may be placed in now (26.0, 7.0)."""
    assert u.arrives is not None
    sc = game.scenario(state)
    foes = game.hexes_of(state, game.enemy(u.side))
    out = []
    for h in sc.entry_areas[str(u.arrives["area"])]:
        if h in foes or sc.board.blocked(h):
            continue
        here = [game.spec(state, x.id) for x in state.units_at(h)]
        if stacking.stack_problem([*here, game.spec(state, u.id)]) is None:
            out.append(h)
    return out


def enter(ctx: Ctx, side: str, uid: str, h: HexId, stack: tuple[str, ...] = ()) -> None:
    state = ctx.state
    u = state.units.get(uid)
    if u is None or u.side != side or u.arrives is None:
        raise Rejected(f"{uid} is not one of your reinforcements", "AGS-K 26.0")
    if u not in due(state, side):
        raise Rejected(
            f"{uid} enters on turn {u.arrives['turn']}, in your Initial Movement Phase",
            "AGS 15.0, AGS-K 26.1, 26.2",
        )
    area = str(u.arrives["area"])
    if h not in game.scenario(state).entry_areas[area]:
        raise Rejected(f"{h} is not in entry area {area}", "AGS-K 26.0")
    if h not in entry_hexes(state, u):
        raise Rejected(
            f"{h} is occupied by the enemy or its stack would be over the limit",
            "AGS-K 26.0, AGS 7.0",
        )
    sc = game.scenario(state)
    row = sc.tec.row(sc.board.terrain_at(h))
    cls = game.spec(state, uid).move_class
    cost = row.cost("inf" if cls == "hq" else cls) or 1
    stops = h in game.enemy_zoc(state, side)
    ctx.emit(
        "entered",
        side=side,
        unit=uid,
        hex=h,
        cost=str(cost),
        stops=stops,
        area=area,
        stack=list(dict.fromkeys(stack or (uid,))),  # AGS 5.1, K177
    )
