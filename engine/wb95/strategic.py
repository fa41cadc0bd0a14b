"""12.0 Strategic movement.

In its Movement Phase a side marks units for strategic movement (`strategic UNITS`, 2.2
phase 3, 12.1.4; `strategic UNITS full` also marks out-of-supply units that have MPs only
if they pay a level for their full MPs, which they pay with `move ... full`, K82) instead
of moving them: units that have not moved or built fortifications
in that phase (12.1.2) and are not in enemy ZoC (12.2.1). A marked unit cannot move in the
Movement Phase (`movement.can_move`). It may fight in the Combat Phase that follows, but
then loses its marker as that phase ends (12.1.2, docs/rulings.md K25). In the
side's Strategic Movement Phase the marked units move with `move` under every movement rule
(12.1.3), with 2 MPs less (12.2.3), not from or into enemy ZoC (12.2.1, 12.2.2); the
movement code does this. All markers are removed as that phase ends.

Between marking and moving, the enemy has no Combat Phase, so a marked unit is never
attacked while marked; where enemy units end up next to it, 12.2.1 keeps it where it is.
"""

from __future__ import annotations

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.state import GameState, UnitState
from engine.wb95 import flow
from engine.wb95.dispatch import handles
from engine.wb95.movement import available_mp, can_move, fmt_mp
from engine.wb95.reducer import on
from engine.wb95.units import Why, own_units
from engine.wb95.zoc import in_enemy_zoc


def can_mark(state: GameState, u: UnitState, full: bool = False) -> Why | None:
    """Why `u` cannot be marked for strategic movement now, or None. `full`: an
    out-of-supply unit counts its full MPs, for which it pays a level when it moves
    (10.2.3, K43, K82)."""
    if u.strategic:
        return ("it is already marked for strategic movement", "12.1.4")
    if u.moved:
        return ("it has moved in this Movement Phase", "12.1.2")
    if u.ff_built_turn == state.turn:
        return ("it is building field fortifications in this Movement Phase", "12.1.2")
    why = can_move(state, u)
    if why is not None:
        return why
    if in_enemy_zoc(state, u):
        return ("it is in enemy ZoC", "12.2.1")
    if available_mp(state, u, strategic=True, full=full) <= 0:
        mp = available_mp(state, u, strategic=False, full=full)
        if u.oos >= 1 and not full and available_mp(state, u, strategic=True, full=True) > 0:
            return (
                f"with {fmt_mp(mp)} MP less 2 (halved: out of supply) it would have none to "
                "move with; 'strategic UNITS full' marks it to pay an OoS level for its full "
                "MPs when it moves (10.2.3)",
                "12.2.3",
            )
        return (f"with {fmt_mp(mp)} MP less 2 it would have none to move with", "12.2.3")
    return None


@handles(o.Strategic)
def do_strategic(ctx: Ctx, side: str, order: o.Strategic) -> None:
    """Mark units for strategic movement (12.1.4)."""
    state = ctx.state
    if flow.current_phase(state).kind != "movement":
        raise Rejected(
            "units are marked for strategic movement in their Movement Phase; "
            f"it is {flow.phase_title(state)}",
            "12.1.4",
        )
    units = own_units(
        state,
        side,
        order.units,
        lambda u: can_mark(state, u, order.full),
        "be marked for strategic movement",
    )
    if order.full and not any(u.oos >= 1 for u in units):
        raise Rejected(
            "none of these units is out of supply: 'full' pays an OoS level for full MPs, "
            "which supplied units have anyway",
            "10.2.3",
            "K82",
        )
    ctx.emit(
        "strategic_marked",
        side=side,
        units=[u.id for u in units],
        mp={u.id: str(available_mp(state, u, strategic=True, full=order.full)) for u in units},
        rule="12.1.4",
    )


@flow.at_phase_end
def _phase_end(ctx: Ctx) -> None:
    """12.1.2: marked units that fought lose the marker as their Combat Phase ends; every
    marker goes as the Strategic Movement Phase ends (12.1.4)."""
    state = ctx.state
    kind = flow.current_phase(state).kind
    side = flow.acting_sides(state)[0]
    marked = sorted(u.id for u in state.units.values() if u.side == side and u.strategic)
    if kind == "combat":
        fought = [uid for uid in marked if state.units[uid].fought]
        if fought:
            ctx.emit(
                "strategic_unmarked",
                side=side,
                units=fought,
                reason="it fought in the Combat Phase",
                rule="12.1.2",
            )
    elif kind == "strategic" and marked:
        ctx.emit(
            "strategic_unmarked",
            side=side,
            units=marked,
            reason="the Strategic Movement Phase is over",
            rule="12.1.4",
        )


@on("strategic_marked")
def _strategic_marked(state: GameState, e: Event) -> None:
    for uid in e.data["units"]:
        state.units[uid].strategic = True


@on("strategic_unmarked")
def _strategic_unmarked(state: GameState, e: Event) -> None:
    for uid in e.data["units"]:
        state.units[uid].strategic = False
