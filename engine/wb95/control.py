"""4.3 Hex control.

At the start each side controls the hexes behind its front line (4.3.1). At the end of
a side's Supply Phase it takes every hex it occupies (4.3.2) and every empty hex in the
ZoC of its supplied units (4.3.5) that no enemy ZoC covers (4.3.3); an empty hex in the
ZoCs of both sides -- OoS units' too -- is controlled by neither (4.3.6). Units that
surrendered in that phase give no control (4.3.4).
"""

from __future__ import annotations

from collections import deque

from engine.hexgrid import HexId
from engine.model import Setup
from engine.state import GameState, UnitState
from engine.wb95.zoc import zoc_hexes, zoc_map


def initial_control(setup: Setup, units: dict[str, UnitState]) -> dict[HexId, str]:
    """4.3.1. A scenario may list control explicitly; otherwise every hex goes to the side
    whose nearest unit is closer (hex distance, R18), and hexes equally near both sides'
    units belong to neither (docs/rulings.md K5)."""
    if setup.control is not None:
        return dict(setup.control)
    grid = setup.map.grid
    owner: dict[HexId, str | None] = {}
    dist: dict[HexId, int] = {}
    queue: deque[HexId] = deque()
    for u in units.values():
        if u.hex is None or u.eliminated:
            continue
        if u.hex in dist and owner[u.hex] != u.side:
            owner[u.hex] = None
        elif u.hex not in dist:
            dist[u.hex] = 0
            owner[u.hex] = u.side
            queue.append(u.hex)
    while queue:
        h = queue.popleft()
        for n in grid.neighbours(h):
            d = dist[h] + 1
            if n not in dist:
                dist[n] = d
                owner[n] = owner[h]
                queue.append(n)
            elif dist[n] == d and owner[n] != owner[h]:
                owner[n] = None
    out = {h: s for h, s in owner.items() if s is not None}
    out.update(_entry_hexes(setup, units))
    return out


def _entry_hexes(setup: Setup, units: dict[str, UnitState]) -> dict[HexId, str]:
    """The printed zones and hexes where the scenario brings a side's reinforcements in
    start behind that side's lines (docs/rulings.md K33): 11.1.4 would otherwise close
    them before play begins. Not a hex both sides' reinforcements use, nor one an enemy
    unit starts in; a whole map edge is not claimed."""
    claims: dict[HexId, set[str]] = {}
    for st in setup.starts:
        a = st.arrives
        if a is None:
            continue
        side = setup.units[st.id].side
        hexes = (str(a["hex"]),) if "hex" in a else setup.map.zones.get(str(a["zone"]), ())
        for h in hexes:
            claims.setdefault(h, set()).add(side)
    held = {u.hex: u.side for u in units.values() if u.hex is not None and not u.eliminated}
    out: dict[HexId, str] = {}
    for h, sides in claims.items():
        side = next(iter(sides))
        if len(sides) == 1 and held.get(h, side) == side:
            out[h] = side
    return out


def control_changes(
    state: GameState,
    side: str,
    surrendered: frozenset[str] = frozenset(),
    supplied: frozenset[str] | None = None,
) -> dict[HexId, str | None]:
    """The hexes whose control changes at the end of `side`'s Supply Phase: hex -> new
    controller (None: neither). `supplied`: the units that traced supply in this phase
    (4.3.5, docs/rulings.md K45); None: the units at OoS level 0."""
    setup = state.setup
    enemy = setup.enemy_of(side)
    occupied: dict[HexId, str] = {}
    for u in state.on_map():
        if u.id in surrendered or u.hex is None:
            continue
        occupied[u.hex] = u.side
    enemy_zoc = zoc_map(state, enemy)
    own_zoc: set[HexId] = set()
    supplied_zoc: set[HexId] = set()
    for u in state.on_map(side):
        if u.id in surrendered or u.hex is None:
            continue
        hexes = zoc_hexes(setup, setup.units[u.id], u.hex)
        own_zoc.update(hexes)
        if (u.id in supplied) if supplied is not None else u.oos == 0:
            supplied_zoc.update(hexes)
    changes: dict[HexId, str | None] = {}
    for h, s in occupied.items():
        if s == side and state.control.get(h) != side:
            changes[h] = side  # 4.3.2
    for h in own_zoc:
        if h in occupied:
            continue
        if h in enemy_zoc:
            new: str | None = None  # 4.3.6
        elif h in supplied_zoc:
            new = side  # 4.3.3, 4.3.5
        else:
            continue
        if state.control.get(h) != new:
            changes[h] = new
    return changes


def victory_points(state: GameState) -> dict[str, int]:
    """VPs now: controlled victory hexes and, where the scenario counts them, enemy CELs
    destroyed (engine.wb95.victory)."""
    from engine.wb95.victory import victory_standing  # victory builds on this module

    return dict(victory_standing(state)["vp"])


def city_points(state: GameState) -> dict[str, int]:
    """VPs for controlled victory hexes (the scenario's `victory` list)."""
    vp = {s: 0 for s in state.setup.sides}
    for v in state.setup.victory:
        holder = state.control.get(v.hex)
        if holder is not None and (v.side is None or v.side == holder):
            vp[holder] += v.vp
    return vp
