"""Victory conditions (the scenarios' "Victory Conditions"; Korsuń 1944, The Retreat,
Deblockade).

A scenario's `victory:` gives VPs for victory hexes (every hex of a VP city, 1 VP each),
VPs per enemy CEL destroyed (`cel_vp`), a link the side must keep (Korsuń to zones B-F),
and result levels, each tested at any moment (an automatic victory, after every input) or
at the end of the game. `victory_standing(state)` reports the standing on request;
`final_result(state)` is what `game_ended` records (docs/rulings.md K-rows for 4.3 control
and the link).
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise
from typing import Any

from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, hexside
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.control import city_points
from engine.wb95.dispatch import after_input
from engine.wb95.reducer import on
from engine.wb95.terrain import intact_bridges


def cels_destroyed(state: GameState) -> dict[str, int]:
    """CELs each side has destroyed: the enemy's CELs lost since the start (eliminated
    units count in full). Units a scenario withdrew count as they left."""
    start = {st.id: st.cel for st in state.setup.starts}
    out = {s: 0 for s in state.setup.sides}
    for u in state.units.values():
        if u.arrives is not None and u.hex is None and not u.eliminated:
            continue  # not yet on the map
        lost = start.get(u.id, u.max_cel) - (0 if u.eliminated else u.cel)
        if lost > 0:
            out[state.setup.enemy_of(u.side)] += lost
    return out


def linked(state: GameState) -> bool:
    """The scenario's link: a chain of adjacent hexes, each controlled by the side and
    free of enemy units, from a hex of the place to a hex of the zones (K64). With `by:
    road` (Deblockade: "linked by road with one of the zones: B to F") each step of the
    chain must also follow a road (main or side road, not a railway) or join two hexes of
    the same city (whose hexes are linked by a main route: TERRAIN INFLUENCE note), and a
    road over a river needs its bridge standing (14.0, K64)."""
    link = state.setup.victory_rules.get("link")
    if not link:
        return False
    side = str(link["side"])
    enemy_held = {u.hex for u in state.on_map(state.setup.enemy_of(side))}
    m = state.setup.map
    grid = m.grid
    by_road = link.get("by") == "road"
    standing = intact_bridges(state) if by_road else frozenset()

    def ok(h: HexId) -> bool:
        return state.control.get(h) == side and h not in enemy_held

    def step(a: HexId, b: HexId) -> bool:
        if not by_road:
            return True
        if m.names.get(a) is not None and m.names.get(a) == m.names.get(b):
            return m.terrain_of(a) in TOWNS and m.terrain_of(b) in TOWNS
        if not (m.road_kinds(a, b) & ROAD_KINDS):
            return False
        return not (m.features(a, b) & WATER) or hexside(a, b) in standing

    targets = set(link["to"])
    seen: set[HexId] = {h for h in link["from"] if ok(h)}
    queue: deque[HexId] = deque(seen)
    while queue:
        h = queue.popleft()
        if h in targets:
            return True
        for n in grid.neighbours(h):
            if n not in seen and ok(n) and step(h, n):
                seen.add(n)
                queue.append(n)
    return False


ROAD_KINDS = frozenset({"main", "side"})  # "by road": not the railway
TOWNS = frozenset({"city", "town"})
WATER = frozenset({"stream", "river", "big-river"})  # crossed by a road on its bridge


def kursk_vp(state: GameState) -> dict[str, int]:
    """Kursk's other VPs: `unit_vp` per enemy unit eliminated ("each Soviet unit eliminated:
    1 VP") and `entered` groups of enemy units that have come onto the map ("each STAWKA
    reserve corps/army entered: 3 VPs"; a unit that is or was on the map has entered)."""
    rules = state.setup.victory_rules
    out = {s: 0 for s in state.setup.sides}
    per_unit = int(rules.get("unit_vp", 0))
    if per_unit:
        for u in state.units.values():
            if u.eliminated:
                out[state.setup.enemy_of(u.side)] += per_unit
    for g in rules.get("entered", []):
        if any(
            state.units[x].hex is not None or state.units[x].eliminated
            for x in g["units"]
            if x in state.units
        ):
            out[str(g["side"])] += int(g["vp"])
    return out


MOVE_EVENTS = ("moved", "reinforcement_entered", "retreated", "pursued")  # pursuit: advances too


def river_vp(state: GameState) -> dict[str, int]:
    """Kursk: "crossing Sjejm river 10 VPs" -- `victory.rivers` scores once a unit of the
    side has crossed a hexside of the map's named river, and keeps it (K68)."""
    out = {s: 0 for s in state.setup.sides}
    for r in state.setup.victory_rules.get("rivers", []):
        if r["river"] in state.rivers_crossed.get(str(r["side"]), []):
            out[str(r["side"])] += int(r["vp"])
    return out


@after_input
def note_river_crossings(ctx: Ctx) -> None:
    """After every input: a scoring side's move, entry, retreat, pursuit or advance that
    crossed a hexside of a named VP river is recorded (`river_crossed`)."""
    state = ctx.state
    rivers = state.setup.victory_rules.get("rivers")
    if not rivers:
        return
    m = state.setup.map
    for e in list(ctx.events):
        if e.kind not in MOVE_EVENTS:
            continue
        side = e.data.get("side")
        if side is None and e.data.get("unit") in state.units:
            side = state.units[str(e.data["unit"])].side
        path = [str(h) for h in e.data.get("path", []) or []]
        steps = {hexside(a, b) for a, b in pairwise(path)}
        for r in rivers:
            name = str(r["river"])
            if r["side"] != side or name in state.rivers_crossed.get(str(side), []):
                continue
            if steps & m.rivers.get(name, frozenset()):
                unit = e.data.get("unit")
                ctx.emit("river_crossed", side=side, river=name, unit=unit, vp=r["vp"])


@on("river_crossed")
def _river_crossed(state: GameState, e: Event) -> None:
    side = str(e.data["side"])
    state.rivers_crossed[side] = sorted({*state.rivers_crossed.get(side, []), e.data["river"]})


def _holds_all(state: GameState, side: str, hexes: list[str]) -> bool:
    return bool(hexes) and all(state.control.get(h) == side for h in hexes)


def _level_met(state: GameState, level: dict[str, Any], vp: dict[str, int]) -> bool:
    side = str(level["side"])
    if level.get("vp") is not None and vp[side] < int(level["vp"]):
        return False
    if level.get("holds_all") is not None and not _holds_all(state, side, level["holds_all"]):
        return False
    return not (level.get("linked") and not linked(state))


def victory_standing(state: GameState) -> dict[str, Any]:
    """The standing now: VPs (cities + CELs), the link, and which levels are met."""
    rules = state.setup.victory_rules
    city = city_points(state)
    cel = cels_destroyed(state)
    per_cel = int(rules.get("cel_vp", 0))
    vp = {s: city[s] + per_cel * cel[s] for s in state.setup.sides}
    extra = kursk_vp(state)
    for s, n in river_vp(state).items():
        extra[s] += n
    for s, n in extra.items():
        vp[s] += n
    for s, n in (rules.get("handicap") or {}).items():  # a VP bid paid (K134)
        vp[s] -= int(n)
    levels = [
        {
            "side": lv["side"],
            "result": lv["result"],
            "when": "at any moment" if lv.get("at_any_moment") else "at the end",
            "met": _level_met(state, lv, vp),
        }
        for lv in rules.get("levels", [])
    ]
    out: dict[str, Any] = {"vp": vp, "city_vp": city, "cels_destroyed": cel, "levels": levels}
    if rules.get("unit_vp") or rules.get("entered") or rules.get("rivers"):
        out["other_vp"] = extra
    if rules.get("link"):
        out["linked"] = linked(state)
    return out


def automatic_victory(state: GameState) -> dict[str, Any] | None:
    """The first "at any moment" level met now, if any."""
    standing = victory_standing(state)
    for lv in state.setup.victory_rules.get("levels", []):
        if lv.get("at_any_moment") and _level_met(state, lv, standing["vp"]):
            return {"winner": lv["side"], "result": lv["result"]}
    return None


def final_result(state: GameState) -> dict[str, Any]:
    """The result at the end of the game: the first level met (automatic ones included),
    else `otherwise` ("more VPs": the side with more VPs, equal VPs a draw)."""
    rules = state.setup.victory_rules
    standing = victory_standing(state)
    vp = standing["vp"]
    out: dict[str, Any] = {"vp": vp, "standing": standing}
    for lv in rules.get("levels", []):
        if _level_met(state, lv, vp):
            out.update(winner=lv["side"], outcome=lv["result"])
            return out
    otherwise = str(rules.get("otherwise", ""))
    if otherwise == "more VPs" or not otherwise:
        ranked = sorted(vp.items(), key=lambda kv: -kv[1])
        if len(ranked) > 1 and ranked[0][1] > ranked[1][1]:
            out.update(winner=ranked[0][0], outcome=f"{ranked[0][0]} victory on VPs")
        else:
            out.update(winner=None, outcome="draw")
    elif otherwise == "draw":
        out.update(winner=None, outcome="draw")
    else:
        winner = next((s for s in state.setup.sides if otherwise.startswith(s)), None)
        out.update(winner=winner, outcome=otherwise)
    return out


def check_automatic(ctx: Ctx) -> None:
    """ "At any moment" (Korsuń option I: 13 VPs; Deblockade: Korsuń captured): checked
    after every input (engine.wb95.game), the game ends at once."""
    state = ctx.state
    if state.over or not state.setup.victory_rules.get("levels"):
        return
    won = automatic_victory(state)
    if won is not None:
        flow.end_game(ctx, f"automatic victory: {won['result']}")


# --- The Retreat: withdrawing through the southern zones --------------------------------
def escape_hexes(state: GameState, side: str) -> dict[HexId, str]:
    """`special.withdrawal_zones: {side, zones}` (The Retreat: "German Player can withdraw
    units through one of the zones on the southern edge"): zone hex -> zone name."""
    spec = state.setup.special.get("withdrawal_zones")
    if not isinstance(spec, dict) or spec.get("side") != side:
        return {}
    zones = state.setup.map.zones
    return {h: str(z) for z in spec.get("zones", ()) for h in zones.get(str(z), ())}


def withdraw_through_zones(ctx: Ctx, side: str, refs: tuple[str, ...]) -> bool:
    """`withdraw UNIT ...` in the side's own Movement Phase, for units standing in a
    withdrawal zone: they leave the map for good and are saved (their CELs are not
    destroyed). False when the scenario has no such zones for the side."""
    from engine.wb95.units import find_unit

    state = ctx.state
    hexes = escape_hexes(state, side)
    if not hexes:
        return False
    ph = flow.current_phase(state)
    if ph.kind != "movement" or side not in flow.acting_sides(state):
        raise Rejected("units withdraw through the zones in their own Movement Phase", "scenario")
    units = [find_unit(state, r) for r in refs]
    for u in units:
        if u.side != side:
            raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
        if u.hex not in hexes:
            names = ", ".join(sorted(set(hexes.values())))
            raise Rejected(
                f"{u.id} is not in a withdrawal zone ({names}); move it there first", "scenario"
            )
    for u in units:
        ctx.emit(
            "withdrawn",
            side=side,
            unit=u.id,
            hex=u.hex,
            reason=f"withdrawn through zone {hexes[str(u.hex)]}",
            rule="scenario",
        )
    return True
