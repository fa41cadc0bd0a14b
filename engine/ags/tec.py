"""The Terrain Effects Chart (AGS 10.4) as data, with the Korsun overrides (A0, A1, A2).

Movement classes: `mech` (armor, mechanized infantry, cavalry), `inf` (infantry, rifle,
airborne) and `hq` (AGS 11.21, A9: infantry terrain costs, roads as mechanized)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from engine.ags.provenance import Provenance

MoveClass = Literal["mech", "inf", "hq"]


@dataclass(frozen=True)
class TerrainRow:
    name: str
    mech: Fraction | None  # None = prohibited
    inf: Fraction | None
    defence: int | None  # multiplier of the defender's strength (AGS 9.31)
    blocks: bool = False  # the Dniepr hexes (AGS-K 19.25), sea: nothing enters or passes
    supply_into_only: bool = False  # swamp: supply traced into, not through (AGS 12.11)

    def cost(self, cls: MoveClass) -> Fraction | None:
        return self.mech if cls == "mech" else self.inf


@dataclass(frozen=True)
class HexsideRow:
    name: str
    cost: Fraction  # added to the cost of the hex entered (AGS 10.31; AGS-K 19.23, 19.24)
    defence: int  # when every attacker attacks across it (AGS 10.12, 10.14)
    blocks_zoc: bool = False  # AGS 8.12, AGS-K 19.22
    soviet_supply_road_only: bool = False  # AGS-K 19.71
    german_supply_blocked: bool = False  # AGS-K 19.72: never


@dataclass(frozen=True)
class RoadRow:
    name: str
    mech: Fraction | None  # None = no effect for that class (AGS 10.23)
    hq: Fraction | None
    inf: Fraction | None

    def cost(self, cls: MoveClass) -> Fraction | None:
        return {"mech": self.mech, "hq": self.hq, "inf": self.inf}[cls]


@dataclass(frozen=True)
class Tec:
    terrain: dict[str, TerrainRow]
    hexsides: dict[str, HexsideRow]
    roads: dict[str, RoadRow]
    provenance: Provenance
    notes: tuple[str, ...] = field(default=())

    def row(self, terrain: str) -> TerrainRow:
        try:
            return self.terrain[terrain]
        except KeyError:
            raise ValueError(f"terrain {terrain!r} is not on the TEC (AGS 10.4)") from None
