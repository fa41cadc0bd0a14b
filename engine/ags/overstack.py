"""Over-stacking at the end of a Movement Phase (AGS 7.0; A41; K151, replacing K141).

A move may end over the stacking limit (7.0 counts stacking only at the end of the phase)
while some unit of that hex can still move on to a hex with room for it; a move that
leaves the hex with none is refused (A41, K151). When the owner says `done` with hexes
still over the limit, the owner chooses which units of each such hex are eliminated
(`losses UNIT...`, each listed unit eliminated whole, no more than the excess; A41: no
victory points are awarded), and then the phase ends."""

from __future__ import annotations

from engine.ags import game, moves, stacking
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import Decision, GameState

KIND = "over_stacked"


def problems(state: GameState, side: str) -> dict[HexId, list[str]]:
    by_hex: dict[HexId, list[str]] = {}
    for u in state.on_map(side):
        if u.hex is not None:
            by_hex.setdefault(u.hex, []).append(u.id)
    return {
        h: sorted(ids)
        for h, ids in sorted(by_hex.items())
        if stacking.stack_problem(game.spec(state, i) for i in ids) is not None
    }


def check_move(state: GameState, side: str, dest: HexId) -> None:
    """After a move into `dest` (the state as it would stand): refuse it if `dest` is
    over-stacked and no unit there can still move to a hex with room (A41, K151)."""
    ids = problems(state, side).get(dest)
    if not ids:
        return
    for uid in ids:
        for h in moves.legal_moves(state, uid):
            here = [game.spec(state, x.id) for x in state.units_at(h) if x.id != uid]
            if stacking.may_enter(here, game.spec(state, uid)):
                return
    why = stacking.stack_problem(game.spec(state, i) for i in ids)
    raise Rejected(
        f"the move would leave {dest} over-stacked ({why}) with no unit there able to move "
        "on to a hex with room",
        "AGS 7.0",
        "A41, K151",
    )


def open_decision(ctx: Ctx, side: str) -> bool:
    """At `done`: ask the owner which units of its over-stacked hexes die (A41)."""
    over = problems(ctx.state, side)
    if not over:
        return False
    ctx.emit(
        "decision_opened",
        side=side,
        decision=KIND,
        options={"hexes": over},
        rule="AGS 7.0, A41",
    )
    return True


def pending(state: GameState, side: str) -> Decision | None:
    return next((d for d in state.pending if d.side == side and d.kind == KIND), None)


def answer(ctx: Ctx, side: str, listed: tuple[str, ...]) -> None:
    from engine.ags import sequence

    state = ctx.state
    d = pending(state, side)
    assert d is not None
    hexes: dict[str, list[str]] = d.options["hexes"]
    where = {uid: h for h, ids in hexes.items() for uid in ids}
    chosen = list(dict.fromkeys(listed))
    for uid in chosen:
        if uid not in where:
            raise Rejected(f"{uid} is not in an over-stacked hex", "AGS 7.0", "A41")
    for h, ids in hexes.items():
        gone = [u for u in chosen if where[u] == h]
        left = [game.spec(state, u) for u in ids if u not in gone]
        if stacking.stack_problem(left) is not None:
            raise Rejected(f"{h} would still be over-stacked: eliminate more of {', '.join(ids)}",
                           "AGS 7.0", "A41")  # fmt: skip
        for u in gone:
            back = [*left, game.spec(state, u)]
            if stacking.stack_problem(back) is None:
                raise Rejected(
                    f"{u} need not be eliminated: only the excess of {h} is removed",
                    "AGS 7.0",
                    "A41",
                )
    ctx.emit("decision_closed", side=side, decision=KIND, answer="losses")
    for uid in chosen:
        dead = ctx.state.units[uid]
        ctx.emit("unit_eliminated", side=side, unit=uid, hex=dead.hex, rule="AGS 7.0, A41")
    ctx.emit("side_done", side=side)
    sequence.end_phase(ctx)


def default_answer(state: GameState, d: Decision) -> tuple[str, ...]:
    """The weakest units first until each hex is within the limit."""
    out: list[str] = []
    for _h, ids in d.options["hexes"].items():
        order = sorted(
            ids,
            key=lambda i: (
                game.step(state, state.units[i]).attack + game.step(state, state.units[i]).defence,
                i,
            ),
        )
        gone: list[str] = []
        for uid in order:
            left = [game.spec(state, u) for u in ids if u not in gone]
            if stacking.stack_problem(left) is None:
                break
            gone.append(uid)
        # drop any that turned out unnecessary (a corps may make smaller ones needless)
        for uid in list(gone):
            trial = [u for u in gone if u != uid]
            if stacking.stack_problem(game.spec(state, u) for u in ids if u not in trial) is None:
                gone = trial
        out += gone
    return tuple(out)
