"""Air points in combat for the defender (AGS 14.11-14.14; AGS-K 19.8, A43).

The attacker announces his air point with the attack (`attack ... air 1`), then the
defender (14.12): when the defending side has an air point left this Game-Turn, the
attack waits for its decision `defender_air`, answered `air 1 support-defence HEX` (one
column in the defender's favour, 14.14; both points cancel) or `pass`. The combat is
then resolved (`engine.ags.combat.resolve`)."""

from __future__ import annotations

from engine import orders as o
from engine.ags import game
from engine.core import Ctx, Rejected
from engine.state import Decision, GameState

DEFENDER_AIR = "defender_air"
MISSIONS = ("support-defence", "support-defense", "defend", "defence", "defense")


def points(state: GameState, side: str) -> int:
    return int(game.ext(state, "air", {}).get(side, 0))


def offer(ctx: Ctx, side: str, hexes: list[str], attacker_air: int) -> bool:
    """Open the defender's decision if it has an air point (14.12); False if not."""
    defender = game.enemy(side)
    if points(ctx.state, defender) < 1:
        return False
    ctx.emit(
        "decision_opened",
        side=defender,
        decision=DEFENDER_AIR,
        options={
            "hexes": hexes,
            "attacker_air": attacker_air,
            "points": points(ctx.state, defender),
        },
        rule="AGS 14.12",
    )
    return True


def defaults(state: GameState, d: Decision) -> list[o.Order]:
    """The deadline answer keeps the point (an absent player spends nothing, K162)."""
    return [o.Pass(), o.Air(mission="support-defence", hex=d.options["hexes"][0], amount=1)]


def answer(ctx: Ctx, side: str, d: Decision, order: o.Order) -> None:
    from engine.ags import combat

    used = 0
    if isinstance(order, o.Air):
        if order.mission not in MISSIONS:
            raise Rejected(
                "answer `air 1 support-defence HEX` or `pass` (the defender's air point)",
                "AGS 14.12",
            )
        if order.amount != 1:
            raise Rejected("at most one air point per side in a combat", "AGS 14.13")
        if order.hex not in d.options["hexes"]:
            raise Rejected(f"{order.hex} is not the hex attacked", "AGS 14.11")
        used = 1
    elif not isinstance(order, o.Pass):
        raise Rejected(
            "answer the attack first: `air 1 support-defence HEX` or `pass`", "AGS 14.12"
        )
    ctx.emit("decision_closed", side=side, decision=DEFENDER_AIR, answer=used)
    if used:
        ctx.emit("air_spent", side=side, points=1, use="combat", rule="AGS 14.14")
    combat.resolve(ctx, used)
