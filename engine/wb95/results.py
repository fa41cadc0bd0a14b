"""5.2.1 (f)-(g): applying a combat result -- losses (5.1.8), retreats (5.3), pursuit and
advance (5.4), disorganization (5.6) -- and the decisions they ask of the players.

A combat in resolution is plain data in `state.combat` with its remaining steps; each
step either runs by itself or opens a pending decision addressed to the side that must
choose (DESIGN §2). A decision with a single legal answer is taken automatically and
logged. Answers are the `losses`, `retreat`, `pursue` and `pass` orders.
"""

from __future__ import annotations

import copy
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.state import Decision, GameState, UnitState
from engine.wb95.crt import CombatResult, FireResult, SideResult
from engine.wb95.dispatch import handles
from engine.wb95.elimination import record_hq_loss
from engine.wb95.movement import StepCheck, after_move
from engine.wb95.overrun import overrunnable
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular
from engine.wb95.stacking import STACK_LIMIT, stack_cels
from engine.wb95.strength import is_towed
from engine.wb95.terrain import intact_bridges, step_cost
from engine.wb95.units import find_unit, own_units
from engine.wb95.zoc import zoc_map

SIDES = ("attacker", "defender")
ADVANCE_HEXES = 2  # 5.4.10: into the emptied hex and on to an adjacent one


def _side_result(r: SideResult) -> dict[str, Any]:
    return {
        "retreat": r.retreat,
        "losses": r.losses,
        "disorganized": r.disorganized,
        "test": r.test,
        "text": r.text,
    }


def start_results(
    ctx: Ctx,
    side: str,
    attackers: list[str],
    defenders: list[str],
    targets: list[HexId],
    result: CombatResult,
    star_users: dict[str, list[str]] | None = None,
    fixed_position: bool = False,
    supporters: dict[str, list[str]] | None = None,
) -> None:
    """Apply a combat result. `supporters`: units supporting each side from a hex next to
    the enemy (6.3.5, 5.6.3): they share the side's results -- losses, retreat,
    disorganization -- but never pursue (6.3.4)."""
    state = ctx.state
    backing = supporters or {"attacker": [], "defender": []}
    attackers = [*attackers, *(u for u in backing["attacker"] if u not in attackers)]
    defenders = [*defenders, *(u for u in backing["defender"] if u not in defenders)]
    combat = {
        "star_users": star_users or {"attacker": [], "defender": []},
        "fixed_position": fixed_position,
        "sides": {"attacker": side, "defender": state.setup.enemy_of(side)},
        "units": {"attacker": attackers, "defender": defenders},
        "supporters": backing,
        "origin": {u: state.units[u].hex for u in (*attackers, *defenders)},
        "targets": targets,
        "result": {
            "attacker": _side_result(result.attacker),
            "defender": _side_result(result.defender),
        },
        "steps": [
            "losses:attacker",
            "losses:defender",
            "retreat:attacker",
            "retreat:defender",
            "pursuit",
            "disorganization",
        ],
        "retreats": {},
    }
    ctx.emit("combat_stage", combat=combat)
    advance(ctx)


def start_fire_results(
    ctx: Ctx, side: str, firers: list[str], target: HexId, result: FireResult
) -> None:
    """Apply an ARTILLERY FIRE (or AIR ATTACK) result to every enemy unit in `target`
    (6.4.2 d, the tables' legend): `-n` CELs, allocated by their owner (5.1.8, R1); `D`
    disorganizes them all; `•` is a disorganization test for each (5.6.2, K37). Nothing
    happens to the firing units, and nobody retreats or pursues."""
    state = ctx.state
    enemy = state.setup.enemy_of(side)
    hit = [u.id for u in state.units_at(target) if u.side == enemy]
    own = SideResult(
        losses=result.losses,
        disorganized=result.disorganized,
        test=result.test,
        text=result.text,
    )
    combat = {
        "kind": "fire",
        "star_users": {"attacker": [], "defender": []},
        "fixed_position": False,
        "sides": {"attacker": side, "defender": enemy},
        "units": {"attacker": list(firers), "defender": hit},
        "supporters": {"attacker": [], "defender": []},
        "origin": {u: state.units[u].hex for u in (*firers, *hit)},
        "targets": [target],
        "result": {"attacker": _side_result(SideResult()), "defender": _side_result(own)},
        "steps": ["losses:defender", "disorganization"],
        "retreats": {},
    }
    ctx.emit("combat_stage", combat=combat)
    advance(ctx)


# --- the step runner -----------------------------------------------------------------------


def _update(ctx: Ctx, **changes: Any) -> dict[str, Any]:
    assert ctx.state.combat is not None
    c = copy.deepcopy(ctx.state.combat)
    c.update(changes)
    ctx.emit("combat_stage", combat=c)
    return c


def advance(ctx: Ctx) -> None:
    """Run the combat's steps until one needs a player or the combat is over."""
    while ctx.state.combat is not None and not ctx.state.pending:
        c = ctx.state.combat
        if not c["steps"]:
            ctx.emit("combat_ended", hexes=c["targets"])
            return
        step, _, who = c["steps"][0].partition(":")
        _update(ctx, steps=c["steps"][1:])
        if step == "losses":
            _losses_step(ctx, who, _result(ctx.state, who)["losses"], "result", "5.1.8")
        elif step == "retreat":
            _retreat_step(ctx, who)
        elif step == "shortfall":
            _shortfall_step(ctx, who)
        elif step == "pursuit":
            _pursuit_step(ctx)
        elif step == "disorganization":
            _disorganization_step(ctx)


def _result(state: GameState, who: str) -> dict[str, Any]:
    assert state.combat is not None
    r: dict[str, Any] = state.combat["result"][who]
    return r


def _alive(state: GameState, who: str) -> list[UnitState]:
    assert state.combat is not None
    return [state.units[u] for u in state.combat["units"][who] if not state.units[u].eliminated]


def _side_name(state: GameState, who: str) -> str:
    assert state.combat is not None
    s: str = state.combat["sides"][who]
    return s


def _open(ctx: Ctx, who: str, kind: str, options: Any, rule: str, /, **info: Any) -> None:
    side = _side_name(ctx.state, who)
    ctx.emit("decision_opened", side=side, decision=kind, options=options, rule=rule, info=info)


def _close(ctx: Ctx, kind: str) -> None:
    d = next(d for d in ctx.state.pending if d.kind == kind)
    ctx.emit("decision_closed", side=d.side, decision=kind)


def _decision(state: GameState, side: str, kind: str) -> Decision:
    for d in state.pending:
        if d.side == side and d.kind == kind:
            return d
    raise Rejected(f"{side} has no pending {kind} decision")


# --- losses (5.1.8, R1) --------------------------------------------------------------------


def lose_cel(ctx: Ctx, unit: str, cause: str, rule: str) -> None:
    state = ctx.state
    u = state.units[unit]
    ctx.emit("cel_lost", unit=unit, hex=u.hex, cause=cause, rule=rule, eliminated=u.cel <= 1)
    if u.eliminated and state.setup.units[unit].is_hq:  # 9.1.6: the enemy gains CMs
        record_hq_loss(ctx, unit)


def _losses_step(
    ctx: Ctx, who: str, count: int, cause: str, rule: str, among: list[str] | None = None
) -> None:
    if count <= 0:
        return
    units = [u for u in _alive(ctx.state, who) if among is None or u.id in among]
    cels = {u.id: u.cel for u in units}
    if not units:
        return
    must = _star_debt(ctx.state, who, units)
    if len(units) == 1 or sum(cels.values()) <= count:
        # a single legal answer: taken automatically (DESIGN §4)
        left = count
        for u in units:
            for _ in range(min(left, u.cel)):
                lose_cel(ctx, u.id, f"{cause} (automatic: the only choice)", rule)
            left -= min(left, cels[u.id])
        return
    opts = {"count": count, "units": cels, "must_include": must}
    _open(ctx, who, "losses", opts, rule, who=who, cause=cause)


def _star_debt(state: GameState, who: str, units: list[UnitState]) -> list[str]:
    """15.1.7, 15.4.3: a side that used special abilities and suffers losses takes at least
    one CEL from the units that used them (once per combat)."""
    c = state.combat
    assert c is not None
    if who in c.get("star_paid", []):
        return []
    users = set(c["star_users"][who])
    return [u.id for u in units if u.id in users]


@handles(o.Losses)
def do_losses(ctx: Ctx, side: str, order: o.Losses) -> None:
    d = _decision(ctx.state, side, "losses")
    count = d.options["count"]
    allowed: dict[str, int] = d.options["units"]
    picked: dict[str, int] = {}
    for ref in order.units:
        u = find_unit(ctx.state, ref)
        if u.id not in allowed:
            raise Rejected(
                f"{u.id} cannot take these losses: choose among {', '.join(allowed)}", d.rule
            )
        picked[u.id] = picked.get(u.id, 0) + 1
        if picked[u.id] > allowed[u.id]:
            raise Rejected(f"{u.id} has only {allowed[u.id]} CEL(s)", d.rule)
    must: list[str] = d.options.get("must_include", [])
    if must and not any(u in must for u in picked):
        who = ", ".join(must)
        raise Rejected(
            f"at least 1 CEL must come from the units that used abilities: {who}", "15.1.7"
        )
    if sum(picked.values()) != count:
        raise Rejected(
            f"{count} CEL(s) must be lost: list one unit per CEL "
            f"(e.g. losses {next(iter(allowed))})",
            d.rule,
            "R1",
        )
    _close(ctx, "losses")
    if must:
        c = ctx.state.combat
        assert c is not None
        _update(ctx, star_paid=[*c.get("star_paid", []), str(d.info["who"])])
    for unit, n in picked.items():
        for _ in range(n):
            lose_cel(ctx, unit, str(d.info.get("cause", "result")), d.rule)
    advance(ctx)


# --- retreat (5.3) -------------------------------------------------------------------------

# Hexsides a unit may not cross in a retreat or pursuit either, besides terrain (5.3.3,
# 5.4.7): scenario rules plug in here (`scenario_rules`' `no_crossing`, K60), with the
# signature of `movement.STEP_CHECKS`.
CROSSING_CHECKS: list[StepCheck] = []


def _barred(state: GameState, u: UnitState, a: HexId, b: HexId) -> tuple[str, str, str] | None:
    spec = state.setup.units[u.id]
    for check in CROSSING_CHECKS:
        if (why := check(state, spec, a, b)) is not None:
            return why
    return None


def retreat_paths(state: GameState, u: UnitState, hexes: int) -> list[tuple[HexId, ...]]:
    """Every legal retreat path of 1..`hexes` hexes (5.3.2-5.3.6): each hex farther from
    the hex it fought in (K18), no enemy units or impassable terrain, no enemy ZoC unless a
    friendly unit holds the hex (5.3.4), big rivers only by bridge (5.3.5), not ending
    over-stacked (5.3.6)."""
    spec = state.setup.units[u.id]
    if lone_defence(state, u):
        return []  # 5.1.9, 6.6.4: a lone HQ (or towed artillery in transport setup) stays
    if fixed_gun(state, u):
        return []  # 6.2.4: towed artillery in combat setup cannot retreat
    if spec.type == "rg" or spec.move == "none":
        return []  # 15.2.1: resilience groups cannot move or retreat
    if any(w["hq"] == u.id for w in state.bridge_works):
        return []  # 14.3.4: an HQ building a bridge must stay on its hex (K31)
    assert u.hex is not None
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(u.side)
    ezoc = zoc_map(state, enemy)
    occupied: dict[HexId, str] = {}
    for x in state.on_map():
        if x.hex is not None:
            occupied[x.hex] = x.side
    cels = stack_cels(state, u.side)
    weight = 1 if spec.is_hq else u.cel
    start = u.hex
    out: list[tuple[HexId, ...]] = []
    m = state.setup.map
    bridges = intact_bridges(state)  # 5.3.5: the bridges standing now (14.0)

    def walk(path: tuple[HexId, ...]) -> None:
        here = path[-1] if path else start
        for n in grid.neighbours(here):
            if grid.distance(start, n) != len(path) + 1:
                continue
            if occupied.get(n) == enemy:
                continue
            if ezoc.get(n) and occupied.get(n) != u.side:
                continue
            if step_cost(m, state.setup.table, spec, here, n, bridges=bridges).cost is None:
                continue
            if _barred(state, u, here, n) is not None:
                continue  # a scenario's no_crossing (K60)
            p = (*path, n)
            if cels.get(n, 0) + weight <= STACK_LIMIT:
                out.append(p)
            if len(p) < hexes:
                walk(p)

    walk(())
    return out


def fixed_gun(state: GameState, u: UnitState) -> bool:
    """Towed artillery in combat setup: it can neither move nor retreat (6.2.3, 6.2.4)."""
    return state.setup.units[u.id].type == "art" and u.setup != "transport"


def lone_defence(state: GameState, u: UnitState) -> bool:
    """`u` defends in a combat whose defenders are all HQs and towed artillery in transport
    setup: resolved on the rightmost column, no retreat, losses as sustained retreat (5.1.9,
    6.6.4)."""
    c = state.combat
    if c is None or u.id not in c["units"]["defender"]:
        return False
    return all(lone_unit(state, state.units[x]) for x in c["units"]["defender"])


def lone_unit(state: GameState, u: UnitState) -> bool:
    """An HQ, or towed artillery in transport setup (5.1.9, 6.6.4)."""
    spec = state.setup.units[u.id]
    return spec.is_hq or (spec.type == "art" and u.setup == "transport")


def _retreat_step(ctx: Ctx, who: str) -> None:
    hexes = int(_result(ctx.state, who)["retreat"])
    if hexes <= 0:
        return
    units = _alive(ctx.state, who)
    options = {u.id: [list(p) for p in retreat_paths(ctx.state, u, hexes)] for u in units}
    for u in units:
        if not options[u.id]:
            spec = ctx.state.setup.units[u.id]
            rule = "5.1.9" if spec.is_hq else "5.3.3"
            if spec.type == "art":
                rule = "6.6.4" if lone_defence(ctx.state, u) else "6.2.4"
            if any(w["hq"] == u.id for w in ctx.state.bridge_works):
                rule = "14.3.4"
            ctx.emit("retreat_held", unit=u.id, hexes=hexes, reason="no legal retreat", rule=rule)
    left = [u for u in options if options[u]]
    if left:
        _open(
            ctx,
            who,
            "retreat",
            {"hexes": hexes, "paths": {u: options[u] for u in left}},
            "5.3",
            who=who,
            left=left,
        )
    else:
        _after_retreats(ctx, who)


def _after_retreats(ctx: Ctx, who: str) -> None:
    c = ctx.state.combat
    assert c is not None
    c = _update(ctx, steps=[f"shortfall:{who}", *c["steps"]])


def _shortfall_step(ctx: Ctx, who: str) -> None:
    """R19 (5.3.7-5.3.8): the hexes not retreated by the units that stayed shortest are
    paid in CELs by units that did not complete the retreat; the owner chooses which."""
    state = ctx.state
    assert state.combat is not None
    required = int(_result(state, who)["retreat"])
    alive = _alive(state, who)
    # 6.2.4 example (E20, K48): guns in combat setup cannot retreat; they are left to the
    # enemy's pursuit, so only the other units' retreats decide the shortfall -- but the
    # guns may pay its CELs
    movers = [u for u in alive if not fixed_gun(state, u)]
    done = {u.id: len(state.combat["retreats"].get(u.id, [])) for u in alive}
    # K99: guns alone in combat setup retreat no hex: every hex is paid in CELs (5.3.7;
    # 6.2.4's note: they "must suffer losses"), whether or not the enemy then enters
    shortfall = required - (min(done[u.id] for u in movers) if movers else 0)
    if who == "defender" and state.combat.get("fixed_position") and shortfall > 0:
        shortfall -= 1  # 7.3.6: sustained retreat in a fixed position costs one CEL less
    short = [u for u, n in done.items() if n < required]
    _losses_step(ctx, who, shortfall, "sustained retreat", "5.3.7", among=short)


@handles(o.Retreat)
def do_retreat(ctx: Ctx, side: str, order: o.Retreat) -> None:
    d = _decision(ctx.state, side, "retreat")
    u = find_unit(ctx.state, order.unit)
    left: list[str] = d.info["left"]
    if u.id not in left:
        raise Rejected(f"{u.id} has no retreat to make: still to answer {', '.join(left)}", "5.3.1")
    try:
        path = tuple(normalize(h) for h in order.path)
    except HexIdError as e:
        raise Rejected(str(e)) from None
    assert u.hex is not None
    if path and path[0] == u.hex:
        path = path[1:]
    hexes = int(d.options["hexes"])
    if len(path) > hexes:
        raise Rejected(f"{u.id} retreats {hexes} hex(es), not {len(path)}", "5.3.2")
    if path and path not in retreat_paths(ctx.state, u, hexes):
        raise Rejected(*_why_not_retreat(ctx.state, u, path))
    zoc_hexes = []
    if path:
        ezoc = zoc_map(ctx.state, ctx.state.setup.enemy_of(side))
        zoc_hexes = [h for h in path if ezoc.get(h)]
        start = u.hex
        ctx.emit(
            "retreated", unit=u.id, side=side, path=[start, *path], to=path[-1], hexes=len(path)
        )
        after_move(ctx, u.id, [start, *path])
        for h in zoc_hexes:  # 5.3.4
            if not ctx.state.units[u.id].eliminated:
                lose_cel(ctx, u.id, f"retreat through enemy ZoC at {h}", "5.3.4")
    else:
        ctx.emit("retreat_held", unit=u.id, hexes=hexes, reason="sustained retreat", rule="5.3.7")
    _record_retreat(ctx, u.id, list(path))
    rest = [x for x in left if x != u.id]
    ctx.emit("decision_updated", side=side, decision="retreat", info={**d.info, "left": rest})
    if not rest:
        _close(ctx, "retreat")
        _after_retreats(ctx, str(d.info["who"]))
        advance(ctx)


def _record_retreat(ctx: Ctx, unit: str, path: list[HexId]) -> None:
    c = ctx.state.combat
    assert c is not None
    _update(ctx, retreats={**c["retreats"], unit: path})


def _why_not_retreat(
    state: GameState, u: UnitState, path: tuple[HexId, ...]
) -> tuple[str, str, str]:
    """The message, rule case and ruling of the first thing wrong with a retreat path."""
    m, table = state.setup.map, state.setup.table
    grid = m.grid
    spec = state.setup.units[u.id]
    enemy = state.setup.enemy_of(u.side)
    ezoc = zoc_map(state, enemy)
    assert u.hex is not None
    prev = u.hex
    for i, h in enumerate(path):
        if not grid.contains(h):
            return (f"{h} is not on the map: a retreat cannot leave the map", "5.3.3", "")
        if not grid.adjacent(prev, h):
            return (f"{prev} and {h} are not adjacent", "5.3.2", "")
        if grid.distance(u.hex, h) != i + 1:
            why = f"{h} is not farther from {u.hex}: a retreat goes away from the combat"
            return (why, "5.3.2", "K18")
        if state.occupant_side(h) == enemy:
            return (f"{h} holds enemy units", "5.3.3", "")
        if ezoc.get(h) and state.occupant_side(h) != u.side:
            return (f"{h} is in enemy ZoC and no friendly unit holds it (5.3.4)", "5.3.3", "")
        sc = step_cost(m, table, spec, prev, h, bridges=intact_bridges(state))
        if sc.cost is None:
            big = any(
                table.hexsides[f].bridge_only for f in m.features(prev, h) if f in table.hexsides
            )
            return (f"cannot retreat into {h}: {sc.why}", "5.3.5" if big else "5.3.3", sc.ruling)
        if (barred := _barred(state, u, prev, h)) is not None:
            return barred
        prev = h
    cels = stack_cels(state, u.side).get(path[-1], 0) + (1 if spec.is_hq else u.cel)
    if cels > STACK_LIMIT:
        why = f"a retreat cannot end in {path[-1]}: it would hold {cels} CELs, over {STACK_LIMIT}"
        return (why, "5.3.6", "")
    return (f"{' '.join(path)} is not a legal retreat", "5.3.3", "")


# --- pursuit and advance (5.4) -------------------------------------------------------------


def _pursuit_step(ctx: Ctx) -> None:
    state = ctx.state
    c = state.combat
    assert c is not None
    for loser in SIDES:
        winner = "defender" if loser == "attacker" else "attacker"
        vacated = _vacated(state, loser)
        if not vacated:
            continue
        retreated = any(c["retreats"].get(u) for u in c["units"][loser])
        eliminated = any(state.units[u].eliminated for u in c["units"][loser])
        owed = int(c["result"][loser]["retreat"]) > 0  # guns that could not retreat (6.2.4)
        if not retreated and not eliminated and not owed:
            continue
        m, table = state.setup.map, state.setup.table
        bridges = intact_bridges(state)
        guns = _gun_hexes(state, loser)
        backing = c.get("supporters", {}).get(winner, [])
        pursuers = [
            u.id
            for u in _alive(state, winner)
            if not is_towed(state, u)  # 5.4.9
            and u.id not in backing  # 6.3.4: supporting artillery does not pursue
            and u.hex
            and any(  # 5.4.4: it enters that hex, if it can (5.4.7)
                m.grid.adjacent(u.hex, h)
                and (h not in guns or is_regular(state.setup.units[u.id]))  # 6.1.7
                and step_cost(m, table, state.setup.units[u.id], u.hex, h, bridges=bridges).cost
                is not None
                for h in vacated
            )
        ]
        if not pursuers:
            continue
        paths = {
            h: [p for u, p in c["retreats"].items() if p and c["origin"][u] == h] for h in vacated
        }
        mode = "pursuit" if any(paths.values()) else "advance" if eliminated else "overrun"
        rule = {"pursuit": "5.4", "advance": "5.4.10", "overrun": "6.2.4"}[mode]
        _open(
            ctx,
            winner,
            "pursuit",
            {"units": pursuers, "first": vacated, "paths": paths, "mode": mode},
            rule,
            who=winner,
            left=pursuers,
        )
        return


def _vacated(state: GameState, loser: str) -> list[HexId]:
    """5.4.4: hexes the losing side fought from that it has emptied -- or, when it owed a
    retreat, left to towed artillery (and HQs) that could not retreat, which the pursuer
    eliminates by entering (6.1.7, 6.2.4 example, E20, K48)."""
    c = state.combat
    assert c is not None
    origins = sorted({c["origin"][u] for u in c["units"][loser]})
    owed = int(c["result"][loser]["retreat"]) > 0
    guns = _gun_hexes(state, loser) if owed else set()
    return [h for h in origins if not state.units_at(h) or h in guns]


def _gun_hexes(state: GameState, who: str) -> set[HexId]:
    """Hexes where `who` (attacker/defender) has only towed artillery and HQs, with at least
    one gun (6.1.7)."""
    weak = overrunnable(state, _side_name(state, who))
    return {h for h, w in weak.items() if w.guns}


@handles(o.Pursue)
def do_pursue(ctx: Ctx, side: str, order: o.Pursue) -> None:
    """Each named unit pursues along the same path in turn (a stack in one order, issue
    #17); every step is checked on the position the previous one left (stacking, 3.2.1)."""
    d = _decision(ctx.state, side, "pursuit")
    left0: list[str] = d.info["left"]

    def able(u: UnitState) -> tuple[str, str] | None:
        return None if u.id in left0 else (f"pursuers are {', '.join(left0)}", "5.4.1")

    units = own_units(ctx.state, side, order.units, able, "pursue")
    try:
        path = [normalize(h) for h in order.path]
    except HexIdError as e:
        raise Rejected(str(e)) from None
    for u in units:
        d = _decision(ctx.state, side, "pursuit")
        left: list[str] = d.info["left"]
        u = ctx.state.units[u.id]
        _check_pursuit(ctx.state, u, path, d.options)
        start = u.hex
        assert start is not None
        ctx.emit("pursued", unit=u.id, side=side, path=[start, *path], to=path[-1])
        after_move(ctx, u.id, [start, *path])
        rest = [x for x in left if x != u.id]
        ctx.emit("decision_updated", side=side, decision="pursuit", info={**d.info, "left": rest})
        if not rest:
            _close(ctx, "pursuit")
            advance(ctx)
            return


def _check_pursuit(state: GameState, u: UnitState, path: list[HexId], opts: dict[str, Any]) -> None:
    m = state.setup.map
    spec = state.setup.units[u.id]
    if not path:
        raise Rejected("a pursuit needs at least the emptied hex", "5.4.4")
    if path[0] not in opts["first"]:
        raise Rejected(f"a pursuit starts in the emptied hex ({', '.join(opts['first'])})", "5.4.4")
    assert u.hex is not None
    prev = u.hex
    enemy = state.setup.enemy_of(u.side)
    weak = overrunnable(state, enemy)
    crossed_big = False
    for h in path:
        if crossed_big:
            raise Rejected("a pursuing unit stops after it crosses a big river", "5.4.8")
        if not m.grid.contains(h):
            raise Rejected(f"{h} is not on the map: a pursuit cannot leave the map", "5.4.7")
        if not m.grid.adjacent(prev, h):
            raise Rejected(f"{prev} and {h} are not adjacent", "3.1.4")
        if state.occupant_side(h) == enemy:
            if not (h in weak and weak[h].guns):
                raise Rejected(f"cannot enter {h}: it holds enemy units", "3.1.8")
            if not is_regular(spec):
                why = f"cannot enter {h}: only a regular unit overruns enemy towed artillery"
                raise Rejected(why, "6.1.7", "K20")
        sc = step_cost(m, state.setup.table, spec, prev, h, bridges=intact_bridges(state))
        if sc.cost is None:
            raise Rejected(f"cannot enter {h}: {sc.why}", "5.4.7", sc.ruling)
        if (barred := _barred(state, u, prev, h)) is not None:
            raise Rejected(*barred)
        crossed_big = any(
            state.setup.table.hexsides[f].bridge_only
            for f in m.features(prev, h)
            if f in state.setup.table.hexsides
        )
        prev = h
    cels = stack_cels(state, u.side).get(path[-1], 0) + (1 if spec.is_hq else u.cel)
    if cels > STACK_LIMIT:  # the Combat Phase could not end (3.2.1): pass instead
        why = f"a pursuit cannot end in {path[-1]}: it would hold {cels} CELs, over {STACK_LIMIT}"
        raise Rejected(why, "3.2.1", "K95")
    if opts["mode"] != "advance" and not any(opts["paths"].get(path[0], [])):
        # guns left behind where no retreat began: only their hex (6.2.4, E20, K48)
        if len(path) > 1:
            raise Rejected(
                f"no retreat to follow from {path[0]}: the pursuit enters that hex only", "5.4.6"
            )
        return
    if opts["mode"] == "advance":
        if len(path) > ADVANCE_HEXES:
            raise Rejected(
                "after an elimination the victor enters the emptied hex and may move one hex more",
                "5.4.10",
            )
        ezoc = zoc_map(state, enemy)
        if len(path) == 2 and ezoc.get(path[0]):
            raise Rejected(f"{path[0]} is in enemy ZoC: the advance stops there", "5.4.10")
        return
    routes: list[list[HexId]] = opts["paths"].get(path[0], [])
    for r in routes:
        if len(path) > len(r):
            continue  # 5.4.6
        follow = [path[0], *r]
        ok = True
        for i, h in enumerate(path):
            if h == follow[i]:
                continue
            if i == len(path) - 1:
                break  # 5.4.2: it may leave the retreat path by one hex, at its end
            ok = False
            break
        if ok:
            return
    longest = max((len(r) for r in routes), default=0)
    if len(path) > longest:
        raise Rejected(f"a pursuit is at most as long as the retreat ({longest} hexes)", "5.4.6")
    raise Rejected("a pursuit follows the retreat path and may leave it by one hex only", "5.4.2")


@handles(o.Pass)
def do_pass(ctx: Ctx, side: str, order: o.Pass) -> None:
    """Decline an optional step: abilities before the roll, pursuit or advance."""
    if any(d.side == side and d.kind == "defence" for d in ctx.state.pending):
        from engine.wb95.combat import decline_defence

        decline_defence(ctx, side, {})
        return
    if not any(d.side == side and d.kind == "pursuit" for d in ctx.state.pending):
        raise Rejected("there is no optional step to pass: 'done' ends your part of a phase")
    _close(ctx, "pursuit")
    advance(ctx)


# --- disorganization (5.3.9, 5.6) ----------------------------------------------------------


def _disorganization_step(ctx: Ctx) -> None:
    state = ctx.state
    c = state.combat
    assert c is not None
    for who in SIDES:
        r = c["result"][who]
        for u in _alive(state, who):
            if r["disorganized"]:
                _disorganize(ctx, u.id, f"combat result {r['text']}", "5.6.1")
                continue
            tests = 1 if r["test"] else 0
            tests += max(0, len(c["retreats"].get(u.id, [])) - 1)  # 5.3.9
            for i in range(tests):
                if ctx.state.units[u.id].disorganized:
                    break
                limit = state.setup.morale.get(state.setup.units[u.id].nation, 10)
                faces = ctx.roll(
                    2,
                    f"disorganization test {i + 1} of {tests} for {u.id} (5.6.2, limit {limit})",
                    unit=u.id,
                )
                if sum(faces) >= limit:
                    _disorganize(
                        ctx, u.id, f"failed disorganization test ({sum(faces)} >= {limit})", "5.6.2"
                    )


def _disorganize(ctx: Ctx, unit: str, cause: str, rule: str) -> None:
    ctx.emit("disorganized", unit=unit, cause=cause, rule=rule)


# --- reducers ------------------------------------------------------------------------------


@on("combat_stage")
def _combat_stage(state: GameState, e: Event) -> None:
    state.combat = copy.deepcopy(e.data["combat"])


@on("combat_ended")
def _combat_ended(state: GameState, e: Event) -> None:
    state.combat = None


@on("decision_opened")
def _decision_opened(state: GameState, e: Event) -> None:
    d = e.data
    state.pending.append(
        Decision(d["side"], d["decision"], copy.deepcopy(d["options"]), d["rule"], dict(d["info"]))
    )


@on("decision_updated")
def _decision_updated(state: GameState, e: Event) -> None:
    for d in state.pending:
        if d.side == e.data["side"] and d.kind == e.data["decision"]:
            d.info = dict(e.data["info"])
            return


@on("decision_closed")
def _decision_closed(state: GameState, e: Event) -> None:
    for i, d in enumerate(state.pending):
        if d.side == e.data["side"] and d.kind == e.data["decision"]:
            del state.pending[i]
            return


@on("cel_lost")
def _cel_lost(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.cel -= 1
    if u.cel <= 0:
        u.cel = 0
        u.eliminated = True


@on("retreated")
def _retreated(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.hex = e.data["to"]
    u.entered_seq = e.seq
    u.retreated_turn = state.turn
    u.retreated_phase = state.phase
    u.mark_active(state.turn, state.phase)


@on("retreat_held")
def _retreat_held(state: GameState, e: Event) -> None:
    """Only reports (5.3.7): the CELs follow as `cel_lost` events."""


@on("pursued")
def _pursued(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.hex = e.data["to"]
    u.entered_seq = e.seq
    u.mark_active(state.turn, state.phase)


@on("disorganized")
def _disorganized(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.disorganized = True
    u.disorganized_at = (state.turn, state.phase)
    u.active_since_disorg = False
