"""The Air Phase (8.0) and barrage (6.5). Before its own Combat Phase the side
concentrates its offensive support (8.2.2) over the one or two enemy stacks its units
nearby could attack at good odds with it -- the plan of the Movement Phase then counts
those SPs and attacks there; with no such target it attacks the biggest enemy stack in
contact from the air (8.2.6). Before the enemy's Combat Phase it gives defensive
support (8.2.4) to its most threatened stack on a hex the scenario values."""

from __future__ import annotations

from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.reckon import FAIR, column
from bot.systems.wb95.ai.sight import Sight
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.air import counters_left, pool_left, sealed_missions
from engine.wb95.artillery import barrage_targets
from engine.wb95.sequence import PHASES, actors
from engine.wb95.strength import strength


def _flights(state: GameState, side: str, mission: str, targets: list[HexId]) -> list[o.Air]:
    """One mission per target with everything left (8.1.1): never 4 + 1 over one hex."""
    out: list[o.Air] = []
    flown = {str(m["target"]) for m in sealed_missions(state, side) if m["mission"] == mission}
    if flown:
        return out  # this Air Phase's missions of this kind are given
    counters = counters_left(state, side)
    if counters:
        for i, c in enumerate(counters):
            out.append(o.Air(mission=mission, hex=targets[i % len(targets)], counter=c.id))
        return out
    left = pool_left(state, side)
    if left <= 0:
        return out
    if len(targets) > 1 and left >= 6:
        half = left // 2
        return [
            o.Air(mission=mission, hex=targets[0], amount=left - half),
            o.Air(mission=mission, hex=targets[1], amount=half),
        ]
    return [o.Air(mission=mission, hex=targets[0], amount=left)]


def orders(state: GameState, side: str, sight: Sight, aims: Aims) -> list[o.Order]:
    grid = state.setup.map.grid
    nxt = PHASES[(state.phase + 3) % len(PHASES)]
    mine_next = nxt.kind == "combat" and side in actors(nxt, state.setup.side_names)
    own = [
        (u.hex, strength(state, u, True).sp, strength(state, u, False).sp)
        for u in state.on_map(side)
        if u.hex and not state.setup.units[u.id].is_hq
    ]
    pool = pool_left(state, side) + 3 * len(counters_left(state, side))
    out: list[o.Order] = []
    if mine_next:
        ranked: list[tuple[float, HexId]] = []
        for h, st in sight.stacks.items():
            near = sum(a for x, a, _ in own if grid.distance(x, h) <= 3)
            if near <= 0 or column(state, near + pool, st) < FAIR:
                continue
            worth = aims.hexes.get(h, 0.0) * (2.0 if aims.attack else 1.0)
            ranked.append((worth + near / max(1, st.hi), h))
        ranked.sort(key=lambda x: (-x[0], x[1]))
        if ranked and not aims.escape:
            out += _flights(state, side, "support-attack", [h for _, h in ranked[:2]])
        contact = sorted(
            (h for h in sight.stacks if any(grid.adjacent(h, x) for x, _, _ in own)),
            key=lambda h: (-sight.stacks[h].est, h),
        )
        if contact:
            out += _flights(state, side, "attack", contact[:1])
    else:
        threatened: list[tuple[float, HexId]] = []
        for x, _, d in own:
            threat = sum(s.est for h, s in sight.stacks.items() if grid.adjacent(h, x))
            if threat > 0:
                threatened.append((threat / max(1, d) + aims.hexes.get(x, 0.0), x))
        threatened.sort(key=lambda t: (-t[0], t[1]))
        if threatened:
            out += _flights(state, side, "support-defence", [threatened[0][1]])
    out.append(o.Done())
    return out


def barrage(state: GameState, side: str, sight: Sight) -> list[o.Order]:
    targets = barrage_targets(state, side)
    ranked = sorted(targets, key=lambda h: (-(sight.stacks[h].est if h in sight.stacks else 0), h))
    return [*(o.Barrage(units=tuple(targets[h]), target=h) for h in ranked), o.Done()]
