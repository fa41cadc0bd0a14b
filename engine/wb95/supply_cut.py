"""Why a unit is out of supply (10.1, issue #17): the hex where its line of supply is cut.

`supply.trace` answers yes or no. A player needs the reason, the way a player at the table
traces the line with a finger and stops where it breaks: this module follows the line a
player would draw -- the cheapest one in supply MPs from any supply base, ignoring what
blocks it -- and names the first obstacle met going back from the unit: an enemy unit or
enemy ZoC on the line (10.1.10), an enemy town (10.1.11, K38), or the point where the
nation's supply MPs run out (10.1.7). No line even over open ground (swamps, big rivers
without a bridge, 10.1.8): the unit is cut off by the terrain.

Everything named here -- enemy stacks, controlled towns, terrain -- is on the board both
players see; that an unseen counter of a stack exerts the ZoC is what the opponent at the
table would say when the line is claimed (docs/rulings.md K102).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from engine.hexgrid import HexId
from engine.state import GameState
from engine.view import Cut, SupplyPicture
from engine.wb95.supply import (
    Blocks,
    Line,
    blocks,
    line_search,
    supply_costs,
    supply_mp,
    trace,
)


def _blocked_why(b: Blocks, h: HexId, own: bool) -> tuple[str, str, str]:
    where = f"its own hex {h}" if own else h
    if h in b.enemy_units:
        return f"enemy units hold {where}", "10.1.10", ""
    if h in b.enemy_zoc:
        return f"{where} is in enemy ZoC", "10.1.10", ""
    return f"{where} is an enemy-held town or next to one", "10.1.11", "K38"


def cuts(state: GameState, side: str, lines: Mapping[str, Line] | None = None) -> dict[str, Cut]:
    """For every unit of `side` on the map that cannot trace supply now: where its line is
    cut. Supplied units (and units in fixed positions, 7.3.7) are not listed. `lines`: the
    side's `supply.trace`, when the caller has it."""
    if lines is None:
        lines = trace(state, side)
    out_ids = [uid for uid, line in lines.items() if not line.supplied]
    if not out_ids:
        return {}
    b = blocks(state, side)
    prev: dict[HexId, HexId] = {}  # the line a player would draw, ignoring what blocks it
    dist: dict[HexId, Fraction] = line_search(state, side, b, open_ground=True, prev=prev)
    out: dict[str, Cut] = {}
    for uid in out_ids:
        u = state.units[uid]
        assert u.hex is not None
        limit = Fraction(supply_mp(state, u))
        if u.hex not in dist:
            out[uid] = Cut(
                uid,
                None,
                f"no line of supply can reach {u.hex} from a supply base over this ground "
                "(swamp, mountains or a big river without a bridge close it)",
                "10.1.8",
            )
            continue
        path = [u.hex]
        while path[-1] in prev:
            path.append(prev[path[-1]])
        # path runs from the unit back to a base: the first obstacle met is the cut
        hit = next((h for h in path if b.blocked(h)), None)
        if hit is not None:
            why, rule, ruling = _blocked_why(b, hit, own=hit == u.hex)
            out[uid] = Cut(uid, hit, why, rule, ruling)
            continue
        # no obstacle: too far; the line reaches `last` within the nation's MPs, no further
        beyond = [h for h in path if dist[h] > limit]  # from the unit back toward the base
        short = beyond[-1]
        last = prev.get(short)
        reach = f"it reaches {last} and stops short of {short}" if last else f"stops at {short}"
        out[uid] = Cut(
            uid,
            short,
            f"the nearest supply base is {_mp(dist[u.hex])} supply MPs away, more than its "
            f"{_mp(limit)}: {reach}",
            "10.1.7",
        )
    return out


def _mp(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.1f}"


def picture(state: GameState, side: str) -> SupplyPicture:
    found = cuts(state, side)
    at = {uid: h for uid in found if (h := state.units[uid].hex) is not None}
    return SupplyPicture(side, frozenset(supply_costs(state, side)), tuple(found.values()), at)
