"""4.1 Zones of control.

A regular unit's ZoC covers its six adjacent hexes (4.1.1, 4.1.2) except across a big
river (4.1.3, R24) and into terrain impassable to it (4.1.4, R10: motorized units exert
no ZoC into swamps). Artillery (6.1.5), HQs (9.1.1) and resilience groups (15.2.2) have
none.
"""

from __future__ import annotations

from functools import lru_cache

from engine.hexgrid import HexId
from engine.model import MapData, MoveClass, Setup, TerrainTable, UnitSpec
from engine.state import GameState, UnitState
from engine.wb95.terrain import MoverClass, impassable_terrain

ZocMap = dict[HexId, set[str]]


def zoc_hexes(setup: Setup, spec: UnitSpec, at: HexId) -> list[HexId]:
    """The hexes a unit of this kind standing at `at` exerts ZoC into."""
    if not spec.has_zoc:
        return []
    return list(_zoc_hexes(setup.map, setup.table, spec.is_hq, spec.move, at))


@lru_cache(maxsize=1 << 16)  # map and table are immutable (hashed by identity); hot path
def _zoc_hexes(
    m: MapData, table: TerrainTable, is_hq: bool, move: MoveClass, at: HexId
) -> tuple[HexId, ...]:
    out: list[HexId] = []
    for n in m.grid.neighbours(at):
        if any(table.hexsides[f].blocks_zoc for f in m.features(at, n) if f in table.hexsides):
            continue  # 4.1.3
        if impassable_terrain(table, m.terrain_of(n), MoverClass(is_hq, move)):
            continue  # 4.1.4
        out.append(n)
    return tuple(out)


def zoc_map(state: GameState, side: str) -> ZocMap:
    """For every hex, the ids of `side`'s units whose ZoC covers it (4.1.5)."""
    out: ZocMap = {}
    for u in state.on_map(side):
        assert u.hex is not None
        for h in zoc_hexes(state.setup, state.setup.units[u.id], u.hex):
            out.setdefault(h, set()).add(u.id)
    return out


def in_enemy_zoc(state: GameState, unit: UnitState, enemy_zoc: ZocMap | None = None) -> bool:
    if unit.hex is None:
        return False
    zm = enemy_zoc if enemy_zoc is not None else zoc_map(state, state.setup.enemy_of(unit.side))
    return bool(zm.get(unit.hex))
