"""The AGS map file (`scenarios/maps/ags/<id>.yaml`, built by `python -m
scenarios.mapbuild <id>` from `scenarios/geography/<id>.yaml`, docs/maps.md) -> an
`engine.ags.board.Board`, its terrain checked against the TEC (AGS 10.4)."""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import Field

from engine.ags.board import Board
from engine.ags.provenance import Provenance
from engine.hexgrid import Grid, HexId, Hexside, hexside
from scenarios.ags.tables import _Strict, load_tec
from scenarios.errors import ScenarioError, validated
from scenarios.overrides import label, locate, read_data, stamp
from scenarios.schema import HexRef as HexIn

MAPS_DIR = Path(__file__).resolve().parents[1] / "maps" / "ags"
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class SideIn(_Strict):
    hexes: tuple[HexIn, HexIn]
    feature: str


class RoadIn(_Strict):
    kind: str
    hexes: list[HexIn] = Field(min_length=2)


class MapIn(_Strict):
    id: str
    game: str
    source: str = ""
    supplied_by: str = ""  # a league's map: who supplied it (scenarios/overrides.py)
    notes: str = ""
    layout: str
    cols: tuple[int, int]
    rows: tuple[int, int]
    default: str
    terrain: dict[HexIn, str]
    names: dict[HexIn, str]
    hexsides: list[SideIn]
    bridges: list[tuple[HexIn, HexIn]]
    roads: list[RoadIn]
    zones: dict[str, list[HexIn]]
    edges: dict[str, list[HexIn]]
    provenance: Provenance = "reconstructed"  # the printed Korsun map is not in the text


def board_from(data: Any, file: str) -> Board:
    m = validated(MapIn, data, file)
    if m.game != "ags":
        raise ScenarioError(file, "game", f"is {m.game!r}; an AGS map says game: ags")
    if m.layout != "even-q":
        raise ScenarioError(file, "layout", "AGS maps are even-q (A00)")
    for key, (lo, hi) in (("cols", m.cols), ("rows", m.rows)):
        if not 0 <= lo <= hi <= 99:  # hex ids are CCRR (A00)
            raise ScenarioError(file, key, f"[{lo}, {hi}] is not a span within 0-99")
    tec = load_tec()
    grid = Grid(layout="even-q", cols=m.cols, rows=m.rows)
    terrain: dict[HexId, str] = {h: m.default for h in grid.all_hexes()}
    for h, t in m.terrain.items():
        if not grid.contains(h):
            raise ScenarioError(file, f"terrain.{h}", "is not on the map")
        if t not in tec.terrain:
            raise ScenarioError(file, f"terrain.{h}", f"{t!r} is not on the TEC (AGS 10.4)")
        terrain[h] = t
    sides: dict[Hexside, str] = {}
    for i, s in enumerate(m.hexsides):
        a, b = s.hexes
        if not grid.adjacent(a, b):
            raise ScenarioError(file, f"hexsides[{i}]", f"{a} and {b} are not adjacent")
        if s.feature not in tec.hexsides:
            raise ScenarioError(file, f"hexsides[{i}]", f"{s.feature!r} is not on the TEC")
        sides[hexside(a, b)] = s.feature
    roads: set[Hexside] = set()
    for i, r in enumerate(m.roads):
        if r.kind not in tec.roads:
            raise ScenarioError(file, f"roads[{i}].kind", f"{r.kind!r} is not on the TEC")
        for a, b in itertools.pairwise(r.hexes):
            if not grid.adjacent(a, b):
                raise ScenarioError(file, f"roads[{i}]", f"{a} and {b} are not adjacent")
            roads.add(hexside(a, b))
    return Board(
        id=m.id,
        grid=grid,
        terrain=terrain,
        hexsides=sides,
        roads=frozenset(roads),
        names=dict(m.names),
        provenance=m.provenance,
    )


def map_file(
    map_id: str, directory: Path | None = None, file: str = "map", key: str = "(id)"
) -> Path:
    """An AGS map's file: a league's in its data directory, else the shipped one."""
    if not isinstance(map_id, str) or not _ID.match(map_id):
        raise ScenarioError(file, key, f"{map_id!r} is not a map id (lowercase, digits, -)")
    if directory is not None:
        return directory / f"{map_id}.yaml"
    return locate(f"maps/ags/{map_id}.yaml")


def load_board(map_id: str = "ags-korsun", directory: Path | None = None) -> Board:
    path = map_file(map_id, directory)
    if not path.is_file():
        raise ScenarioError(str(path), "(file)", f"no AGS map {map_id!r}")
    return _board(path, stamp(path), stamp(locate("tables/ags-tec.yaml")))


@cache
def _board(path: Path, _stamp: object, _tec: object) -> Board:
    return board_from(read_data(path), label(path))
