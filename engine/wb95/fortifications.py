"""7.0 Fortifications: building field fortifications (7.1). The markers themselves -- where
they lie, who is in them, when they go -- are kept by `engine.wb95.fortification_markers`;
improved fortifications (7.2) are placed by the scenario, under the units that start in
them (`fortification: if`), or by a side in the scenario's set-up step (`place-if HEX ...`,
then `done`: K85).

`fortify UNITS` in the side's Movement Phase (2.2 phase 3, 7.1.2): each named unit must be
a regular unit (docs/rulings.md K20) that has not moved or spent MPs in this phase
and is not marked for strategic movement (7.1.2 a, 7.1.4), in a hex that is not swamp
(7.1.8), not on a fixed position (7.1.9, K21) and not already fortified. A unit that
retreated since its side's last Movement Phase cannot build (5.3.10, 7.1.2 b, K22),
unless it is in enemy ZoC and cannot leave it (7.1.3). Building costs all the unit's MPs
(7.1.4): it does not move again in this phase. The FF marker is in the hex from the order
on, under all the side's units there (7.1.1, K21).
"""

from __future__ import annotations

from fractions import Fraction

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId
from engine.model import MapData
from engine.state import GameState, UnitState
from engine.wb95 import dispatch, flow
from engine.wb95.dispatch import handles
from engine.wb95.fortification_markers import FF, NAMES, marker_at, place
from engine.wb95.movement import available_mp, can_move, reachable
from engine.wb95.reducer import on
from engine.wb95.regular import is_regular, not_regular_why
from engine.wb95.sequence import PHASES
from engine.wb95.units import Why, own_units
from engine.wb95.zoc import in_enemy_zoc

FIXED_POSITION = "fixed-position"
COMBAT_PHASES = tuple(i for i, ph in enumerate(PHASES) if ph.kind == "combat")


def fixed_position_hex(m: MapData, h: HexId) -> bool:
    """A hex on a fixed position: one of its hexsides carries the FP line (7.1.9, 7.3.1,
    K21)."""
    return any(FIXED_POSITION in m.features(h, n) for n in m.grid.neighbours(h))


def retreated_since_last_movement(state: GameState, u: UnitState) -> bool:
    """5.3.10 / 7.1.2 b (K22): in its side's Movement Phase, whether the unit retreated
    after its side's previous Movement Phase (exactly one turn of 12 phases ago). Without a
    recorded phase the retreat is taken as in the later Combat Phase of its turn."""
    if u.retreated_turn is None:
        return False
    phase = u.retreated_phase
    if phase is None:
        before_now = [i for i in COMBAT_PHASES if u.retreated_turn < state.turn or i < state.phase]
        phase = max(before_now or COMBAT_PHASES)
    n = len(PHASES)
    since = (u.retreated_turn - state.turn) * n + (phase - state.phase)
    return since > -n


def unable_to_leave_zoc(state: GameState, u: UnitState) -> bool:
    """7.1.3 (K22): the unit is in enemy ZoC and no hex it could move to in this phase
    is free of enemy ZoC."""
    if not in_enemy_zoc(state, u):
        return False
    if can_move(state, u) is not None:
        return True
    return all(r.stops for r in reachable(state, u).values())


def can_fortify(state: GameState, u: UnitState) -> Why | None:
    """Why `u` cannot build field fortifications now, or None."""
    spec = state.setup.units[u.id]
    m = state.setup.map
    assert u.hex is not None
    if not is_regular(spec):
        return (f"only regular units build them, and {not_regular_why(spec)}", "7.1.2")
    if u.moved:
        return ("it has moved in this phase; the unit that builds does not move", "7.1.2")
    if u.mp_spent > 0:
        return ("it has spent MPs in this phase; building costs all of them", "7.1.4")
    if u.strategic:
        return ("it is marked for strategic movement", "12.1.2")
    marker = marker_at(state, u.hex)
    if marker is not None:
        return (f"{m.label(u.hex)} already has {NAMES[marker['kind']]}", "7.1.1")
    if m.terrain_of(u.hex) == "swamp":
        return (f"{m.label(u.hex)} is swamp", "7.1.8")
    if fixed_position_hex(m, u.hex):
        return (f"{m.label(u.hex)} is on a fixed position", "7.1.9")
    if retreated_since_last_movement(state, u) and not unable_to_leave_zoc(state, u):
        return (
            "it retreated after its side's last Movement Phase and is not held in enemy ZoC "
            "(7.1.2 b, 7.1.3)",
            "5.3.10",
        )
    return None


@handles(o.Fortify)
def do_fortify(ctx: Ctx, side: str, order: o.Fortify) -> None:
    """Build field fortifications (7.1): one marker per hex, the builders spend all MPs."""
    state = ctx.state
    if flow.current_phase(state).kind != "movement":
        raise Rejected(
            "field fortifications are built in the Movement Phase; "
            f"it is {flow.phase_title(state)}",
            "7.1.2",
        )
    units = own_units(
        state, side, order.units, lambda u: can_fortify(state, u), "build field fortifications"
    )
    by_hex: dict[HexId, list[UnitState]] = {}
    for u in units:
        assert u.hex is not None
        by_hex.setdefault(u.hex, []).append(u)
    for h, builders in by_hex.items():
        ctx.emit(
            "fortified",
            side=side,
            hex=h,
            fortification=FF,
            units=[u.id for u in builders],
            mp={u.id: str(available_mp(state, u)) for u in builders},
            turn=state.turn,
            rule="7.1.4",
        )


@on("fortified")
def _fortified(state: GameState, e: Event) -> None:
    place(state, e.data["hex"], e.data["side"], e.data["fortification"])
    for uid in e.data["units"]:
        u = state.units[uid]
        u.ff_built_turn = int(e.data["turn"])
        u.mp_spent = Fraction(e.data["mp"][uid])


# --- 7.2.1: the set-up placement of improved fortifications ---------------------------------
PLACE_IF = "place-if"


def if_allowance(state: GameState) -> tuple[str, int] | None:
    """(side, count) when the scenario lets a side place its improved fortifications in a
    set-up step: `special.improved_fortifications` with a count and no hexes written into
    the file (Korsuń 1944: "German Player can freely place 30 counters of Improved
    Fortifications on the map"; K65, K85)."""
    raw = state.setup.special.get("improved_fortifications")
    if not isinstance(raw, dict) or raw.get("hexes"):
        return None
    count = raw.get("count", 0)
    if not isinstance(count, int) or count <= 0:
        return None
    return str(raw["side"]), count


def if_placement_hexes(state: GameState, side: str) -> list[HexId]:
    """The hexes where `side` may still put an improved fortification now: every map hex
    without an enemy unit and without an IF (one marker a hex, 7.2.1, K85); empty when no
    placement step is open for the side."""
    if not any(d.side == side and d.kind == PLACE_IF for d in state.pending):
        return []
    enemy = {u.hex for u in state.on_map(state.setup.enemy_of(side))}
    return [
        h
        for h in state.setup.map.grid.all_hexes()
        if h not in enemy and (marker_at(state, h) or {}).get("kind") != "if"
    ]


@dispatch.at_game_start
def _open_if_placement(ctx: Ctx) -> None:
    allowed = if_allowance(ctx.state)
    if allowed is None:
        return
    side, count = allowed
    ctx.emit(
        "decision_opened",
        side=side,
        decision=PLACE_IF,
        options={"count": count, "left": count},
        rule="7.2.1",
        info={"placed": []},
    )


@handles(o.PlaceIf)
def do_place_if(ctx: Ctx, side: str, order: o.PlaceIf) -> None:
    """`place-if HEX ...`: improved fortification markers, one per hex, on map hexes
    without an enemy unit, at most the scenario's count (7.2.1, K65, K85). Placed markers
    are on the map for both sides to see; the side's units in the hex are in the IF."""
    state = ctx.state
    d = next((d for d in state.pending if d.side == side and d.kind == PLACE_IF), None)
    if d is None:
        raise Rejected(
            "improved fortifications are placed only in the scenario's set-up step, before "
            "play begins",
            "7.2.1",
            "K85",
        )
    grid = state.setup.map.grid
    enemy = {u.hex for u in state.on_map(state.setup.enemy_of(side))}
    placed: list[str] = list(d.info.get("placed", []))
    left = int(d.options["left"])
    if len(order.hexes) > left:
        raise Rejected(
            f"only {left} improved fortification marker(s) left to place, not {len(order.hexes)}",
            "7.2.1",
            "K85",
        )
    seen: set[str] = set()
    for h in order.hexes:
        if not grid.contains(h):
            raise Rejected(f"{h} is not on the map", "7.2.1", "K85")
        if h in seen or h in placed or (marker_at(state, h) or {}).get("kind") == "if":
            raise Rejected(
                f"{h} already has an improved fortification: one marker a hex", "7.2.1", "K85"
            )
        if h in enemy:
            raise Rejected(
                f"{h} holds an enemy unit: an improved fortification goes in your own or an "
                "empty hex",
                "7.2.1",
                "K85",
            )
        seen.add(h)
    for h in order.hexes:
        ctx.emit("improved_fortification_placed", side=side, hex=h, rule="7.2.1")
    placed += order.hexes
    left -= len(order.hexes)
    ctx.emit("decision_closed", side=side, decision=PLACE_IF)  # re-opened with what is left
    if left > 0:
        ctx.emit(
            "decision_opened",
            side=side,
            decision=PLACE_IF,
            options={"count": int(d.options["count"]), "left": left},
            rule="7.2.1",
            info={"placed": placed},
        )
    else:
        ctx.emit("if_placement_done", side=side, placed=len(placed), left=0, rule="7.2.1")


def _place_if_done(ctx: Ctx, side: str, order: o.Done) -> None:
    """`done` in the placement step: the markers not placed are not used (K85)."""
    d = next(d for d in ctx.state.pending if d.side == side and d.kind == PLACE_IF)
    ctx.emit("decision_closed", side=side, decision=PLACE_IF)
    ctx.emit(
        "if_placement_done",
        side=side,
        placed=len(d.info.get("placed", [])),
        left=int(d.options["left"]),
        rule="7.2.1",
    )


dispatch.DECISION_DONE[PLACE_IF] = _place_if_done


@on("improved_fortification_placed")
def _improved_fortification_placed(state: GameState, e: Event) -> None:
    place(state, e.data["hex"], e.data["side"], "if")


@on("if_placement_done")
def _if_placement_done(state: GameState, e: Event) -> None:
    """A report: the set-up step is over (the decision was closed by its own event)."""
