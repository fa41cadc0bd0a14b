"""Kursk 1943 game rules run in the German Supply Phase: 17.0 Armor Repair, 18.0 Losses on
mines and 22.0 Panther tanks. Each is active when the game's data has it
(`Setup.rules`, from `scenarios/tables/kursk-rules.yaml`); a scenario names its fronts
(`special: {fronts: {north: {}}}`, 17.1.1, 18.1.2). 19.0 is `fortified_lines.py`; 20.0 is
the Kursk terrain table's `ff_cms` (R15); 21.0 belongs to the air rules (8.0).

Activity (18.1.3, 22.1.1). What each unit of the side that rolls did since that side's
last Supply Phase is kept in `GameState.activity` (`unit_activity` events, written after
every input from its events): "moved" (a move, entry, retreat or pursuit), "attacked" (an
attacker in a combat) and "fortified-line" (it crossed a fortified-line hexside of the
enemy's). It is cleared as that Supply Phase's steps end.

The Supply Phase steps of the rolling side (after R9 and hex control, `flow.supply_step`,
docs/rulings.md K56), in this order:

1. Repair counters placed in its previous Supply Phase pay off (17.1.2): a unit that kept
   its counter regains 1 CEL (`repaired`). A counter is lost (`repair_spoiled`) as soon
   as its unit moves, fights, is fired at, leaves the map or stands in enemy ZoC; this is
   checked after every input and as every phase ends (K58).
2. Mines (18.1): on the days of the rule (5-11 July) the front's dice are rolled (4K6
   north, 6K6 south); each 1-3 costs one CEL of a unit of that front that attacked or
   crossed a fortified line since the last Supply Phase; the owner chooses which (a
   `losses` decision, answered with `losses UNIT ...`) unless only one choice exists
   (K59).
3. Panther breakdown (22.1): each such unit that moved or attacked rolls 1K6; 1-3 costs
   it one CEL. After the mine losses.
4. Repair counters are placed (17.1.2): a `repair` decision -- `repair UNIT ...` (one per
   front) or `repair none` -- opens when a counter can go on a supplied armoured unit of
   its front that has lost a CEL, is not in enemy ZoC and has no Panthers or Ferdinands
   (17.1.3); the phase waits for the answer (K56).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95 import flow
from engine.wb95.dispatch import after_input, handles
from engine.wb95.fortified_lines import crosses_line
from engine.wb95.reducer import on
from engine.wb95.results import lose_cel
from engine.wb95.stacking import STACK_LIMIT, stack_cels
from engine.wb95.units import find_unit
from engine.wb95.zoc import zoc_map

MOVED = "moved"
ATTACKED = "attacked"
CROSSED = "fortified-line"
MOVE_EVENTS = ("moved", "reinforcement_entered", "retreated", "pursued")


# --- fronts (17.1.1, 18.1.2) ---------------------------------------------------------------


def front_of(state: GameState, h: HexId | None) -> str | None:
    """The scenario's front whose area holds hex `h` (the first listed)."""
    if h is None:
        return None
    for f in state.setup.scenario_rules.fronts:
        if f.area.contains(h):
            return f.name
    return None


def tracked_side(state: GameState) -> str | None:
    """The side whose activity counts for mines and breakdowns (the Germans)."""
    rules = state.setup.rules
    for r in (rules.mines, rules.breakdown):
        if r is not None:
            return r.side
    return None


# --- activity (18.1.3, 22.1.1) ----------------------------------------------------------------


@after_input
def record_activity(ctx: Ctx) -> None:
    """Note what the tracked side's units did in this input's events (from its last
    `activity_cleared` on), and check the Repair counters (17.1.2)."""
    state = ctx.state
    side = tracked_side(state)
    if side is not None:
        found = _activity(state, side, ctx.events)
        if found:
            ctx.emit(
                "unit_activity",
                side=side,
                moved=sorted(u for u, k in found.items() if MOVED in k),
                attacked=sorted(u for u, k in found.items() if ATTACKED in k),
                fortified_line=sorted(u for u, k in found.items() if CROSSED in k),
            )
    check_repairs(ctx, _fired_at(ctx.events))


def _fired_at(events: Iterable[Event]) -> set[tuple[str, HexId]]:
    """(firing side, hex) of the fire of this input -- artillery, barrage, air attack
    (`fire_resolved`) -- at units in a hex (17.1.2: "is attacked")."""
    return {
        (str(e.data["side"]), str(e.data["target"]))
        for e in events
        if e.kind == "fire_resolved" and e.data.get("mode") != "object"
    }


def _activity(state: GameState, side: str, events: Iterable[Event]) -> dict[str, set[str]]:
    owner = state.setup.rules.fortified_line.owner if state.setup.rules.fortified_line else None
    found: dict[str, set[str]] = {}
    for e in events:
        d = e.data
        if e.kind == "activity_cleared":
            found = {}
        elif e.kind in MOVE_EVENTS and d.get("side") == side:
            kinds = found.setdefault(str(d["unit"]), set())
            kinds.add(MOVED)
            path = list(d.get("path", []))
            if owner is not None and owner != side and _crosses(state, path):
                kinds.add(CROSSED)
        elif e.kind == "combat_resolved" and d.get("attacker") == side:
            for line in d["attackers"]:
                found.setdefault(str(line["unit"]), set()).add(ATTACKED)
    new: dict[str, set[str]] = {}
    for uid, kinds in found.items():
        more = kinds - set(state.activity.get(uid, []))
        if more:
            new[uid] = more
    return new


def _crosses(state: GameState, path: list[HexId]) -> bool:
    return any(crosses_line(state, a, b) for a, b in pairwise(path))


def activated(state: GameState, uid: str, kinds: Iterable[str]) -> bool:
    return bool(set(state.activity.get(uid, [])) & set(kinds))


# --- 17.0 repair ------------------------------------------------------------------------------


@flow.at_phase_end
def _repairs_at_phase_end(ctx: Ctx) -> None:
    check_repairs(ctx)


def check_repairs(ctx: Ctx, fired: set[tuple[str, HexId]] | None = None) -> None:
    """17.1.2: a Repair counter is lost when its unit is activated or in enemy ZoC.
    `fired`: the (side, hex) fired at in the input just made."""
    state = ctx.state
    if not state.repairs:
        return
    zocs: dict[str, dict[HexId, set[str]]] = {}
    for r in list(state.repairs):
        u = state.units[r["unit"]]
        why = _spoiled(state, u, r, zocs)
        if why is None and (state.setup.enemy_of(u.side), u.hex) in (fired or set()):
            why = "it was fired at"
        if why is not None:
            ctx.emit(
                "repair_spoiled",
                side=u.side,
                unit=u.id,
                front=r["front"],
                reason=why,
                rule="17.1.2",
                ruling="K58",
            )


def _spoiled(
    state: GameState, u: UnitState, r: dict[str, Any], zocs: dict[str, dict[HexId, set[str]]]
) -> str | None:
    if not u.on_map:
        return "it is no longer on the map"
    if u.hex != r["hex"] or u.moved:
        return "it moved"
    if u.fought:
        return "it fought"
    if u.shelled_at is not None and u.shelled_at >= (r["turn"], r["phase"]):
        return "it was fired at"
    enemy = state.setup.enemy_of(u.side)
    if enemy not in zocs:
        zocs[enemy] = zoc_map(state, enemy)
    if zocs[enemy].get(u.hex or ""):
        return "it is in enemy ZoC"
    return None


def _repair_applies(state: GameState, side: str) -> bool:
    r = state.setup.rules.repair
    return r is not None and r.side == side and any(x["side"] == side for x in state.repairs)


def _repair_pays(ctx: Ctx, side: str, supplied: frozenset[str]) -> None:
    """17.1.2 (2): each counter still on its unit gives it back a CEL -- never taking its
    hex over the stacking limit, which holds at the end of the Supply Phase too (3.2.1,
    docs/rulings.md K93)."""
    rule = ctx.state.setup.rules.repair
    assert rule is not None
    check_repairs(ctx)
    for r in [x for x in ctx.state.repairs if x["side"] == side]:
        u = ctx.state.units[r["unit"]]
        room = STACK_LIMIT - stack_cels(ctx.state, side).get(u.hex or "", 0)
        cels = max(0, min(rule.cels, u.max_cel - u.cel, room))
        ctx.emit(
            "repaired", side=side, unit=u.id, front=r["front"], hex=u.hex, cels=cels, rule="17.1.2"
        )


def repair_options(state: GameState, side: str, supplied: frozenset[str]) -> dict[str, list[str]]:
    """17.1.2 (1), 17.1.3: for each front, the units a Repair counter may go on now."""
    rule = state.setup.rules.repair
    if rule is None or rule.side != side:
        return {}
    enemy_zoc = zoc_map(state, state.setup.enemy_of(side))
    out: dict[str, list[str]] = {}
    for f in state.setup.scenario_rules.fronts:
        here = [
            u.id
            for u in state.on_map(side)
            if front_of(state, u.hex) == f.name
            and _repairable(state, u, supplied, enemy_zoc) is None
        ]
        if here:
            out[f.name] = sorted(here)
    return out


def _repairable(
    state: GameState, u: UnitState, supplied: frozenset[str], enemy_zoc: dict[HexId, set[str]]
) -> str | None:
    """Why a Repair counter cannot go on `u`, or None."""
    rule = state.setup.rules.repair
    assert rule is not None
    spec = state.setup.units[u.id]
    if spec.type not in rule.types:
        return "it is not an armoured unit"
    if spec.equipment in rule.excluded:
        return f"units with {spec.equipment.title()}s cannot be repaired (17.1.3)"
    if u.cel >= u.max_cel:
        return "it has lost no CEL"
    if u.id not in supplied:
        return "it is not supplied"
    if enemy_zoc.get(u.hex or ""):
        return "it is in enemy ZoC"
    return None


def _repair_place_applies(state: GameState, side: str) -> bool:
    r = state.setup.rules.repair
    return r is not None and r.side == side and bool(state.setup.scenario_rules.fronts)


def _repair_place(ctx: Ctx, side: str, supplied: frozenset[str]) -> None:
    rule = ctx.state.setup.rules.repair
    assert rule is not None
    options = repair_options(ctx.state, side, supplied)
    if not options:
        return
    ctx.emit(
        "decision_opened",
        side=side,
        decision="repair",
        options={"fronts": options, "counters": rule.counters, "supplied": sorted(supplied)},
        rule="17.1.2",
        info={},
    )


@handles(o.Repair)
def do_repair(ctx: Ctx, side: str, order: o.Repair) -> None:
    """Answer the Repair decision: a counter on each unit named, at most the front's
    counters per front (17.1.1, 17.1.2); `repair none` places none."""
    state = ctx.state
    d = next((d for d in state.pending if d.side == side and d.kind == "repair"), None)
    if d is None:
        raise Rejected(
            "Repair counters are placed in your Supply Phase, when it asks for them", "17.1.2"
        )
    fronts: dict[str, list[str]] = d.options["fronts"]
    per_front = int(d.options["counters"])
    supplied = frozenset(d.options["supplied"])
    enemy_zoc = zoc_map(state, state.setup.enemy_of(side))
    placed: dict[str, list[str]] = {}
    for ref in order.units:
        u = find_unit(state, ref)
        if u.side != side:
            raise Rejected(f"{u.id} is not yours", "17.1.2")
        front = next((f for f, us in fronts.items() if u.id in us), None)
        if front is None:
            why = _repairable(state, u, supplied, enemy_zoc) if u.on_map else "not on the map"
            raise Rejected(
                f"a Repair counter cannot go on {u.id}: {why or 'no counter of its front'}; "
                f"choose among {', '.join(x for us in fronts.values() for x in us)}",
                "17.1.2",
            )
        if u.id in placed.get(front, []):
            raise Rejected(f"{u.id} is named twice", "17.1.2")
        placed.setdefault(front, []).append(u.id)
        if len(placed[front]) > per_front:
            raise Rejected(
                f"the {front} front has {per_front} Repair counter(s): name at most "
                f"{per_front} unit(s) of it",
                "17.1.1",
            )
    ctx.emit("decision_closed", side=side, decision="repair")
    for front, units in placed.items():
        for uid in units:
            u = ctx.state.units[uid]
            ctx.emit(
                "repair_placed",
                side=side,
                unit=uid,
                front=front,
                hex=u.hex,
                turn=ctx.state.turn,
                phase=ctx.state.phase,
                rule="17.1.2",
            )


# --- 18.0 mines -------------------------------------------------------------------------------


def _mines_applies(state: GameState, side: str) -> bool:
    r = state.setup.rules.mines
    if r is None or r.side != side or not state.setup.scenario_rules.fronts:
        return False
    date = state.setup.date_of(state.turn)
    return date is not None and r.first <= date <= r.last


def _mines(ctx: Ctx, side: str, supplied: frozenset[str]) -> None:
    """18.1.2-18.1.4: each front's dice; each hit costs a CEL of that front's activated
    units (those that attacked or crossed a fortified line), chosen by the owner."""
    rule = ctx.state.setup.rules.mines
    assert rule is not None
    for f in ctx.state.setup.scenario_rules.fronts:
        n = rule.dice.get(f.name, 0)
        if n <= 0:
            continue
        faces = ctx.roll(n, f"mines on the {f.name} front (18.1.2)", front=f.name)
        hits = sum(1 for x in faces if x in rule.hits)
        state = ctx.state
        units = [
            u
            for u in state.on_map(side)
            if front_of(state, u.hex) == f.name and activated(state, u.id, (ATTACKED, CROSSED))
        ]
        ctx.emit(
            "mines",
            side=side,
            front=f.name,
            faces=faces,
            hits=hits,
            units=[u.id for u in units],
            note=f"{hits} hit(s) on 1-3"
            + ("" if units or not hits else ": no unit attacked or crossed a fortified line"),
            rule="18.1.3",
        )
        take_losses(ctx, side, units, hits, f"mines on the {f.name} front", "18.1.3")


def take_losses(
    ctx: Ctx, side: str, units: list[UnitState], count: int, cause: str, rule: str
) -> None:
    """`count` CELs from `units`, chosen by their owner (a `losses` decision, answered
    with `losses UNIT ...`), or taken at once when there is only one way (DESIGN §4)."""
    if count <= 0 or not units:
        return
    cels = {u.id: u.cel for u in units}
    if len(units) == 1 or sum(cels.values()) <= count:
        left = count
        for u in units:
            for _ in range(min(left, cels[u.id])):
                lose_cel(ctx, u.id, f"{cause} (automatic: the only choice)", rule)
            left -= min(left, cels[u.id])
        return
    ctx.emit(
        "decision_opened",
        side=side,
        decision="losses",
        options={"count": count, "units": cels, "must_include": []},
        rule=rule,
        info={"who": side, "cause": cause},
    )


# --- 22.0 Panther breakdown -----------------------------------------------------------------


def _breakdown_applies(state: GameState, side: str) -> bool:
    r = state.setup.rules.breakdown
    if r is None or r.side != side:
        return False
    return any(s.side == side and s.equipment == r.equipment for s in state.setup.units.values())


def _breakdown(ctx: Ctx, side: str, supplied: frozenset[str]) -> None:
    """22.1.1, 22.1.2: one die for each unit with Panthers that moved or attacked."""
    rule = ctx.state.setup.rules.breakdown
    assert rule is not None
    for uid in list(ctx.state.units):
        u = ctx.state.units[uid]
        spec = ctx.state.setup.units[uid]
        if u.side != side or not u.on_map or spec.equipment != rule.equipment:
            continue
        if not activated(ctx.state, uid, (MOVED, ATTACKED)):
            continue
        (face,) = ctx.roll(1, f"{rule.equipment} breakdown (22.1.1)", unit=uid, side=side)
        lost = face in rule.hits
        ctx.emit("breakdown_roll", side=side, unit=uid, face=face, lost=lost, rule="22.1.1")
        if lost:
            lose_cel(ctx, uid, f"{rule.equipment} breakdown", "22.1.1")


def _clear_applies(state: GameState, side: str) -> bool:
    return tracked_side(state) == side and bool(state.activity)


def _clear(ctx: Ctx, side: str, supplied: frozenset[str]) -> None:
    ctx.emit("activity_cleared", side=side)


# The German Supply Phase, in order (module docstring).
flow.supply_step(flow.SupplyStep("repair-pays", _repair_applies, _repair_pays))
flow.supply_step(flow.SupplyStep("mines", _mines_applies, _mines))
flow.supply_step(flow.SupplyStep("breakdown", _breakdown_applies, _breakdown))
flow.supply_step(flow.SupplyStep("repair-placed", _repair_place_applies, _repair_place))
flow.supply_step(flow.SupplyStep("activity-cleared", _clear_applies, _clear))


# --- events ------------------------------------------------------------------------------------


@on("unit_activity")
def _unit_activity(state: GameState, e: Event) -> None:
    for key, kind in (("moved", MOVED), ("attacked", ATTACKED), ("fortified_line", CROSSED)):
        for uid in e.data[key]:
            state.activity[uid] = sorted({*state.activity.get(uid, []), kind})


@on("activity_cleared")
def _activity_cleared(state: GameState, e: Event) -> None:
    state.activity = {}


@on("repair_placed")
def _repair_placed(state: GameState, e: Event) -> None:
    d = e.data
    state.repairs.append(
        {
            "side": d["side"],
            "front": d["front"],
            "unit": d["unit"],
            "hex": d["hex"],
            "turn": d["turn"],
            "phase": d["phase"],
        }
    )


def _drop_repair(state: GameState, unit: str) -> None:
    state.repairs = [r for r in state.repairs if r["unit"] != unit]


@on("repair_spoiled")
def _repair_spoiled(state: GameState, e: Event) -> None:
    _drop_repair(state, e.data["unit"])


@on("repaired")
def _repaired(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.cel = min(u.max_cel, u.cel + int(e.data["cels"]))
    _drop_repair(state, u.id)


@on("mines")
def _mines_report(state: GameState, e: Event) -> None:
    """Reports the roll; the CELs follow as `cel_lost` events or a `losses` decision."""


@on("breakdown_roll")
def _breakdown_report(state: GameState, e: Event) -> None:
    """Reports the roll; a loss follows as `cel_lost`."""
