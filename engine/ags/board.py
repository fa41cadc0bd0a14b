"""The AGS map: terrain per hex, river hexsides, roads, names and edges (AGS 10.0).

Hexes are `CCRR`, flat-topped in vertical columns, even columns half a hex lower (A00)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.ags.provenance import Provenance
from engine.hexgrid import Grid, HexId, Hexside, hexside, parse_hex


@dataclass(frozen=True)
class Board:
    id: str
    grid: Grid
    terrain: dict[HexId, str]  # every hex of the map
    hexsides: dict[Hexside, str]  # minor-river, major-river
    roads: frozenset[Hexside]  # hexsides a road crosses (AGS 10.23)
    names: dict[HexId, str]
    provenance: Provenance

    def hexes(self) -> list[HexId]:
        return list(self.grid.all_hexes())

    def terrain_at(self, h: HexId) -> str:
        return self.terrain[h]

    def blocked(self, h: HexId) -> bool:
        """The Dniepr's river hexes (AGS-K 19.25) and sea: nothing enters or passes."""
        return self.terrain[h] in ("dnieper", "sea")

    def feature(self, a: HexId, b: HexId) -> str | None:
        return self.hexsides.get(hexside(a, b))

    def road(self, a: HexId, b: HexId) -> bool:
        return hexside(a, b) in self.roads

    def edge(self, name: str) -> list[HexId]:
        """The hexes of a map edge (N, S, E, W): the first or last row or column."""
        if name not in ("N", "S", "E", "W"):
            raise ValueError(f"no map edge {name!r} (N, S, E, W)")
        (c0, c1), (r0, r1) = self.grid.cols, self.grid.rows
        out = []
        for h in self.grid.all_hexes():
            c, r = parse_hex(h)
            if {"N": r == r0, "S": r == r1, "W": c == c0, "E": c == c1}[name]:
                out.append(h)
        return out
