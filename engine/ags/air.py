"""Air power (AGS 14.1; AGS-K 19.8, 25.2, 25.3; A37, A43; K162, K164): the defender's air
point in combat, air supply of isolated German units and their Heavy Equipment.

The attacker announces his air point with the attack (`attack ... air 1`), then the
defender (14.12): when the defending side has an air point left this Game-Turn, the
attack waits for its decision `defender_air`, answered `air 1 support-defence HEX` (one
column in the defender's favour, 14.14; both points cancel) or `pass`. The combat is
then resolved (`engine.ags.combat.resolve`)."""

from __future__ import annotations

from engine import orders as o
from engine.ags import game
from engine.core import Ctx, Rejected
from engine.state import Decision, GameState, UnitState

DEFENDER_AIR = "defender_air"
MISSIONS = ("support-defence", "support-defense", "defend", "defence", "defense")


def points(state: GameState, side: str) -> int:
    return int(game.ext(state, "air", {}).get(side, 0))


def offer(ctx: Ctx, side: str, hexes: list[str], attacker_air: int) -> bool:
    """Open the defender's decision if it has an air point (14.12); False if not."""
    defender = game.enemy(side)
    if points(ctx.state, defender) < 1:
        return False
    ctx.emit(
        "decision_opened",
        side=defender,
        decision=DEFENDER_AIR,
        options={
            "hexes": hexes,
            "attacker_air": attacker_air,
            "points": points(ctx.state, defender),
        },
        rule="AGS 14.12",
    )
    return True


def defaults(state: GameState, d: Decision) -> list[o.Order]:
    """The deadline answer keeps the point (an absent player spends nothing, K162)."""
    return [o.Pass(), o.Air(mission="support-defence", hex=d.options["hexes"][0], amount=1)]


def answer(ctx: Ctx, side: str, d: Decision, order: o.Order) -> None:
    from engine.ags import combat

    used = 0
    if isinstance(order, o.Air):
        if order.mission not in MISSIONS:
            raise Rejected(
                "answer `air 1 support-defence HEX` or `pass` (the defender's air point)",
                "AGS 14.12",
            )
        if order.amount != 1:
            raise Rejected("at most one air point per side in a combat", "AGS 14.13")
        if order.hex not in d.options["hexes"]:
            raise Rejected(f"{order.hex} is not the hex attacked", "AGS 14.11")
        used = 1
    elif not isinstance(order, o.Pass):
        raise Rejected(
            "answer the attack first: `air 1 support-defence HEX` or `pass`", "AGS 14.12"
        )
    ctx.emit("decision_closed", side=side, decision=DEFENDER_AIR, answer=used)
    if used:
        ctx.emit("air_spent", side=side, points=1, use="combat", rule="AGS 14.14")
    combat.resolve(ctx, used)


# --- air supply and Heavy Equipment (AGS-K 25.2, 25.3; K164) -------------------------------

SUPPLY_MISSIONS = ("supply", "air-supply")
TOWNS = ("town", "city")  # K164: a city is a town for an air drop


def air_phase(state: GameState) -> bool:
    """K164: the German Air Power Phase (AGS 4.2 step 5) is played within the German
    Mechanized Movement Phase, before `done`: the Disruption Removal Phase between them
    asks nothing of the player."""
    from engine.ags import sequence

    p = sequence.current(state)
    return p.side == "german" and p.mech and not state.pending


def heavy(state: GameState, uid: str) -> int:
    """The Heavy Equipment marker's state (25.31): 0 none, 1 or 2 on top, 3 underneath."""
    return int(game.ext(state, "heavy", {}).get(uid, 0))


def air_supplied(state: GameState, uid: str) -> bool:
    """25.23: in supply for the whole Game-Turn after the air drop."""
    until = game.ext(state, "air_supplied", {}).get(uid)
    return until is not None and state.turn <= int(until)


def drop_zone(state: GameState, town: str) -> set[str]:
    """25.21: the hexes joined to the town by a line of hexes free of enemy units and of
    enemy zones of control (friendly units negate them in their hex), any length."""
    b = game.board(state)
    foes = game.hexes_of(state, "soviet")
    zoc = game.enemy_zoc(state, "german")
    friends = game.hexes_of(state, "german")

    def open_(h: str) -> bool:
        return not b.blocked(h) and h not in foes and (h not in zoc or h in friends)

    if not open_(town):
        return set()
    seen = {town}
    todo = [town]
    while todo:
        h = todo.pop()
        for x in b.grid.neighbours(h):
            if x not in seen and open_(x):
                seen.add(x)
                todo.append(x)
    return seen


def line_supplied(state: GameState, u: UnitState) -> bool:
    """In supply by a line to a supply hex (19.72), not by air (25.35)."""
    from engine.ags import supply as lines

    sc = game.scenario(state)
    if u.hex is None:
        return False
    if u.id in game.ext(state, "fresh", []):
        return True
    return lines.german_in_supply(
        sc.board,
        u.hex,
        sc.german_sources,
        enemy=game.hexes_of(state, "soviet"),
        ezoc=game.enemy_zoc(state, "german"),
        friends=game.hexes_of(state, "german"),
    )


def isolated_by_line(state: GameState) -> list[UnitState]:
    """The German units isolated now (25.1) as their lines stand, whatever air supply they
    had before: an air-supplied unit may be supplied again (25.28)."""
    from engine.ags import supply as lines

    units = [u for u in state.on_map("german") if u.hex is not None]
    ok = {u.id for u in units if line_supplied(state, u) and heavy(state, u.id) < 3}
    hexes = {u.hex for u in units if u.id in ok and u.hex is not None}
    b = game.board(state)
    return [u for u in units if u.id not in ok and u.hex and lines.isolated(b, u.hex, hexes)]


def air_supply(ctx: Ctx, order: o.Air) -> None:
    """`air 1 supply TOWN` (25.2): an Air marker on a town; every isolated German unit with
    a line to it is air supplied, and gets a Heavy Equipment marker the first time (25.28)."""
    state = ctx.state
    sc = game.scenario(state)
    if not air_phase(state):
        raise Rejected(
            "air supply is given in the German Air Power Phase, at the end of the German "
            "Mechanized Movement Phase",
            "AGS-K 25.21, AGS 4.2",
            "K164",
        )
    if order.amount != 1:
        raise Rejected("one Air marker per town: `air 1 supply HEX`", "AGS-K 25.22")
    if points(state, "german") < 1:
        raise Rejected(
            "no air points left this Game-Turn (none on snow turns)", "AGS-K 25.25, 25.26, 19.8"
        )
    placed = list(game.ext(state, "air_markers", []))
    if len(placed) >= sc.air_supply_markers:
        raise Rejected(f"all {sc.air_supply_markers} Air markers are placed", "AGS-K 25.25")
    h = order.hex
    b = sc.board
    if not b.grid.contains(h) or b.terrain_at(h) not in TOWNS:
        raise Rejected(f"{h} is not a town hex", "AGS-K 25.21, 25.22", "K164")
    if h in placed:
        raise Rejected(f"an Air marker is already on {h}", "AGS-K 25.22")
    if h in game.hexes_of(state, "soviet"):
        raise Rejected(f"a Soviet unit is in {h}", "AGS-K 25.24")
    zone = drop_zone(state, h)
    supplied = sorted(
        u.id for u in isolated_by_line(state) if u.hex in zone and heavy(state, u.id) < 3
    )
    new_heavy = sorted(u for u in supplied if u not in game.ext(state, "heavy_given", []))
    ctx.emit(
        "air_supply",
        side="german",
        hex=h,
        units=supplied,
        until=state.turn + 1,
        heavy=new_heavy,
        rule="AGS-K 25.2, 25.28",
    )


def soviet_entered_marked_towns(ctx: Ctx) -> None:
    """25.24: a Soviet unit moved into a town with an Air marker removes the marker (by any
    move, entry, advance or retreat, K175); the units it supplied stay in supply (25.23:
    `air_supplied` is kept per unit)."""
    state = ctx.state
    marked = game.ext(state, "air_markers", [])
    if not marked:
        return
    soviet = game.hexes_of(state, "soviet")
    for h in [h for h in marked if h in soviet]:
        ctx.emit("air_marker_removed", side="german", hex=h, rule="AGS-K 25.24")


def start_of_german_player_turn(ctx: Ctx) -> None:
    """25.35: a Heavy Equipment marker on top comes off when the unit is in supply by a
    line (not by air) at the start of a German player-turn."""
    state = ctx.state
    off = []
    for uid, st in sorted(game.ext(state, "heavy", {}).items()):
        u = state.units[uid]
        if int(st) < 3 and u.on_map and line_supplied(state, u):
            off.append(uid)
    if off:
        ctx.emit("heavy_equipment_removed", side="german", units=off, rule="AGS-K 25.35")
