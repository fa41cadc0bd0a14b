"""7.0 Fortifications: building field fortifications (7.1). The markers themselves -- where
they lie, who is in them, when they go -- are kept by `engine.wb95.fortification_markers`;
improved fortifications (7.2) are only placed by the scenario, under the units that start
in them (`fortification: if`).

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
from engine.wb95 import flow
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
