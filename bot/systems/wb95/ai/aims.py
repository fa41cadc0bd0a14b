"""What the scenario rewards its side (the scenario's `victory:`, engine.wb95.victory):
the victory hexes it could count and the cities an automatic victory needs, the enemy
CELs and units it scores for, the link it must keep and the zones it may withdraw
through (The Retreat). `posture` says whether it must attack or may hold."""

from __future__ import annotations

from dataclasses import dataclass

from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.victory import escape_hexes, victory_standing


@dataclass
class Aims:
    hexes: dict[HexId, float]  # hex -> what holding it is worth to the side
    kill: float  # VPs per enemy CEL destroyed (cel_vp) and per unit eliminated (unit_vp)
    loss: float  # what a CEL of its own lost gives the enemy
    escape: dict[HexId, str]  # withdrawal zone hexes (The Retreat)
    attack: bool  # must it take hexes (it is not ahead, or an automatic victory is near)
    short: bool  # the last two turns


def read(state: GameState, side: str) -> Aims:
    setup = state.setup
    rules = setup.victory_rules
    enemy = setup.enemy_of(side)
    hexes: dict[HexId, float] = {}
    for v in setup.victory:  # the enemy's own victory hexes are worth denying
        worth = float(v.vp) if v.side is None or v.side == side else float(v.vp) / 2
        hexes[v.hex] = hexes.get(v.hex, 0.0) + worth
    for lv in rules.get("levels", []):
        if lv.get("holds_all") is None:
            continue
        # an automatic victory is worth most; the enemy's is worth denying
        worth = 6.0 if lv.get("at_any_moment") else 3.0
        for h in lv["holds_all"]:  # hex ids (the loader resolves place names)
            hexes[h] = hexes.get(h, 0.0) + (worth if lv["side"] == side else worth / 2)
    link = rules.get("link")
    if link and link.get("side") == side:
        for h in link.get("from", []):
            hexes[h] = hexes.get(h, 0.0) + 2.0
    per_cel = float(rules.get("cel_vp", 0))
    per_unit = float(rules.get("unit_vp", 0))
    vp = victory_standing(state)["vp"]
    own = {v.hex for v in setup.victory if v.side is None or v.side == side}
    own |= {
        h for lv in rules.get("levels", []) if lv["side"] == side for h in lv.get("holds_all") or []
    }
    to_take = any(state.control.get(h) != side for h in own)
    attack = to_take and vp.get(side, 0) <= vp.get(enemy, 0)
    # a side that wins only from a number of VPs up (Kursk: "otherwise soviet victory")
    # keeps attacking until it has them
    need = [
        int(lv["vp"])
        for lv in rules.get("levels", [])
        if lv["side"] == side and lv.get("vp") is not None
    ]
    if need and str(rules.get("otherwise", "")).startswith(enemy):
        attack = vp.get(side, 0) < min(need)
    short = state.turn >= setup.turns - 1
    return Aims(
        hexes=hexes,
        kill=per_cel + per_unit / 2,
        loss=per_cel + per_unit / 2,
        escape=escape_hexes(state, side),
        attack=attack,
        short=short,
    )
