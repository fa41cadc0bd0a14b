"""Applying a combat's results (AGS 9.6-9.8; A10, A26, A27, A36, A42; K140, K141).

The defender's result is applied first, then the attacker's (9.68). A number is steps
lost or hexes retreated by all the affected units, never a mix (9.66): the owner answers
with `losses UNIT...` (one step per listing, spread freely, A27) or one `retreat UNIT
HEX...` per unit; `E` eliminates them all (9.65); `eng` costs each side one step with no
retreat and no advance (9.69). Then the attackers still in their hexes may advance into
a vacated hex and along the path of retreat (9.81-9.85): `pursue UNIT... HEX...`, or
`pass`. Each choice is a pending decision of its owner (engine.state.Decision)."""

from __future__ import annotations

from typing import Any

from engine.ags import crt as table
from engine.ags import game, retreat, scoring
from engine.ags.zoc import controlled
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState


def combat(state: GameState) -> dict[str, Any] | None:
    c: dict[str, Any] | None = state.ext.get("combat")
    return c


def begin(
    ctx: Ctx,
    side: str,
    attackers: list[UnitState],
    defenders: list[UnitState],
    hexes: list[HexId],
    cell: table.Cell,
    overrun: bool = False,
) -> None:
    state = ctx.state
    supplied = {
        u.hex for u in state.on_map("german") if u.hex is not None and game.in_supply(state, u)
    }
    iso = sorted(u.id for u in (*attackers, *defenders) if game.isolated(state, u, supplied))
    ctx.emit(
        "combat_opened",
        side=side,
        attackers=[a.id for a in attackers],
        defenders=[d.id for d in defenders],
        hexes=hexes,
        origin={u.id: u.hex for u in (*attackers, *defenders)},
        results={"attacker": str(cell.attacker), "defender": str(cell.defender)},
        engaged=cell.engaged,
        isolated=iso,  # AGS-K 25.12: isolation at the instant of combat scores
        overrun=overrun,
    )
    if overrun and str(cell.defender) != "-" and not cell.engaged:
        # AGS 6.31: any loss or retreat (not an engaged result) disrupts the defenders
        ctx.emit("disrupted", side=game.enemy(side), units=[d.id for d in defenders])
    proceed(ctx, "defender")


def _role_side(c: dict[str, Any], role: str) -> str:
    return str(c["side"]) if role == "attacker" else game.enemy(str(c["side"]))


def affected(state: GameState, role: str) -> list[UnitState]:
    c = combat(state)
    assert c is not None
    ids = c["attackers"] if role == "attacker" else c["defenders"]
    return [state.units[i] for i in ids if state.units[i].on_map]


def proceed(ctx: Ctx, role: str) -> None:
    """Apply `role`'s result, or open its decision; then the next stage."""
    state = ctx.state
    c = combat(state)
    assert c is not None
    if role == "advance":
        if c.get("overrun"):
            _overrun_end(ctx)
        else:
            _offer_advance(ctx)
        return
    res = c["results"][role]
    units = affected(state, role)
    side = _role_side(c, role)
    if role == "defender" and res != "-":
        # AGS 9.76: units retreated into this hex earlier this phase die with any result
        late = [u for u in units if u.id in game.ext(state, "retreated_into", {})]
        for u in late:
            scoring.eliminated(ctx, ctx.state.units[u.id], isolated=u.id in c["isolated"])
        if late:
            proceed(ctx, role)
            return
    nxt = "attacker" if role == "defender" else "advance"
    if not units or res == "-":
        proceed(ctx, nxt)
        return
    if res == "E":
        for u in units:
            scoring.eliminated(ctx, ctx.state.units[u.id], isolated=u.id in c["isolated"])
        proceed(ctx, nxt)
        return
    n = 1 if c["engaged"] else int(res)
    options = {
        "role": role,
        "steps": n,
        "units": [u.id for u in units],
        "retreat": not c["engaged"],
        "paths": {} if c["engaged"] else _paths(state, role, units, n),
    }
    rule = "AGS 9.69" if c["engaged"] else "AGS 9.66, 9.67, 9.7"
    ctx.emit("decision_opened", side=side, decision="losses_or_retreat", options=options, rule=rule)


def forbidden(state: GameState, role: str) -> frozenset[HexId]:
    """9.77: an attacker retreating (after a split result) never enters a hex that was
    enemy-occupied or enemy-controlled at any time during the combat -- the defenders'
    hexes and the zones of control of the enemy as the combat began -- unless a friendly
    combat unit is in it (8.25)."""
    c = combat(state)
    assert c is not None
    if role != "attacker":
        return frozenset()
    side = str(c["side"])
    held = game.hexes_of(state, game.enemy(side)) | {c["origin"][d] for d in c["defenders"]}
    friends = {
        x.hex for x in state.on_map(side) if x.hex is not None and not game.spec(state, x.id).is_hq
    }
    was_controlled = controlled(game.board(state), held) - friends
    return frozenset(set(c["hexes"]) | was_controlled)


def _paths(
    state: GameState, role: str, units: list[UnitState], n: int
) -> dict[str, list[list[str]]]:
    c = combat(state)
    assert c is not None
    return {
        u.id: [
            list(p)
            for p in retreat.legal_paths(state, u, n, c["origin"][u.id], forbidden(state, role))
        ]
        for u in units
    }


def _decision(state: GameState, side: str, kind: str) -> Any:
    for d in state.pending:
        if d.side == side and d.kind == kind:
            return d
    return None


def answer_losses(ctx: Ctx, side: str, listed: tuple[str, ...]) -> None:
    state = ctx.state
    d = _decision(state, side, "losses_or_retreat")
    if d is None:
        raise Rejected("you have no losses to take now", "AGS 9.66")
    opts = d.options
    if opts.get("mode") == "retreat":
        raise Rejected(
            "your units are retreating: a result is steps lost or a retreat, never a mix; "
            "retreat the rest of them",
            "AGS 9.66",
        )
    n = int(opts["steps"])
    units = {uid: state.units[uid] for uid in opts["units"] if state.units[uid].on_map}
    counts: dict[str, int] = {}
    for uid in listed:
        if uid not in units:
            raise Rejected(f"{uid} is not one of the units affected by this result", "AGS 9.67")
        counts[uid] = counts.get(uid, 0) + 1
        if counts[uid] > units[uid].cel:
            raise Rejected(f"{uid} has only {units[uid].cel} step(s) to lose", "AGS 9.61")
    everything = sum(u.cel for u in units.values())
    if len(listed) != min(n, everything):
        raise Rejected(
            f"list {min(n, everything)} step(s) to lose (one listing a step; you may spread "
            "them over the affected units)",
            "AGS 9.66, 9.67",
            "A27",
        )
    c = combat(state)
    assert c is not None
    ctx.emit("decision_closed", side=side, decision="losses_or_retreat", answer="losses")
    for uid in listed:
        scoring.step_lost(ctx, ctx.state.units[uid], isolated=uid in c["isolated"])
    proceed(ctx, "attacker" if opts["role"] == "defender" else "advance")


def answer_retreat(ctx: Ctx, side: str, uid: str, path: tuple[HexId, ...]) -> None:
    state = ctx.state
    d = _decision(state, side, "losses_or_retreat")
    if d is None:
        raise Rejected("you have no retreat to make now", "AGS 9.72")
    opts = d.options
    if not opts["retreat"]:
        raise Rejected("an engaged result is a step lost, never a retreat", "AGS 9.69")
    if uid not in opts["units"] or not state.units[uid].on_map:
        raise Rejected(f"{uid} is not one of the units to retreat", "AGS 9.66")
    if uid in opts.get("retreated", []):
        raise Rejected(f"{uid} has already retreated", "AGS 9.73")
    legal = [tuple(p) for p in opts["paths"].get(uid, [])]
    c = combat(state)
    assert c is not None
    role = opts["role"]
    if legal:
        # the current position decides (units retreated first may fill a hex, 9.74)
        legal = retreat.legal_paths(
            state, state.units[uid], int(opts["steps"]), c["origin"][uid], forbidden(state, role)
        )
    off_map = not path and retreat.leaves_map(
        state, state.units[uid], int(opts["steps"]), c["origin"][uid], forbidden(state, role)
    )
    if not path and legal and not off_map:
        raise Rejected(
            f"{uid} can retreat (e.g. {' '.join(legal[0])}): give its path of "
            f"{opts['steps']} hex(es); `retreat {uid}` alone is a retreat off the map, "
            "only for a unit that can reach the map's edge",
            "AGS 9.73, 9.71",
            "A42",
        )
    if path and path not in legal:
        raise Rejected(
            f"{uid} may not retreat by {' '.join(path)}: {_why_not(legal, opts)}",
            "AGS 9.71, 9.73, 9.74, 9.77, 9.78"
            if role == "attacker"
            else "AGS 9.71, 9.73, 9.74, 9.78",
        )
    ctx.emit("retreat_chosen", side=side, unit=uid)
    if path:
        ctx.emit("retreated", side=side, unit=uid, path=list(path))
    else:
        # K140: no legal path, or A42: off the map by choice -- the unit is eliminated
        # (9.71, 9.74) and scores as one
        scoring.eliminated(ctx, ctx.state.units[uid], isolated=uid in c["isolated"])
    d = _decision(ctx.state, side, "losses_or_retreat")
    left = [
        u
        for u in d.options["units"]
        if ctx.state.units[u].on_map and u not in d.options.get("retreated", [])
    ]
    if not left:
        ctx.emit("decision_closed", side=side, decision="losses_or_retreat", answer="retreat")
        proceed(ctx, "attacker" if role == "defender" else "advance")


def _why_not(legal: list[tuple[HexId, ...]], opts: dict[str, Any]) -> str:
    n = opts["steps"]
    if not legal:
        return (
            "it has no legal retreat; give `retreat UNIT` without hexes and it is eliminated (K140)"
        )
    return f"a retreat of exactly {n} hex(es), each further from its hex, e.g. {' '.join(legal[0])}"


# --- advance after combat (9.8) -------------------------------------------------------------


def advance_limits(
    state: GameState, role: str = "attacker"
) -> dict[HexId, tuple[int, list[list[HexId]]]]:
    """Vacated hexes of the losing side -> (how far, the paths of retreat from it) (9.81,
    9.84, 9.85; A26: a hex emptied by eliminations allows two hexes). For the attacker's
    advance they are the defending hexes; for the victorious defender's (9.81, K171),
    the hexes the attackers attacked from."""
    c = combat(state)
    assert c is not None
    if role == "defender":
        losers, hexes = c["attackers"], sorted({c["origin"][a] for a in c["attackers"]})
        winner = game.enemy(str(c["side"]))
    else:
        losers, hexes, winner = c["defenders"], list(c["hexes"]), str(c["side"])
    out: dict[HexId, tuple[int, list[list[HexId]]]] = {}
    for h in hexes:
        if any(u.side != winner for u in state.units_at(h)):
            continue  # still held
        paths = [
            p for uid, p in c.get("retreats", {}).items() if uid in losers and c["origin"][uid] == h
        ]
        if paths:
            out[h] = (max(len(p) for p in paths), paths)
        else:
            out[h] = (2, [])
    return out


def _overrun_end(ctx: Ctx) -> None:
    """AGS 6.22-6.24: a successful overrun moves the overrunners into the hex at no cost
    (they may move on); otherwise they stop for the phase."""
    state = ctx.state
    c = combat(state)
    assert c is not None
    # 6.17: an HQ in the overrunners' hex shares their adverse results but is not one of
    # them: it neither moves in (6.24) nor is stopped (6.22, 6.23)
    overrunners = [u for u in affected(state, "attacker") if not game.spec(state, u.id).is_hq]
    movers = [u.id for u in overrunners if u.hex == c["origin"][u.id]]
    (target,) = c["hexes"]
    clean = c["results"]["attacker"] == "-" and not c["engaged"]
    held = any(u.side != c["side"] for u in state.units_at(target))
    if clean and not held and movers and len(movers) == len(overrunners):
        ctx.emit("advanced", side=c["side"], units=movers, path=[target], overrun=True)
    else:
        ctx.emit("overrun_stopped", side=c["side"], units=[u.id for u in overrunners])
    ctx.emit("combat_closed", side=c["side"])


def _offer_advance(ctx: Ctx) -> None:
    state = ctx.state
    c = combat(state)
    assert c is not None
    movers = [
        u.id for u in affected(state, "attacker") if u.hex == c["origin"][u.id]
    ]  # 9.68: those still in their original hex
    limits = advance_limits(state)
    if c["engaged"] or not movers or not limits:
        if not _offer_defender_advance(ctx):
            ctx.emit("combat_closed", side=c["side"])
        return
    ctx.emit(
        "decision_opened",
        side=c["side"],
        decision="advance",
        options={"units": movers, "hexes": {h: n for h, (n, _) in limits.items()}},
        rule="AGS 9.8",
    )


def _offer_defender_advance(ctx: Ctx) -> bool:
    """AGS 9.81 (K171): victorious defenders still in their hexes (9.68) may advance along
    the path of retreat of attackers who retreated or died leaving their hex vacant --
    never after a split result, where the defender lost or retreated too (A10), nor an
    engaged one (9.69), nor after an overrun (6.22)."""
    state = ctx.state
    c = combat(state)
    assert c is not None
    if c["engaged"] or c.get("overrun") or c["results"]["defender"] != "-":
        return False
    movers = [u.id for u in affected(state, "defender") if u.hex == c["origin"][u.id]]
    limits = advance_limits(state, "defender")
    if not movers or not limits:
        return False
    ctx.emit(
        "decision_opened",
        side=game.enemy(str(c["side"])),
        decision="advance",
        options={
            "units": movers,
            "hexes": {h: n for h, (n, _) in limits.items()},
            "role": "defender",
        },
        rule="AGS 9.81",
    )
    return True


def answer_advance(ctx: Ctx, side: str, units: tuple[str, ...], path: tuple[HexId, ...]) -> None:
    state = ctx.state
    d = _decision(state, side, "advance")
    if d is None:
        raise Rejected("there is no advance after combat to make now", "AGS 9.8")
    role = str(d.options.get("role", "attacker"))
    for uid in units:
        if uid not in d.options["units"]:
            raise Rejected(
                f"{uid} may not advance: only {role}s still in their hexes", "AGS 9.68, 9.81"
            )
    problem = advance_problem(state, side, units, path, role)
    if problem is not None:
        raise Rejected(problem, "AGS 9.82, 9.84, 9.85")
    c = combat(state)
    assert c is not None
    if role == "defender":  # 9.83: they may not be attacked again this phase
        ctx.emit("advanced", side=side, units=list(units), path=list(path), defenders=True)
    else:
        ctx.emit("advanced", side=side, units=list(units), path=list(path))
    left = [u for u in d.options["units"] if u not in units]
    ctx.emit("decision_closed", side=side, decision="advance", answer="advance")
    if left and advance_limits(ctx.state, role):
        ctx.emit(
            "decision_opened",
            side=side,
            decision="advance",
            options={**d.options, "units": left},
            rule="AGS 9.8",
        )
    else:
        ctx.emit("combat_closed", side=c["side"])


def advance_problem(
    state: GameState,
    side: str,
    units: tuple[str, ...],
    path: tuple[HexId, ...],
    role: str = "attacker",
) -> str | None:
    from engine.ags import stacking

    limits = advance_limits(state, role)
    if not path or path[0] not in limits:
        return f"the advance must begin in the vacated hex ({', '.join(sorted(limits))})"
    n, paths = limits[path[0]]
    if len(path) > n:
        return f"at most {n} hex(es) from {path[0]}"
    b = game.board(state)
    if len(path) > 1:
        # 9.81, 9.85: the vacated hex, then the enemy's retreat hexes in order
        if paths and not any(list(path[1:]) == p[: len(path) - 1] for p in paths):
            return "the advance must follow the enemy's path of retreat"
        if not paths and (not b.grid.adjacent(path[0], path[1]) or b.blocked(path[1])):
            return "the second hex must be adjacent to the first"
        if not paths and _into_river_zoc(state, side, path[0], path[1]):
            return (
                f"{path[1]} is across a major river in the zone of control of an enemy unit "
                "beside the river: only the hex attacked or a path of retreat may be entered "
                "so (AGS 10.13)"
            )
        if side == "soviet" and any(h in game.enemy_zoc(state, side) for h in path[:-1]):
            return "an advancing Soviet unit stops on entering a German zone of control"
        foes = game.hexes_of(state, game.enemy(side))
        if any(h in foes for h in path):
            return "an advance never enters an enemy unit"
    here = [game.spec(state, x.id) for x in state.units_at(path[-1]) if x.id not in units]
    if stacking.stack_problem([*here, *(game.spec(state, u) for u in units)]) is not None:
        return f"{path[-1]} would be over-stacked (AGS 7.0)"
    return None


def _into_river_zoc(state: GameState, side: str, h: HexId, n: HexId) -> bool:
    """10.13 (A23): across a major river hexside into a hex in the zone of control of an
    enemy unit that is itself beside the river, not held by a friendly unit. An advance
    is exempt only into the hex attacked through that hexside or along a path of retreat
    (10.13's exception), so this bars 9.84's free second hex."""
    b = game.board(state)
    if b.feature(h, n) != "major-river" or n in game.hexes_of(state, side):
        return False
    foes = game.hexes_of(state, game.enemy(side))
    river = [f for f in foes if any(b.feature(f, m) == "major-river" for m in b.grid.neighbours(f))]
    return n in controlled(b, river)


def decline(ctx: Ctx, side: str) -> None:
    if _decision(ctx.state, side, "advance") is None:
        raise Rejected("there is nothing to pass on now", "AGS 9.83")
    c = combat(ctx.state)
    ctx.emit("decision_closed", side=side, decision="advance", answer="pass")
    ctx.emit("combat_closed", side=side if c is None else c["side"])
