"""German delay and disengagement (AGS-K 22.1, 22.2, 21.16, 21.2, 22.24; AGS 5.24, 8.23;
A22, K150) and disruption (AGS 6.3).

A German unit that begins a German Movement Phase in an enemy-controlled hex may leave it
for two Movement Points more than the terrain cost of the hex it enters (22.13, 22.23),
never by A22's one-hex minimum:
- by **delay** (22.1) when another German unit that also began the phase there stays to
  cover it and no unit in the hex has spent Movement Points this phase (22.11); it may
  move straight into another enemy-controlled hex, where it stops (22.12);
- by **disengagement** (22.2) from the scenario's turn (Korsun: turn 3; 21.16, 21.2,
  22.24), every unit of the hex, never into an enemy-controlled hex for the rest of the
  phase (22.21, 22.22).
The player writes a plain `move`; the referee uses delay where it can (it allows more) and
disengagement otherwise (K150). The Soviet player never delays or disengages (22.24)."""

from __future__ import annotations

from engine.ags import game
from engine.state import GameState, UnitState

SURCHARGE = 2  # AGS-K 22.13, 22.23


def disrupted(state: GameState, uid: str) -> bool:
    return uid in game.ext(state, "disrupted", [])


def leave_mode(state: GameState, u: UnitState) -> str | None:
    """How `u` may leave the enemy-controlled hex it began the phase in: "delay",
    "disengage", or None (it may not leave, AGS 5.24)."""
    if u.side != "german" or u.hex is None:
        return None
    here = [x for x in state.units_at(u.hex) if x.side == u.side]
    if any(x.mp_spent > 0 for x in here):
        return _disengage(state)  # 22.11: no delay
    if any(x.id != u.id for x in here):
        return "delay"  # 22.1: the others, less one, cover
    return _disengage(state)


def _disengage(state: GameState) -> str | None:
    return "disengage" if state.turn >= game.scenario(state).disengagement_from else None


def why_not_leave(state: GameState, u: UnitState) -> tuple[str, str]:
    if u.side != "german":
        return (
            "it may not leave an enemy-controlled hex (the Soviet player never delays or "
            "disengages)",
            "AGS 5.24, 8.23, AGS-K 22.24",
        )
    turn = game.scenario(state).disengagement_from
    early = ", 21.16" if state.turn == 1 else ", 21.2" if state.turn < turn else ""
    return (
        "it may not leave an enemy-controlled hex: delay needs another German unit that began "
        "the phase there to stay and cover it, with no unit of the hex having moved this "
        f"phase, and disengagement is allowed from Game-Turn {turn}",
        f"AGS 5.24, AGS-K 22.1, 22.11, 22.24{early}",
    )
