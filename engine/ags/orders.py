"""An AGS input turned into events (docs/ags.md, "Order words"): `move`, `enter`,
`attack`, the answers `losses`, `retreat`, `pursue` and `pass`, and `done`. Every refusal
names its case (AGS 9.67, AGS-K 19.56) and, where one applies, the ruling (A12, K140)."""

from __future__ import annotations

from fractions import Fraction

from engine import orders as o
from engine.ags import (
    air,
    combat,
    command,
    deploy,
    game,
    limits,
    movement,
    moves,
    overrun,
    overstack,
    reinforcements,
    results,
    sequence,
)
from engine.core import Applied, Ctx, Rejected, Rejection
from engine.hexgrid import HexId
from engine.state import Decision, GameState

ANSWERS = (o.Losses, o.Retreat, o.Pursue, o.Pass, o.Air)


def awaited(state: GameState) -> list[str]:
    if state.over:
        return []
    if state.pending:
        return list(dict.fromkeys(d.side for d in state.pending))
    side = sequence.current(state).side
    return [] if side in state.done else [side]


def done_refusal(state: GameState, side: str) -> Rejection | None:
    if state.over:
        return Rejection("the game is over")
    if deploy.decision(state) is not None:  # AGS-K 18.2, K170
        if side != deploy.SIDE:
            return Rejection("the German player sets up first", "AGS-K 18.2", "K170")
        gaps = deploy.gaps(state)
        if gaps:
            letter, h = gaps[0]
            return Rejection(
                f"{h} borders area {letter}'s start line with no unit of {letter} in it or "
                "next to it",
                "AGS-K 18.24",
                "K170",
            )
        return None
    if any(d.side == side for d in state.pending):
        return Rejection(
            "answer the open decision first (`losses`, `retreat`, `pursue` or `pass`)", "AGS 9.6"
        )
    if side not in awaited(state):
        return Rejection(
            f"it is not your phase: the game waits for {', '.join(awaited(state)) or 'nobody'}",
            "AGS 4.1",
        )
    owed = [u.id for u in reinforcements.due(state, side) if reinforcements.entry_hexes(state, u)]
    if owed:
        return Rejection(
            f"your reinforcements must enter this turn first: {', '.join(owed)} (`enter UNIT HEX`)",
            "AGS-K 26.0",
        )
    return None


def apply(state: GameState, side: str | None, order: o.Order) -> Applied | Rejection:
    from engine.ags.reducer import reduce

    try:
        return _apply(Ctx(state, reduce), side or order.side, order)
    except Rejected as r:
        return r.rejection


def _apply(ctx: Ctx, side: str | None, order: o.Order) -> Applied:
    state = ctx.state
    waiting = awaited(state)
    if state.over:
        raise Rejected("the game is over", "AGS-K 19.12")
    if side is None:
        if len(waiting) != 1:
            raise Rejected("say which side gives the order")
        side = waiting[0]
    if side not in ("soviet", "german"):
        raise Rejected(f"there is no side {side!r} in this game (soviet, german)")
    if deploy.decision(state) is not None:  # AGS-K 18.2, K170: before Game-Turn 1
        if side != deploy.SIDE:
            raise Rejected("the German player sets up first", "AGS-K 18.2", "K170")
        deploy.apply(ctx, side, order)
        return ctx.done()
    deciding = [d for d in state.pending if d.side == side]
    if state.pending and not deciding:
        raise Rejected(
            f"the game waits for the {waiting[0].capitalize()} player's decision", "AGS 9.68"
        )
    if deciding and not isinstance(order, ANSWERS):
        kinds = ", ".join(d.kind for d in deciding)
        raise Rejected(
            f"answer the open decision first ({kinds}): `losses`, `retreat`, `pursue` or `pass`",
            "AGS 9.6",
        )
    if not deciding and side not in waiting:
        raise Rejected(f"it is not your phase: {sequence.title(state)}", "AGS 4.1, 5.21")
    mine = _own_decision(deciding, order)
    if mine is not None:
        air.answer(ctx, side, mine, order)
    elif isinstance(order, o.Air) and order.mission in air.SUPPLY_MISSIONS:
        air.air_supply(ctx, order)  # AGS-K 25.2
    elif isinstance(order, o.Air):
        raise Rejected(
            "air points are given with an attack (`attack ... air 1`), or by the defender "
            "when asked (`air 1 support-defence HEX`)",
            "AGS 14.11, 14.12",
        )
    elif isinstance(order, o.Activate):
        command.activate(ctx, order.units)
    elif isinstance(order, o.Unsupport):
        command.unsupport(ctx, order.units)
    elif isinstance(order, o.Losses) and overstack.pending(state, side):
        overstack.answer(ctx, side, order.units)  # A41
    elif isinstance(order, o.Losses):
        results.answer_losses(ctx, side, order.units)
    elif isinstance(order, o.Retreat):
        results.answer_retreat(ctx, side, order.unit, order.path)
    elif isinstance(order, o.Pursue):
        results.answer_advance(ctx, side, order.units, order.path)
    elif isinstance(order, o.Pass):
        results.decline(ctx, side)
    elif isinstance(order, o.Move):
        for uid in order.units:
            _move(ctx, side, uid, order.path, order.units)
    elif isinstance(order, o.Enter):
        for uid in order.units:
            reinforcements.enter(ctx, side, uid, order.where, order.units)
            if order.path:
                _move(ctx, side, uid, order.path, order.units)
    elif isinstance(order, o.Attack) and sequence.current(state).kind == "movement":
        overrun.overrun(ctx, side, order)  # AGS 6.0: an attack in a movement phase
    elif isinstance(order, o.Attack):
        if sequence.current(state).kind != "combat":
            raise Rejected("attacks are made in your Combat Phase", "AGS 9.11, 5.26")
        if any(a != "1" for a in order.air) or len(order.air) > 1:
            raise Rejected("`air 1`: at most one air point per side in a combat", "AGS 14.13")
        combat.attack(
            ctx, side, order.units, (order.target, *order.also), len(order.air), order.support
        )
    elif isinstance(order, o.Done):
        why = done_refusal(state, side)
        if why is not None:
            raise Rejected(why.message, why.rule, why.ruling)
        if not overstack.open_decision(ctx, side):  # A41: the owner's choice first
            ctx.emit("side_done", side=side)
            sequence.end_phase(ctx)
    else:
        raise Rejected(
            f"`{order.verb}` is not an order of Army Group South; use move, enter, attack, "
            "losses, retreat, pursue, pass or done (docs/ags.md)"
        )
    air.soviet_entered_marked_towns(ctx)  # AGS-K 25.24, K175
    return ctx.done()


def _own_decision(deciding: list[Decision], order: o.Order) -> Decision | None:
    """The defender's open air decision this order answers (`engine.ags.air`)."""
    for d in deciding:
        if d.kind == air.DEFENDER_AIR and isinstance(order, ANSWERS):
            return d  # its own refusal names the answers it wants
    return None


def _move(
    ctx: Ctx, side: str, uid: str, path: tuple[HexId, ...], stack: tuple[str, ...] = ()
) -> None:
    """One unit of the input's stack (`stack`: the units the input moves together, whose
    moves go on until another input moves other units, AGS 5.1, K177)."""
    state = ctx.state
    u = state.units.get(uid)
    if u is None or u.side != side:
        raise Rejected(f"{uid} is not one of your units", "AGS 5.21")
    if not u.on_map:
        raise Rejected(f"{uid} is not on the map", "AGS 5.1")
    why = moves.why_immobile(state, u)
    if why is not None:
        raise Rejected(f"{uid} may not move: {why[0]}", why[1])
    if not path:
        raise Rejected("a move needs at least one hex", "AGS 5.1")
    reach = moves.legal_moves(state, uid)
    dest = path[-1]
    if dest not in reach:
        raise Rejected(_why_not(state, uid, dest), "AGS 5.11, 5.22, 5.23, 10.4", "A1, A9, A22")
    walk = reach[dest].path
    cost = reach[dest].cost
    if len(path) > 1 and tuple(path) != walk:
        walk, cost = _own_path(state, uid, tuple(path))
    limit = limits.problem(state, uid, dest)
    if limit is not None:
        raise Rejected(*limit)
    how = moves.leaving(state, u)  # AGS-K 22.1, 22.2 (K150)
    stops = dest in game.enemy_zoc(state, side)
    ctx.emit(
        "moved",
        side=side,
        unit=uid,
        path=list(walk),
        cost=str(cost),
        stops=stops,
        how=how,
        stack=list(dict.fromkeys(stack or (uid,))),
    )
    overstack.check_move(ctx.state, side, dest)  # A41, K151


def _own_path(
    state: GameState, uid: str, path: tuple[HexId, ...]
) -> tuple[tuple[HexId, ...], Fraction]:
    """A path the player wrote out: each hex reachable on the way and none of them a stop."""
    u = state.units[uid]
    sc = game.scenario(state)
    cls = game.spec(state, uid).move_class
    reach = moves.legal_moves(state, uid)
    prev = u.hex
    assert prev is not None
    cost = Fraction(moves.first_step_extra(state, u))  # AGS-K 22.13, 22.23
    for i, h in enumerate(path):
        step = movement.step_cost(sc.board, sc.tec, cls, prev, h)
        if step is None or h not in reach or (reach[h].stops and i < len(path) - 1):
            raise Rejected(
                f"{uid} may not go by {' '.join(path)}: {h} cannot be entered on the way",
                "AGS 5.23, 5.22, AGS-K 19.25",
            )
        cost += step
        prev = h
    left = moves.allowance(state, u) - u.mp_spent
    if cost > left and not (len(path) == 1 and u.mp_spent == 0 and not moves.leaving(state, u)):
        raise Rejected(f"{uid} has {left} MP left; that path costs {cost}", "AGS 5.11")
    return path, cost


def _why_not(state: GameState, uid: str, dest: HexId) -> str:
    u = state.units[uid]
    if dest in game.hexes_of(state, game.enemy(u.side)):
        return f"{uid} may not enter {dest}: an enemy unit is there"
    if game.board(state).grid.contains(dest) and game.board(state).blocked(dest):
        return f"{dest} is a Dniepr river hex: nothing enters it (AGS-K 19.25)"
    left = moves.allowance(state, u) - u.mp_spent
    return (
        f"{uid} cannot reach {dest} this phase ({left} MP left, stopping on entering "
        "an enemy zone of control)"
    )
