"""Holding what the scenario values (4.3: a hex counts for whoever last had a unit in it
at the Supply Phase). The enemy moves and attacks after every Combat Phase of ours, so a
valued hex taken or kept is worth something only if the stack in it survives the enemy's
next turn: it must not be emptied by an attack of its own garrison (a retreat, A1-A4, or
the last CEL lost), and a stack in it must be strong enough that the counter-attack the
enemy can bring reads no better than 1:1 (5.2.1) and has a CEL to spare for an exchange."""

from __future__ import annotations

from collections.abc import Iterable

from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.sight import Sight
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.combat import IF_CMS, terrain_cms
from engine.wb95.crt import COLUMNS, MAX_COLUMN, MIN_COLUMN, initial_column, lookup
from engine.wb95.fortification_markers import own_marker
from engine.wb95.odds import distribution
from engine.wb95.strength import strength

HELD = COLUMNS.index("1:1")  # the counter-attack's column a held stack may allow
SAFE = 0.75  # the chance to keep a hex that is enough
NEAR = 4  # hexes: the enemy stacks that can reach a hex in one Movement Phase


def regular(state: GameState, u: UnitState) -> bool:
    spec = state.setup.units[u.id]
    return not spec.is_hq and spec.type != "art"


def held(state: GameState, side: str, aims: Aims) -> dict[HexId, list[UnitState]]:
    """The valued hexes the side holds, each with its regular units (a lone HQ or gun
    does not keep a hex against an attack: 5.1.9, 6.6.4)."""
    out: dict[HexId, list[UnitState]] = {}
    for h, w in aims.hexes.items():
        if w <= 0:
            continue
        here = [u for u in state.units_at(h) if u.side == side and regular(state, u)]
        # 4.3: a hex its units stand in is its own at the end, even before control passes
        if state.control.get(h) == side or here:
            out[h] = here
    return out


def empties(state: GameState, side: str, aims: Aims, units: Iterable[str]) -> list[HexId]:
    """The held valued hexes an attack by `units` would leave with no regular unit if the
    attackers retreated (or advanced, 5.4) out of them."""
    going = set(units)
    return [
        h
        for h, here in held(state, side, aims).items()
        if here and all(u.id in going for u in here)
    ]


def counter_sp(state: GameState, sight: Sight, h: HexId) -> float:
    """The SPs the enemy may bring against `h` in its next turn: the stacks it is seen
    with near `h` (a likely figure) and its guns in range (6.3.3)."""
    grid = state.setup.map.grid
    sp = sum(
        st.est
        for e, st in sight.stacks.items()
        if e != h and st.regular and grid.distance(e, h) <= NEAR
    )
    return sp + sight.gun_sp(grid, h)


def defence_cms(state: GameState, side: str, h: HexId, dug: bool = False) -> int:
    """Terrain (5.5.1) and the side's own fortification (7.1.10), or one it digs now."""
    cms = terrain_cms(state, h)
    kind = own_marker(state, side, h) or ("ff" if dug else None)
    if kind == "if":
        cms += IF_CMS
    elif kind:
        terrain = state.setup.map.terrain_of(h)
        table = state.setup.table
        cms += table.ff_cms.get(terrain, table.ff_cms.get("*", 1))
    return cms


def kept(state: GameState, units: Iterable[UnitState], attack: float, cms: int) -> float:
    """The chance that a stack of `units` is still in its hex after an attack of `attack`
    SPs on it (5.2.1 f): the COMBAT TABLE's column after its `cms`, each result the
    stack survives with a unit left that can sustain the retreat (5.3.7: a CEL a hex)."""
    cels = [u.cel for u in units]
    if not cels:
        return 0.0
    if attack <= 0:
        return 1.0
    sp = sum(strength(state, u, attacking=False).sp for u in units)
    col = initial_column(int(attack + 0.5), max(1, sp)) - cms
    col = min(max(col, MIN_COLUMN), MAX_COLUMN)
    ways = 0
    for roll, n in distribution().items():
        d = lookup(state.setup.results, col, roll).defender
        left = sum(cels) - d.losses
        biggest = max(cels) - (d.losses if len(cels) == 1 else 0)
        if left > 0 and (not d.retreat or biggest > d.retreat):
            ways += n
    return ways / 36


def safe(state: GameState, units: Iterable[UnitState], attack: float, cms: int) -> bool:
    """Would a stack of `units` hold against `attack` SPs three times in four (`kept`)?"""
    return kept(state, list(units), attack, cms) >= SAFE


def holdable(state: GameState, side: str, sight: Sight, h: HexId) -> float:
    """How likely a valued hex taken now is still its own after the enemy's turn: 1 when
    its three strongest units near it could hold it (`safe`), halved for each column the
    enemy's counter-attack would read above 1:1."""
    attack = counter_sp(state, sight, h)
    if attack <= 0:
        return 1.0
    grid = state.setup.map.grid
    near = sorted(
        (
            strength(state, u, attacking=False).sp
            for u in state.on_map(side)
            if u.hex and regular(state, u) and grid.distance(u.hex, h) <= NEAR
        ),
        reverse=True,
    )
    col = initial_column(int(attack + 0.5), max(1, sum(near[:3]))) - terrain_cms(state, h)
    return 0.5 ** max(0, col - HELD)
