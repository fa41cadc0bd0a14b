"""What a side could do now (`candidate_orders`, for the fuzzer and the opponent) and
what the deadline policy gives for an absent side (`next_default`): an input the referee
accepts that moves the game on -- an answer, a reinforcement that must enter, `done`."""

from __future__ import annotations

from itertools import combinations_with_replacement

from engine import orders as o
from engine.ags import (
    air,
    combat,
    command,
    deploy,
    game,
    moves,
    overstack,
    reinforcements,
    results,
    sequence,
)
from engine.ags.orders import awaited, done_refusal
from engine.core import Rejected
from engine.state import Decision, GameState


def decision_defaults(state: GameState, d: Decision) -> list[o.Order]:
    """The default answers of a decision, best first: retreat where every unit can (a
    step is dearer than ground), else the steps; no advance."""
    if d.kind == air.DEFENDER_AIR:
        return air.defaults(state, d)
    if d.kind == deploy.KIND:
        return [deploy.default(state)]  # AGS-K 18.2, K170: the shipped set-up
    if d.kind == "advance":
        return [o.Pass()]
    if d.kind == overstack.KIND:
        return [o.Losses(units=overstack.default_answer(state, d))]  # A41
    opts = d.options
    units = [u for u in opts["units"] if state.units[u].on_map]
    left = [u for u in units if u not in opts.get("retreated", [])]
    paths = opts.get("paths", {})
    if opts.get("mode") == "retreat":
        uid = left[0]
        fresh = _paths_now(state, uid, opts)
        return [o.Retreat(unit=uid, path=tuple(fresh[0]) if fresh else ())]
    out: list[o.Order] = []
    if opts["retreat"] and units and all(paths.get(u) for u in units):
        out.append(o.Retreat(unit=units[0], path=tuple(paths[units[0]][0])))
    out.append(o.Losses(units=_spread(state, units, int(opts["steps"]))))
    return out


def _paths_now(state: GameState, uid: str, opts: dict[str, object]) -> list[tuple[str, ...]]:
    from engine.ags import retreat

    c = results.combat(state)
    assert c is not None
    barred = results.forbidden(state, str(opts["role"]))  # 9.77
    return retreat.legal_paths(
        state, state.units[uid], int(str(opts["steps"])), c["origin"][uid], barred
    )


def _spread(state: GameState, units: list[str], n: int) -> tuple[str, ...]:
    """n steps, one unit after another (a listing is a step, A27)."""
    out: list[str] = []
    left = {u: state.units[u].cel for u in units}
    while len(out) < n and any(left.values()):
        for u in units:
            if left[u] and len(out) < n:
                out.append(u)
                left[u] -= 1
    return tuple(out)


def next_default(state: GameState, side: str) -> o.Order | None:
    if side not in awaited(state):
        return None
    for d in state.pending:
        if d.side == side:
            return decision_defaults(state, d)[0]
    for u in reinforcements.due(state, side):
        hexes = reinforcements.entry_hexes(state, u)
        if hexes:
            return o.Enter(units=(u.id,), where=hexes[0])
    return o.Done() if done_refusal(state, side) is None else None


def candidate_orders(
    state: GameState, side: str, limit: int = 200, with_moves: bool = True
) -> list[o.Order]:
    if side not in awaited(state):
        return []
    out: list[o.Order] = []
    for d in state.pending:
        if d.side == side:
            out += _answers(state, d)
    if out:
        return out[:limit]
    if side == "soviet":
        out += command.candidates(state)  # AGS-K 23.11, 24.22
    if side == "german" and game.ext(state, "isolated", []) and air.air_phase(state):
        out += _air_drops(state)  # AGS-K 25.2
    for u in reinforcements.due(state, side):
        out += [o.Enter(units=(u.id,), where=h) for h in reinforcements.entry_hexes(state, u)[:3]]
    p = sequence.current(state)
    if p.kind == "movement" and with_moves:
        for u in state.on_map(side):
            reach = moves.legal_moves(state, u.id)
            out += [o.Move(units=(u.id,), path=(h,)) for h in sorted(reach)[:4]]
    if p.kind == "combat":
        out += attacks(state, side)
    return [*out[: max(0, limit - 1)], o.Done()]


def _air_drops(state: GameState) -> list[o.Order]:
    """A few Air markers on towns near the units found isolated at the phase start."""
    if air.points(state, "german") < 1:
        return []
    b = game.board(state)
    near = [state.units[u].hex for u in game.ext(state, "isolated", []) if state.units[u].hex]
    towns = sorted(
        h
        for h in b.hexes()
        if b.terrain_at(h) in air.TOWNS and any(b.grid.distance(h, x) <= 3 for x in near if x)
    )
    return [o.Air(mission="supply", hex=h, amount=1) for h in towns[:2]]


def attacks(state: GameState, side: str) -> list[o.Attack]:
    """Each enemy hex not yet attacked, by every unit next to it that may attack it."""
    b = game.board(state)
    out: list[o.Attack] = []
    foes = sorted(game.hexes_of(state, game.enemy(side)) - set(game.ext(state, "defended", [])))
    for h in foes:
        ready = []
        for u in state.on_map(side):
            if u.hex is None or not b.grid.adjacent(u.hex, h):
                continue
            try:
                combat.check_attack(state, side, (u.id,), (h,), 0)
            except Rejected:
                continue
            ready.append(u.id)
        if ready:
            out.append(o.Attack(units=tuple(ready), target=h))
    return out


def _answers(state: GameState, d: Decision) -> list[o.Order]:
    if d.kind == deploy.KIND:
        return deploy.candidates(state)  # AGS-K 18.2, K170
    if d.kind == overstack.KIND:
        return [o.Losses(units=overstack.default_answer(state, d))]  # A41
    if d.kind == air.DEFENDER_AIR:
        return air.defaults(state, d)
    if d.kind == "advance":
        out: list[o.Order] = [o.Pass()]
        for h in sorted(d.options["hexes"]):
            for uid in d.options["units"]:
                out.append(o.Pursue(unit=uid, path=(h,)))
        return out
    opts = d.options
    units = [u for u in opts["units"] if state.units[u].on_map]
    out = []
    if opts.get("mode") != "retreat":
        n = min(int(opts["steps"]), sum(state.units[u].cel for u in units))
        for combo in list(combinations_with_replacement(units, n))[:20]:
            if all(combo.count(u) <= state.units[u].cel for u in units):
                out.append(o.Losses(units=combo))
    if opts["retreat"]:
        left = [u for u in units if u not in opts.get("retreated", [])]
        for uid in left:
            paths = _paths_now(state, uid, opts)
            out += [o.Retreat(unit=uid, path=tuple(p)) for p in paths[:6]]
            if not paths:
                out.append(o.Retreat(unit=uid, path=()))
    return out
