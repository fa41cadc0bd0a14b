"""Removing a unit from the game outside the CEL losses of combat (which `cel_lost`
records): an HQ overrun (9.1.5), later towed artillery overrun (6.1.7) and the like.

An eliminated unit keeps the hex it fell in recorded (`hex`), for the log and for the
HQ-loss range of 9.1.7; `eliminated` takes it off the map (docs/rulings.md K23). Every HQ
elimination is also recorded in `GameState.hq_losses` (9.1.6, 9.1.7, R17) for the combat
code, which awards the 5 CMs.
"""

from __future__ import annotations

from engine.core import Ctx, Event
from engine.state import GameState
from engine.wb95.reducer import on
from engine.wb95.sequence import PHASES


def eliminate(ctx: Ctx, unit_id: str, cause: str, rule: str, by: str | None = None) -> None:
    """Eliminate a unit (`unit_eliminated`); an HQ's loss is recorded too (`hq_lost`)."""
    state = ctx.state
    u = state.units[unit_id]
    ctx.emit("unit_eliminated", unit=u.id, side=u.side, hex=u.hex, cause=cause, rule=rule, by=by)
    if state.setup.units[u.id].is_hq:
        record_hq_loss(ctx, u.id)


def record_hq_loss(ctx: Ctx, unit_id: str) -> None:
    """9.1.6: an HQ has been eliminated; its enemy gains CMs (`hq_lost`, R17)."""
    state = ctx.state
    u = state.units[unit_id]
    ctx.emit(
        "hq_lost",
        unit=u.id,
        side=u.side,
        gainer=state.setup.enemy_of(u.side),
        hex=u.hex,
        turn=state.turn,
        phase=state.phase,
        number=PHASES[state.phase].number,
        rule="9.1.6",
    )


@on("unit_eliminated")
def _unit_eliminated(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.eliminated = True
    u.fortification = None
    u.strategic = False


@on("hq_lost")
def _hq_lost(state: GameState, e: Event) -> None:
    keys = ("unit", "side", "gainer", "hex", "turn", "phase", "number")
    state.hq_losses.append({k: e.data[k] for k in keys})
