"""9.1 HQs, the parts outside combat.

An HQ has no ZoC (9.1.1, `engine.wb95.zoc`), moves as a trucked unit with 10 MPs (9.1.2,
countersheet data), enters swamps and mountains for 5 MPs (9.1.3, R10, K7: the terrain
tables) and counts 1 CEL for stacking (9.1.4, 3.2.2: `engine.wb95.stacking`).

9.1.5: an HQ alone in its hex -- no unit of its side there but HQs -- is eliminated when an
enemy regular unit enters the hex. The movement code lets a regular unit enter such a hex
in the Movement and the Strategic Movement Phase at the hex's ordinary cost, and go on
(docs/rulings.md K23); every HQ there is eliminated as the unit enters. The loss is
recorded (`hq_lost`, `engine.wb95.elimination`) for the 5 CMs of 9.1.6-9.1.7 (R17), which
`engine.wb95.hq_cms` awards.
"""

from __future__ import annotations

from engine.core import Ctx
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.elimination import eliminate
from engine.wb95.regular import is_regular


def lone_hq_hexes(state: GameState, side: str) -> set[HexId]:
    """Hexes where `side` has only HQs (9.1.5)."""
    hexes: dict[HexId, bool] = {}
    for u in state.on_map(side):
        assert u.hex is not None
        only_hq = state.setup.units[u.id].is_hq
        hexes[u.hex] = hexes.get(u.hex, True) and only_hq
    return {h for h, lone in hexes.items() if lone}


def overrun(ctx: Ctx, unit_id: str, h: HexId) -> None:
    """`unit_id` has entered `h`: if it is a regular unit and the hex holds enemy HQs
    alone, they are eliminated (9.1.5)."""
    state = ctx.state
    mover = state.units[unit_id]
    if not is_regular(state.setup.units[mover.id]):
        return
    enemy = [u for u in state.units_at(h) if u.side != mover.side]
    if not enemy or not all(state.setup.units[u.id].is_hq for u in enemy):
        return
    for u in enemy:
        eliminate(
            ctx,
            u.id,
            cause=f"an HQ alone in {h}, entered by the enemy regular unit {mover.id}",
            rule="9.1.5",
            by=mover.id,
        )
