"""5.6.5 Recovering from disorganization (R22).

A disorganized unit recovers exactly one full turn after it became disorganized -- at the
end of the same phase of the next turn (5.6.5 example b) -- if in between it did not
move, attack, fire, support or get attacked. Activity restarts the count from the phase
of the activity (`UnitState.mark_active`, K36); a unit that starts the scenario
disorganized counts from the start. (Becoming disorganized is in `results.py`, 5.6.1-5.6.3.)
"""

from __future__ import annotations

from engine.core import Ctx, Event
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.reducer import on


@flow.at_phase_end
def recover(ctx: Ctx) -> None:
    s = ctx.state
    for u in sorted(s.units.values(), key=lambda x: x.id):
        if not u.disorganized or u.eliminated or u.disorganized_at is None:
            continue
        if u.disorganized_at != (s.turn - 1, s.phase):
            continue
        ctx.emit("recovered", unit=u.id, hex=u.hex, rule="5.6.5", ruling="R22")


@on("recovered")
def _recovered(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.disorganized = False
    u.disorganized_at = None
    u.active_since_disorg = False
