"""Overruns (AGS 6.0-6.25; AGS-K 19.4, 19.51, 23.13, 23.14, 24.21; AGS 14.15; A4, A35).

`attack UNIT... -> HEX` in one's own Movement or Mechanized Movement Phase is an overrun
(6.11): the units began the phase stacked together and have not moved apart (6.13), were
in supply as the phase began (6.12), attack one adjacent hex (6.14), not across a major
river (10.13), from a hex with no other friendly unit but an HQ (6.17), each with three
Movement Points left (6.16); Soviet overrunners are mechanized (19.4) under an active HQ
(23.13, 23.14, A4), charged to it as an offensive operation (23.2, 23.21, A4, A40: `attack
... support HQ` names it, adding no leadership); a German unit still limited by 21.1x may
not overrun a hex it may not end its move in (K174); no air points (14.15). The attack
strength is halved (supported corps and panzer integrity first doubled, 24.21, 19.51); the
defender defends normally (6.21; no 19.56 shift, A35). The CRT result is applied as in
combat (`results`, with the `overrun` flag): defenders who lose a step or retreat are
disrupted (6.31); success -- the hex emptied, no loss or retreat for the overrunners --
moves them into it at no cost and they move on (6.24); otherwise they stop (6.22, 6.23).
No advance after an overrun (9.86, 6.25), and 9.76 does not apply."""

from __future__ import annotations

from typing import Any

from engine import orders as o
from engine.ags import combat, command, game, limits, moves, results, sequence
from engine.ags import crt as table
from engine.ags import integrity as panzer
from engine.core import Ctx, Rejected
from engine.state import GameState, UnitState

COST = 3  # AGS 6.16


def check(
    state: GameState, side: str, order: o.Attack
) -> tuple[list[UnitState], list[UnitState], str | None]:
    """The overrunners, the defenders and (Soviet) the HQ the overrun is charged to."""
    p = sequence.current(state)
    if p.kind != "movement" or p.side != side:
        raise Rejected("overruns are made in your movement phases", "AGS 6.11")
    if order.also:
        raise Rejected("an overrun is against one hex", "AGS 6.14")
    if order.air:
        raise Rejected("air points are not used in overruns", "AGS 14.15")
    if side == "german" and order.support:
        raise Rejected("German overruns name no HQ", "AGS 11.0")
    target = order.target
    defenders = state.units_at(target)
    if not defenders or defenders[0].side == side:
        raise Rejected(f"there is no enemy unit in {target}", "AGS 6.0")
    attackers: list[UnitState] = []
    for uid in dict.fromkeys(order.units):
        u = state.units.get(uid)
        if u is None or not u.on_map or u.side != side:
            raise Rejected(f"{uid} is not one of your units on the map", "AGS 6.0")
        sp = game.spec(state, uid)
        if sp.is_hq or game.step(state, u).attack <= 0:
            raise Rejected(f"{uid} has no attack strength", "AGS 6.0, AGS-K 19.4")
        if side == "soviet" and not sp.mechanized:
            raise Rejected(
                f"{uid}: the Soviet player overruns only with tank, cavalry and motorized units",
                "AGS-K 19.4",
            )
        if uid in game.ext(state, "disrupted", []):
            raise Rejected(f"{uid} is disrupted", "AGS 6.32")
        if u.mp_spent > 0 and uid not in game.ext(state, "last_moved", [uid]):
            raise Rejected(
                f"{uid}'s move ended when other units were moved; an overrun is part of a move",
                "AGS 5.1, 6.0",
                "K177",
            )
        if uid in game.ext(state, "overrun_stopped", []):
            raise Rejected(
                f"{uid} may move no further this phase: its overrun failed or cost it a loss "
                "or retreat",
                "AGS 6.22, 6.23",
            )
        if uid in game.ext(state, "out_of_supply", []):
            raise Rejected(f"{uid} was out of supply as the phase began", "AGS 6.12, 12.21")
        if p.mech and sp.move_class == "inf":
            raise Rejected(f"{uid} does not move in the Mechanized Movement Phase", "AGS 4.2")
        # 5.23, 5.24: a unit in an enemy ZoC (stopped there or begun there) may overrun
        left = moves.allowance(state, u) - u.mp_spent
        if left < COST:
            raise Rejected(f"{uid} has {left} MP left; an overrun costs {COST}", "AGS 6.16")
        attackers.append(u)
    if not attackers:
        raise Rejected("an overrun needs at least one unit", "AGS 6.0")
    first = attackers[0]
    start = game.ext(state, "start_hex", {})
    for a in attackers:
        if (
            a.hex != first.hex
            or start.get(a.id) != start.get(first.id)
            or a.mp_spent != first.mp_spent
        ):
            raise Rejected(
                "overrunning units must have begun the phase stacked together and moved "
                "together since",
                "AGS 6.13",
            )
    assert first.hex is not None
    b = game.board(state)
    if not b.grid.adjacent(first.hex, target):
        raise Rejected(f"{target} is not adjacent to {first.hex}", "AGS 6.0")
    if b.feature(first.hex, target) == "major-river":
        raise Rejected("no overrun across a major river hexside", "AGS 10.13")
    for a in attackers:  # 21.15: the 6.24 move into the hex is movement (9.86), so limited
        limit = limits.problem(state, a.id, target)
        if limit is not None:
            why = f"{limit[0]}; a successful overrun ends there (AGS 6.24)"
            raise Rejected(why, limit[1], "K174")
    ids = {a.id for a in attackers}
    others = [
        x.id
        for x in state.units_at(first.hex)
        if x.id not in ids and not game.spec(state, x.id).is_hq
    ]
    if others:
        raise Rejected(
            f"{', '.join(others)} in {first.hex} would not take part: an overrun is made "
            "from a hex holding only the overrunning units (and an HQ)",
            "AGS 6.17",
        )
    hq = None
    if side == "soviet":
        for a in attackers:
            if not game.commanding_hqs(state, a, active_only=True):
                raise Rejected(
                    f"{a.id} has no line of communications to an active HQ",
                    "AGS-K 23.13, 23.14, A4",
                )
        # A4, A40: an offensive operation of the HQ named (`support HQ`, no leadership
        # added, 11.37 is for attacks) or the referee's pick (K161); 23.2's count applies
        hq = command.charged_hq(state, attackers, order.support)
    return attackers, defenders, hq


def overrun(ctx: Ctx, side: str, order: o.Attack) -> None:
    state = ctx.state
    attackers, defenders, hq = check(state, side, order)
    hq_here = [
        x for x in state.units_at(attackers[0].hex or "") if game.spec(state, x.id).is_hq
    ]  # 6.17: an HQ in the hex shares adverse results
    ctx.emit(
        "overrun_declared",
        side=side,
        attackers=[a.id for a in attackers],
        hex=order.target,
        defenders=[d.id for d in defenders],
        cost=COST,
        hq=hq,  # AGS-K 23.2, A4: counted as an offensive operation of this HQ
    )
    state = ctx.state
    lines: list[dict[str, Any]] = []
    doubled = panzer.attack_doubled(state, attackers)  # 19.51
    raw = 0
    for a in attackers:
        s, why = combat.unit_attack(state, a, True, a.id in doubled)
        raw += s
        lines.append({"unit": a.id, "role": "attacker", "strength": s, "why": why})
    total_a = max(1, raw // 2)
    total_d = 0
    combat_units = [d for d in defenders if not game.spec(state, d.id).is_hq]
    for d in defenders:
        s, why = combat.unit_defence(
            state, d, attackers, game.in_supply(state, d), not combat_units
        )
        total_d += s
        lines.append({"unit": d.id, "role": "defender", "strength": s, "why": why})
    total_d = max(1, total_d)
    crt = game.scenario(state).crt
    column = table.odds_column(crt, total_a, total_d, 0)
    die = ctx.roll(1, "overrun", rule="AGS 6.0")[0]
    cell = crt.cell(column, die)
    ctx.emit(
        "combat_resolved",
        side=side,
        attack=total_a,
        defence=total_d,
        ratio=table.column_label(total_a, total_d),
        shift=0,
        column=column,
        die=die,
        result=str(cell),
        lines=lines,
        notes=[f"overrun: attack {raw} halved to {total_a} (AGS 6.0)"],
        crt=crt.provenance,
        reconstructed=[],
        overrun=True,
    )
    results.begin(ctx, side, [*attackers, *hq_here], defenders, [order.target], cell, overrun=True)
