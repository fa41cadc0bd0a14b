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

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.dispatch import handles
from engine.wb95.elimination import eliminate
from engine.wb95.reducer import on
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


# --- 9.2.1: the HQ dice modifier is the player's to use (K100) ------------------------------


@handles(o.HqClaim)
def do_hq_claim(ctx: Ctx, side: str, order: o.HqClaim) -> None:
    """`hq claim|decline`: the side's standing choice for its HQ dice modifier (9.2.1 "can
    add / subtract"), for its combats from now on; at any moment the side acts."""
    if ctx.state.hq_claims.get(side, True) == order.claim:
        now = "claims" if order.claim else "declines"
        raise Rejected(f"{side} already {now} its HQ dice modifier", "9.2.1", "K100")
    ctx.emit("hq_claim_set", side=side, claim=order.claim, rule="9.2.1")


@on("hq_claim_set")
def _hq_claim_set(state: GameState, e: Event) -> None:
    if e.data["claim"]:
        state.hq_claims.pop(e.data["side"], None)
    else:
        state.hq_claims[e.data["side"]] = False
