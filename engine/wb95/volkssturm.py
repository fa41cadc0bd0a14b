"""15.3.3-15.3.4 Volkssturm reinforcing infantry.

In its Movement Phase, a non-motorized infantry unit that shares a hex with a Volkssturm
unit may take one CEL from it, if neither moves in that phase (15.3.3); one CEL per turn
for each infantry unit (15.3.4). (The VS combat rules, 15.3.1-15.3.2, are in special.py.)
"""

from __future__ import annotations

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.dispatch import handles
from engine.wb95.reducer import on
from engine.wb95.units import own_units


@handles(o.Reinforce)
def do_reinforce(ctx: Ctx, side: str, order: o.Reinforce) -> None:
    state = ctx.state
    if flow.current_phase(state).kind != "movement":
        now = flow.phase_title(state)
        raise Rejected(f"Volkssturm reinforces in the Movement Phase; it is {now}", "15.3.3")
    named = [
        own_units(state, side, (r,), lambda u: None, "reinforce")
        for r in (order.unit, order.source)
    ]
    if any(len(n) != 1 for n in named):
        raise Rejected("name one infantry unit and one Volkssturm unit by their ids", "15.3.3")
    inf, vs = named[0][0], named[1][0]
    ispec, vspec = state.setup.units[inf.id], state.setup.units[vs.id]
    if vspec.type != "vs":
        raise Rejected(f"{vs.id} is not a Volkssturm unit", "15.3.3")
    if ispec.type != "inf" or ispec.motorized:
        raise Rejected(
            f"only non-motorized infantry takes CELs from Volkssturm; {inf.id} is not", "15.3.3"
        )
    if inf.hex != vs.hex:
        raise Rejected(f"{inf.id} and {vs.id} must be in the same hex", "15.3.3")
    if inf.cel >= inf.max_cel:
        raise Rejected(f"{inf.id} has all its CELs", "15.3.3")
    if inf.reinforced_turn == state.turn:
        raise Rejected(f"{inf.id} has already gained a CEL this turn", "15.3.4")
    for u in (inf, vs):
        if u.moved or u.mp_spent:
            raise Rejected(f"{u.id} has moved this phase: both units must stay put", "15.3.3")
    ctx.emit(
        "reinforced",
        unit=inf.id,
        source=vs.id,
        hex=inf.hex,
        source_eliminated=vs.cel <= 1,
        rule="15.3.3",
    )


@on("reinforced")
def _reinforced(state: GameState, e: Event) -> None:
    inf, vs = state.units[e.data["unit"]], state.units[e.data["source"]]
    inf.cel += 1
    inf.reinforced_turn = state.turn
    vs.cel -= 1
    if vs.cel <= 0:
        vs.cel = 0
        vs.eliminated = True
    inf.moved = vs.moved = True  # both stay put for the rest of the phase
