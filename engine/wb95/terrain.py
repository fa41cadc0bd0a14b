"""Reading the TERRAIN INFLUENCE table (3.1.11, 3.1.12, R10, R11, R24).

The table is game data (`scenarios/tables/*.yaml`); these functions only look values up.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple, Protocol

from engine.hexgrid import HexId, Hexside, hexside
from engine.model import Cost, MapData, MoveClass, TerrainTable
from engine.state import GameState


class Mover(Protocol):
    """What the table reads of a unit: a `UnitSpec`, or just its class (`MoverClass`)."""

    @property
    def is_hq(self) -> bool: ...

    @property
    def move(self) -> MoveClass: ...


class MoverClass(NamedTuple):
    """A movement class: what `step_cost` and the ZoC rules read of a unit."""

    is_hq: bool
    move: MoveClass


def class_cost(costs: Mapping[str, Cost], spec: Mover) -> Cost:
    """The entry of a table row for this unit: HQs have their own where the row gives one
    (R10: HQs enter swamps for 5 MP), otherwise the movement class (R11)."""
    if spec.is_hq and "hq" in costs:
        return costs["hq"]
    return costs.get(spec.move)


def terrain_cost(table: TerrainTable, terrain: str, spec: Mover) -> Cost:
    """MP cost of entering a hex of this terrain off-road; None if impassable."""
    row = table.terrain[terrain]
    cost = class_cost(row.cost, spec)
    if row.base is None or cost is None:
        return cost
    base = terrain_cost(table, row.base, spec)
    return None if base is None else base + cost  # cumulative (3.1.12)


def impassable_terrain(table: TerrainTable, terrain: str, spec: Mover) -> bool:
    return terrain_cost(table, terrain, spec) is None


@dataclass(frozen=True)
class StepCost:
    """The cost of one step between adjacent hexes, or why it cannot be made."""

    cost: Fraction | None
    road: str | None = None  # road kind used, when the step follows a road
    why: str = ""
    rule: str = ""
    ruling: str = ""


def intact_bridges(state: GameState) -> Set[Hexside]:
    """The bridges standing now (14.0): the printed ones not destroyed and the ones built
    (`GameState.bridges`, `engine.wb95.bridges`). Movement, retreat, pursuit and supply
    pass this to `step_cost`."""
    if not state.bridges:
        return state.setup.map.bridges
    out = set(state.setup.map.bridges)
    for key, change in state.bridges.items():
        a, b = key.split("/")
        if change == "destroyed":
            out.discard(hexside(a, b))
        else:
            out.add(hexside(a, b))
    return out


def step_cost(
    m: MapData,
    table: TerrainTable,
    spec: Mover,
    a: HexId,
    b: HexId,
    *,
    bridges: Set[Hexside] | None = None,
) -> StepCost:
    """Cost of moving from `a` into adjacent `b`, without ZoC effects.

    Along a road connection the road's cost replaces the terrain of the hex entered; a
    river or stream crossed without a bridge adds its cost on top (3.1.12); an intact
    bridge carries the crossing at no extra cost (docs/rulings.md K2). A big river can be
    crossed only by a bridge (R24). `bridges` are the bridges standing now
    (`intact_bridges(state)`); None means the printed ones."""
    bridged = m.bridged(a, b) if bridges is None else hexside(a, b) in bridges
    return _step_cost(m, table, spec.is_hq, spec.move, a, b, bridged)


@lru_cache(maxsize=1 << 17)  # the map and table are immutable (hashed by identity)
def _step_cost(
    m: MapData,
    table: TerrainTable,
    is_hq: bool,
    move: MoveClass,
    a: HexId,
    b: HexId,
    bridged: bool,
) -> StepCost:
    """`step_cost` for a unit of this class; memoized: movement and supply searches ask
    the same steps again and again (kessel bench, docs/performance.md)."""
    spec = MoverClass(is_hq, move)
    features = m.features(a, b)
    add = Fraction(0)
    for f in sorted(features):
        row = table.hexsides.get(f)
        if row is None:
            continue  # fixed positions / fortified lines: no movement cost
        if bridged:
            continue
        if row.bridge_only:
            return StepCost(
                None,
                why=f"the {f} between {a} and {b} can be crossed only by a bridge",
                rule="3.1.11",
                ruling="R24",
            )
        extra = class_cost(row.cost, spec)
        if extra is None:
            return StepCost(
                None,
                why=f"the {f} between {a} and {b} cannot be crossed by {spec.move} units",
                rule="3.1.11",
            )
        add += extra
    best: tuple[Fraction, str] | None = None
    for kind in sorted(m.road_kinds(a, b)):
        rrow = table.roads.get(kind)
        if rrow is None:
            continue
        c = class_cost(rrow.cost, spec)
        if c is not None and (best is None or c < best[0]):
            best = (c, kind)
    if best is not None:
        return StepCost(best[0] + add, road=best[1])
    terrain = m.terrain_of(b)
    base = terrain_cost(table, terrain, spec)
    if base is None:
        who = "HQ" if spec.is_hq else f"{spec.move}"
        return StepCost(
            None,
            why=f"{m.label(b)} ({terrain}) is impassable to {who} units",
            rule="3.1.11",
            ruling="R10" if terrain == "swamp" else "",
        )
    return StepCost(base + add)
