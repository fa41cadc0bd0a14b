"""Build a shipped map (`scenarios/maps/<id>.yaml`) from its geography
(`scenarios/geography/<id>.yaml`) and an optional per-hex override file
(`scenarios/maps/<id>.override.yaml`). docs/maps.md describes both formats.

    python -m scenarios.mapbuild korsun [--check]      (or: kessel buildmap korsun)

The geography holds lat/lon points, polylines and polygons and the projection of the
reference (korsun-geography.md / kursk-geography.md §4): a local equirectangular plane
about the origin hex, turned `rotation_deg` clockwise, divided by the hex size. Then:

- places -> `names` (+ `town` / `city` terrain; a village is a name only); a place's
  `hexes:` (or `size: N`, the N hex centres nearest to it) is its footprint;
- areas (polygons) -> terrain of every hex whose centre lies inside;
- rivers (polylines) -> hexside features: the hexsides whose centre-to-centre segment the
  line crosses (so a river is a chain of hexsides meeting at hex corners);
- routes (polylines through places) -> chains of adjacent hexes (the hexes the line passes
  through, split where it leaves the map), re-traced between their towns so that they keep
  to one bank of a river (roadpath.py); each crossing left gets a bridge unless that river
  says `bridges: false`;
- lines (fortified lines) -> the `facing` hexsides of the hexes the line passes through
  (also where a river runs on that hexside: a line along a bank);
- zones -> the hexes of an edge in a range of columns.

Pure Python (no new dependencies), deterministic output.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.hexgrid import Grid, HexId, Hexside, Layout, hex_id, hexside, normalize, parse_hex
from scenarios.errors import ScenarioError
from scenarios.roadpath import keep_to_banks
from scenarios.seams import join_rivers
from scenarios.tables import load_table
from scenarios.yamlio import read_yaml_file

PACKAGE = Path(__file__).resolve().parent
GEOGRAPHY_DIR = PACKAGE / "geography"
MAPS_DIR = PACKAGE / "maps"
SQRT3_2 = math.sqrt(3) / 2
# When several features meet on one hexside, the strongest is kept.
FEATURE_RANK = {"stream": 1, "river": 2, "big-river": 3, "minor-river": 2, "major-river": 3}
# When areas and places overlap, the higher rank wins.
TERRAIN_RANK = {
    "clear": 0,
    "hills": 1,
    "forest": 2,
    "swamp": 3,
    "mountain": 4,
    "town": 5,
    "city": 6,
    "rough": 1,  # AGS terrain names (scenarios/tables/ags-tec.yaml)
    "woods": 2,
    "dnieper": 7,  # AGS-K 19.25: the river fills the hex
}
SAMPLE_STEP = 0.05  # hex units between samples when rasterising a route
Point = tuple[float, float]


# --- projection --------------------------------------------------------------------------
@dataclass(frozen=True)
class Projection:
    """lat/lon -> map plane in hex units (x east along the map, y down the map)."""

    lat0: float
    lon0: float
    km_lat: float
    km_lon: float
    hex_km: float
    rotation_deg: float
    origin: HexId
    layout: str = "even-q"

    def lowered(self, col: int) -> bool:
        return (col % 2 == 0) == (self.layout == "even-q")

    def centre(self, col: int, row: int) -> Point:
        return col * SQRT3_2, row + (0.5 if self.lowered(col) else 0.0)

    def point(self, lat: float, lon: float) -> Point:
        east = (lon - self.lon0) * self.km_lon
        north = (lat - self.lat0) * self.km_lat
        t = math.radians(self.rotation_deg)
        right = east * math.cos(t) - north * math.sin(t)
        down = -(east * math.sin(t) + north * math.cos(t))
        ox, oy = self.centre(*parse_hex(self.origin))
        return ox + right / self.hex_km, oy + down / self.hex_km

    def nearest(self, p: Point) -> tuple[int, int]:
        """The (col, row) whose centre is nearest p (unbounded: may be off any map)."""
        x, y = p
        c0 = math.floor(x / SQRT3_2)
        best: tuple[float, int, int] | None = None
        for c in range(c0 - 1, c0 + 3):
            r0 = math.floor(y - (0.5 if self.lowered(c) else 0.0))
            for r in range(r0 - 1, r0 + 3):
                cx, cy = self.centre(c, r)
                cand = ((cx - x) ** 2 + (cy - y) ** 2, c, r)
                if best is None or cand < best:
                    best = cand
        assert best is not None
        return best[1], best[2]


def projection_of(geo: dict[str, Any]) -> Projection:
    pj = geo["projection"]
    return Projection(
        lat0=float(pj["origin"]["lat"]),
        lon0=float(pj["origin"]["lon"]),
        km_lat=float(pj["km_per_deg_lat"]),
        km_lon=float(pj["km_per_deg_lon"]),
        hex_km=float(pj["hex_km"]),
        rotation_deg=float(pj.get("rotation_deg", 0.0)),
        origin=normalize(str(pj["origin"]["hex"])),
        layout=str(pj.get("layout", "even-q")),
    )


# --- geometry helpers --------------------------------------------------------------------
def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _crosses(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    return d1 * d2 < 0 and d3 * d4 < 0


def _inside(p: Point, poly: Sequence[Point]) -> bool:
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


# --- the build ---------------------------------------------------------------------------
@dataclass
class Built:
    """A map under construction (ids are CCRR strings)."""

    id: str
    game: str
    cols: tuple[int, int]
    rows: tuple[int, int]
    default: str
    layout: str
    terrain: dict[HexId, str] = field(default_factory=dict)
    names: dict[HexId, str] = field(default_factory=dict)
    hexsides: dict[Hexside, str] = field(default_factory=dict)
    bridges: set[Hexside] = field(default_factory=set)
    roads: list[tuple[str, list[HexId]]] = field(default_factory=list)
    zones: dict[str, list[HexId]] = field(default_factory=dict)
    edges: dict[str, list[HexId]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    lines: dict[Hexside, str] = field(default_factory=dict)  # fortified lines (19.0)
    rivers: dict[str, set[Hexside]] = field(default_factory=dict)  # named (VP) rivers
    holes: set[HexId] = field(default_factory=set)  # joined sheets: not on the map

    @property
    def grid(self) -> Grid:
        layout: Layout = "even-q" if self.layout == "even-q" else "odd-q"
        return Grid(layout=layout, cols=self.cols, rows=self.rows, holes=frozenset(self.holes))


def read_geography(map_id: str, directory: Path = GEOGRAPHY_DIR) -> dict[str, Any]:
    path = directory / f"{map_id}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in directory.glob("*.yaml"))) or "none"
        raise ScenarioError(str(path), "(file)", f"no geography {map_id!r} (known: {known})")
    data = read_yaml_file(path)
    if not isinstance(data, dict):
        raise ScenarioError(str(path), "(top level)", "must be a mapping")
    return data


def build(geo: dict[str, Any], override: dict[str, Any] | None = None) -> Built:
    """Derive the hex map from a geography (and apply an override)."""
    proj = projection_of(geo)
    frame = geo["frame"]
    game = str(geo["game"])
    table = terrain_names(game)
    m = Built(
        id=str(geo["id"]),
        game=game,
        cols=(int(frame["cols"][0]), int(frame["cols"][1])),
        rows=(int(frame["rows"][0]), int(frame["rows"][1])),
        default=str(frame.get("default", "clear")),
        layout=proj.layout,
    )
    grid = m.grid
    places = {str(p["key"]): p for p in geo.get("places") or []}

    def on_map(c: int, r: int) -> HexId | None:
        if m.cols[0] <= c <= m.cols[1] and m.rows[0] <= r <= m.rows[1]:
            return hex_id(c, r)
        return None

    def put_terrain(h: HexId, t: str) -> None:
        if TERRAIN_RANK.get(t, 0) >= TERRAIN_RANK.get(m.terrain.get(h, m.default), 0):
            m.terrain[h] = t

    # areas -> terrain
    for area in geo.get("areas") or []:
        t = area.get("terrain")
        if t is None or t not in table.terrain:
            m.notes.append(f"area {area['key']} ({t}) not drawn: no such terrain in {game}")
            continue
        if area.get("hexes"):  # hexes the rules name (AGS-K 19.25: the Dniepr 2907-3911)
            for h in area["hexes"]:
                if grid.contains(normalize(str(h))):
                    put_terrain(normalize(str(h)), str(t))
            continue
        poly = [proj.point(lat, lon) for lat, lon in area["polygon"]]
        hit = [h for h in grid.all_hexes() if _inside(proj.centre(*parse_hex(h)), poly)]
        if not hit:  # a polygon smaller than a hex: the hex of its centre
            cx = sum(p[0] for p in poly) / len(poly)
            cy = sum(p[1] for p in poly) / len(poly)
            h1 = on_map(*proj.nearest((cx, cy)))
            hit = [h1] if h1 else []
        for h in hit:
            put_terrain(h, str(t))

    # places -> names and town/city terrain (cities first, so they keep their names)
    order = {"city": 0, "town": 1, "village": 2}
    for p in sorted(places.values(), key=lambda p: order.get(str(p["kind"]), 3)):
        centre = proj.point(float(p["lat"]), float(p["lon"]))
        home = on_map(*proj.nearest(centre))
        if p.get("hexes"):
            foot = [normalize(str(h)) for h in p["hexes"]]
        elif int(p.get("size", 1)) > 1:
            ranked = sorted(
                grid.all_hexes(),
                key=lambda h: (math.dist(proj.centre(*parse_hex(h)), centre), h),
            )
            foot = ranked[: int(p["size"])]
        else:
            foot = [home] if home else []
        kind = str(p["kind"])
        if kind == "village" and geo.get("villages") in table.terrain:
            kind = str(geo["villages"])  # Kursk: a named village is a town hex (K91)
        for h in foot:
            if not grid.contains(h):
                continue
            if h not in m.names:
                m.names[h] = str(p["name"])
            if kind in ("city", "town") and kind in table.terrain:
                put_terrain(h, kind)

    # rivers -> hexsides
    pairs = _pairs(grid, proj)
    river_sides: dict[str, set[Hexside]] = {}
    for river in geo.get("rivers") or []:
        feat = river.get("feature")
        if feat is None or feat not in table.hexsides:
            continue
        line = [proj.point(lat, lon) for lat, lon in river["points"]]
        crossed = _crossed(line, pairs)
        river_sides[str(river["key"])] = crossed
        for side in crossed:
            old = m.hexsides.get(side)
            if old is None or FEATURE_RANK.get(str(feat), 0) > FEATURE_RANK.get(old, 0):
                m.hexsides[side] = str(feat)
        if river.get("label"):  # a river the victory conditions name (Kursk VPs, K68)
            m.rivers.setdefault(str(river["label"]), set()).update(crossed)
    no_bridge: set[Hexside] = set()
    for river in geo.get("rivers") or []:
        if river.get("bridges", True) is False and river.get("feature") in table.hexsides:
            line = [proj.point(lat, lon) for lat, lon in river["points"]]
            no_bridge |= {s for s in _crossed(line, pairs) if m.hexsides.get(s) == river["feature"]}

    # routes -> road chains that keep to one bank (roadpath.py); a bridge wherever a road
    # still crosses a river, unless that river is never bridged (the Dnieper)
    water = {s: f for s, f in m.hexsides.items() if f in table.hexsides}
    for route in geo.get("routes") or []:
        kind = str(route["kind"])
        if kind not in table.roads:
            m.notes.append(f"route {route['name']!r} not drawn: no road kind {kind!r} in {game}")
            continue
        pts: list[Point] = []
        for v in route["via"]:
            if isinstance(v, str):
                p = places[v]
                pts.append(proj.point(float(p["lat"]), float(p["lon"])))
            else:
                pts.append(proj.point(float(v[0]), float(v[1])))
        towns = {hex_id(*proj.nearest(p)) for p in pts if on_map(*proj.nearest(p))}
        for chain in _rasterise(pts, proj, grid):
            traced = keep_to_banks(
                chain, towns, pts, grid, lambda h: proj.centre(*parse_hex(h)), water, no_bridge
            )
            m.roads.append((kind, _unspur(traced)))
    for _kind, chain in m.roads:
        for a, b in itertools.pairwise(chain):
            s = hexside(a, b)
            if s in water and s not in no_bridge:
                m.bridges.add(s)

    # fortified lines -> facing hexsides of the hexes the line passes through
    for fl in geo.get("lines") or []:
        feat = str(fl.get("feature", "fortified-line"))
        if fl.get("along"):  # a line on a river's bank: that river's hexsides in a box
            box = fl["along"]
            c0, c1 = box.get("cols", m.cols)
            r0, r1 = box.get("rows", m.rows)
            for s in river_sides.get(str(box["river"]), set()):
                if all(c0 <= parse_hex(h)[0] <= c1 and r0 <= parse_hex(h)[1] <= r1 for h in s):
                    m.lines[s] = feat
            continue
        pts = [proj.point(lat, lon) for lat, lon in fl["points"]]
        facing = [_bearing_vector(float(b), proj) for b in fl.get("facing", [0])]
        for chain in _rasterise(pts, proj, grid):
            members = set(chain)
            for h in chain:
                hx, hy = proj.centre(*parse_hex(h))
                for n in grid.neighbours(h):
                    if n in members:
                        continue
                    nx, ny = proj.centre(*parse_hex(n))
                    d = (nx - hx, ny - hy)
                    if any(d[0] * f[0] + d[1] * f[1] > 0.3 for f in facing):
                        m.lines[hexside(h, n)] = feat  # beside a river too

    # zones on an edge
    for letter, z in (geo.get("zones") or {}).items():
        lo, hi = int(z["cols"][0]), int(z["cols"][1])
        row = m.rows[1] if z.get("edge", "S") == "S" else m.rows[0]
        m.zones[str(letter)] = [hex_id(c, row) for c in range(lo, hi + 1) if lo <= c <= hi]

    if override:
        apply_override(m, override)
    return m


@dataclass(frozen=True)
class TerrainNames:
    """The terrain, hexside and road names a game's maps may use."""

    terrain: frozenset[str]
    hexsides: frozenset[str]
    roads: frozenset[str]


def terrain_names(game: str) -> TerrainNames:
    """From the game's terrain table: WB-95's TERRAIN INFLUENCE, or the AGS TEC (game
    `ags`, issue #19)."""
    if game == "ags":
        from scenarios.ags.tables import load_tec  # the AGS package imports nothing here

        tec = load_tec()
        return TerrainNames(frozenset(tec.terrain), frozenset(tec.hexsides), frozenset(tec.roads))
    t = load_table(game)
    return TerrainNames(frozenset(t.terrain), frozenset(t.hexsides), frozenset(t.roads))


def _bearing_vector(bearing: float, proj: Projection) -> Point:
    """A compass bearing as a unit vector of the map plane (x right, y down)."""
    t = math.radians(bearing - proj.rotation_deg)
    return math.sin(t), -math.cos(t)


def _pairs(grid: Grid, proj: Projection) -> list[tuple[Hexside, Point, Point]]:
    out = []
    for h in grid.all_hexes():
        for n in grid.neighbours(h):
            if h < n:
                out.append((hexside(h, n), proj.centre(*parse_hex(h)), proj.centre(*parse_hex(n))))
    return out


def _crossed(line: Sequence[Point], pairs: Iterable[tuple[Hexside, Point, Point]]) -> set[Hexside]:
    pairs = list(pairs)
    out: set[Hexside] = set()
    for p, q in itertools.pairwise(line):
        xlo, xhi = min(p[0], q[0]) - 1, max(p[0], q[0]) + 1
        ylo, yhi = min(p[1], q[1]) - 1, max(p[1], q[1]) + 1
        for side, a, b in pairs:
            if xlo <= a[0] <= xhi and ylo <= a[1] <= yhi and _crosses(p, q, a, b):
                out.add(side)
    return out


def _unspur(chain: list[HexId]) -> list[HexId]:
    """Drop there-and-back steps (x y x -> x) and repeats from a chain."""
    out: list[HexId] = []
    for h in chain:
        if out and out[-1] == h:
            continue
        if len(out) >= 2 and out[-2] == h:
            out.pop()
            continue
        out.append(h)
    return out


def _rasterise(pts: Sequence[Point], proj: Projection, grid: Grid) -> list[list[HexId]]:
    """The hexes a polyline passes through, as chains of adjacent on-map hexes."""
    chains: list[list[HexId]] = []
    cur: list[HexId] = []
    for p, q in itertools.pairwise(pts):
        n = max(1, math.ceil(math.dist(p, q) / SAMPLE_STEP))
        for i in range(n + 1):
            t = i / n
            c, r = proj.nearest((p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t))
            h = hex_id(c, r) if 0 <= c <= 99 and 0 <= r <= 99 else None
            if h is None or not grid.contains(h):
                if len(cur) >= 2:
                    chains.append(cur)
                cur = []
                continue
            if cur and cur[-1] == h:
                continue
            if cur and not grid.adjacent(cur[-1], h):
                common = sorted(set(grid.neighbours(cur[-1])) & set(grid.neighbours(h)))
                if common:
                    cur.append(common[0])
                else:
                    if len(cur) >= 2:
                        chains.append(cur)
                    cur = []
            if len(cur) >= 2 and cur[-2] == h:  # x y x: drop the spur
                cur.pop()
                continue
            cur.append(h)
    if len(cur) >= 2:
        chains.append(cur)
    return chains


# --- override ----------------------------------------------------------------------------
def _hex(v: object) -> HexId:
    return normalize(str(v))


def apply_override(m: Built, ov: dict[str, Any]) -> None:
    """Replace or add per hex (docs/maps.md, "Override file")."""
    for h, t in (ov.get("terrain") or {}).items():
        m.terrain[_hex(h)] = str(t)
    for h, name in (ov.get("names") or {}).items():
        if name is None:
            m.names.pop(_hex(h), None)
        else:
            m.names[_hex(h)] = str(name)
    for hs in ov.get("hexsides") or []:
        side = hexside(_hex(hs["hexes"][0]), _hex(hs["hexes"][1]))
        if hs.get("feature") is None:
            m.hexsides.pop(side, None)
            m.lines.pop(side, None)
            m.bridges.discard(side)
        elif hs["feature"] == "fortified-line":
            m.lines[side] = "fortified-line"
        else:
            m.hexsides[side] = str(hs["feature"])
    br = ov.get("bridges") or {}
    for a, b in br.get("remove") or []:
        m.bridges.discard(hexside(_hex(a), _hex(b)))
    for a, b in br.get("add") or []:
        m.bridges.add(hexside(_hex(a), _hex(b)))
    rd = ov.get("roads") or {}
    gone = {_hex(h) for h in rd.get("remove") or []}
    if gone:
        kept: list[tuple[str, list[HexId]]] = []
        for kind, chain in m.roads:
            run: list[HexId] = []
            for h in [*chain, None]:
                if h is None or h in gone:
                    if len(run) >= 2:
                        kept.append((kind, run))
                    run = []
                else:
                    run.append(h)
        m.roads = kept
    for r in rd.get("add") or []:
        m.roads.append((str(r["kind"]), [_hex(h) for h in r["hexes"]]))
    for letter, hexes in (ov.get("zones") or {}).items():
        m.zones[str(letter)] = [_hex(h) for h in hexes]
    for letter, hexes in (ov.get("edges") or {}).items():
        m.edges[str(letter)] = [_hex(h) for h in hexes]


# --- output ------------------------------------------------------------------------------
def _j(v: object) -> str:
    return json.dumps(v, ensure_ascii=False)


def render(m: Built, geo_name: str, override_name: str | None) -> str:
    """The map file: YAML (JSON flow values), sorted, with a generated-file header."""
    src = f"scenarios/geography/{geo_name}.yaml"
    if override_name:
        src += f" + scenarios/maps/{override_name}.override.yaml"
    out = [
        "# GENERATED FILE - do not edit by hand.",
        f"# Built by `python -m scenarios.mapbuild {m.id}` from {src}.",
        "# Edit the geography (or the override file) and rebuild; see docs/maps.md.",
        f"id: {_j(m.id)}",
        f"game: {_j(m.game)}",
        f"source: {_j('generated from ' + src)}",
        # built from present-day geography fitted to the rulebook's set-ups (docs/maps.md)
        'provenance: "reconstructed"',
        f"notes: {_j('; '.join(m.notes))}",
        f"layout: {_j(m.layout)}",
        f"cols: {_j(list(m.cols))}",
        f"rows: {_j(list(m.rows))}",
        f"default: {_j(m.default)}",
    ]

    def mapping(key: str, d: dict[str, Any]) -> None:
        if not d:
            out.append(f"{key}: {{}}")
            return
        out.append(f"{key}:")
        out.extend(f"  {_j(k)}: {_j(d[k])}" for k in sorted(d))

    def seq(key: str, items: list[Any]) -> None:
        if not items:
            out.append(f"{key}: []")
            return
        out.append(f"{key}:")
        out.extend(f"  - {_j(i)}" for i in items)

    if m.holes:
        out.append(f"holes: {_j(sorted(m.holes))}")
    mapping("terrain", {h: t for h, t in m.terrain.items() if t != m.default})
    mapping("names", m.names)
    seq(
        "hexsides",
        [
            {"hexes": list(s), "feature": f}
            for s, f in sorted([*m.hexsides.items(), *m.lines.items()])
        ],
    )
    seq("bridges", [list(s) for s in sorted(m.bridges)])
    seq("roads", [{"kind": k, "hexes": c} for k, c in sorted(m.roads)])
    mapping("zones", m.zones)
    mapping("edges", m.edges)
    if m.rivers:  # only hexsides that still carry water after the override
        water = {"river", "stream", "big-river"}
        mapping(
            "rivers",
            {
                n: [list(s) for s in sorted(hs) if m.hexsides.get(s) in water]
                for n, hs in m.rivers.items()
            },
        )
    return "\n".join(out) + "\n"


def _override(map_id: str) -> dict[str, Any] | None:
    ov_path = MAPS_DIR / f"{map_id}.override.yaml"
    if not ov_path.is_file():
        return None
    data = read_yaml_file(ov_path)
    return data if isinstance(data, dict) else {}


def map_path(map_id: str) -> Path:
    """Where a built map goes: `scenarios/maps/<id>.yaml`, or under the folder its
    geography names (`maps_dir: ags` -> `scenarios/maps/ags/`, a rule system whose maps
    the WB-95 loader must not read)."""
    sub = read_geography(map_id).get("maps_dir")
    return MAPS_DIR / str(sub) / f"{map_id}.yaml" if sub else MAPS_DIR / f"{map_id}.yaml"


def build_text(map_id: str) -> str:
    """The text of `scenarios/maps/<map_id>.yaml` as a fresh build makes it."""
    geo = read_geography(map_id)
    override = _override(map_id)
    built = build_joint(geo) if geo.get("join") else build(geo, override)
    if geo.get("join") and override:
        apply_override(built, override)
    return render(built, map_id, map_id if override is not None else None)


def build_joint(geo: dict[str, Any]) -> Built:
    """Join built sheets into one map (`join: [{map, shift: [cols, rows]}, ...]`, the Kursk
    joint game, docs/maps.md): each sheet's hexes are moved by its shift (an even number
    of columns, so the half-hex offsets of its columns stay as printed), the rest of the
    frame is `holes`, and the edges are the sheets' printed outer edges (`edges`)."""
    frame = geo["frame"]
    first: Built | None = None
    on: set[HexId] = set()
    outer: dict[str, list[HexId]] = {"N": [], "S": [], "E": [], "W": []}
    seams: list[set[HexId]] = []  # per sheet: its border hexes that are not outer edges
    m: Built | None = None
    for part in geo["join"]:
        b = build(read_geography(str(part["map"])), _override(str(part["map"])))
        dc, dr = (int(x) for x in part.get("shift", (0, 0)))
        if dc % 2:
            raise ScenarioError(str(geo["id"]), "join.shift", "shift columns by an even number")
        if m is None:
            first = b
            m = Built(
                id=str(geo["id"]),
                game=b.game,
                cols=(int(frame["cols"][0]), int(frame["cols"][1])),
                rows=(int(frame["rows"][0]), int(frame["rows"][1])),
                default=str(frame.get("default", b.default)),
                layout=b.layout,
            )

        def tr(h: HexId, dc: int = dc, dr: int = dr) -> HexId:
            c, r = parse_hex(h)
            return hex_id(c + dc, r + dr)

        def trs(s: Hexside) -> Hexside:
            return hexside(tr(s[0]), tr(s[1]))

        on |= {tr(h) for h in b.grid.all_hexes()}
        m.terrain.update({tr(h): t for h, t in b.terrain.items()})
        m.names.update({tr(h): n for h, n in b.names.items()})
        m.hexsides.update({trs(s): f for s, f in b.hexsides.items()})
        m.lines.update({trs(s): f for s, f in b.lines.items()})
        m.bridges |= {trs(s) for s in b.bridges}
        m.roads += [(k, [tr(h) for h in chain]) for k, chain in b.roads]
        for z, hexes in b.zones.items():
            m.zones.setdefault(z, []).extend(tr(h) for h in hexes)
        for n, sides in b.rivers.items():
            m.rivers.setdefault(n, set()).update(trs(s) for s in sides)
        (c0, c1), (r0, r1) = b.cols, b.rows
        kept = part.get("edges", ["N", "S", "E", "W"])
        seams.append(set())
        for edge in ("N", "S", "E", "W"):
            keep = {"N": (None, r0), "S": (None, r1), "W": (c0, None), "E": (c1, None)}[edge]
            border = [
                tr(h)
                for h in b.grid.all_hexes()
                if (keep[0] is None or parse_hex(h)[0] == keep[0])
                and (keep[1] is None or parse_hex(h)[1] == keep[1])
            ]
            if edge in kept:
                outer[edge] += border
            else:
                seams[-1].update(border)
        m.notes += [f"{b.id}: {n}" for n in b.notes]
    assert m is not None and first is not None
    m.holes = {h for h in Grid(cols=m.cols, rows=m.rows).all_hexes() if h not in on}
    m.edges = {e: sorted(hs) for e, hs in outer.items() if hs}
    _join_roads_at_seams(m, seams)
    m.notes += join_rivers(m.grid, m.rivers, m.hexsides, seams)
    return m


SEAM_REACH = 3  # hexes: road ends this close across a seam are one road


def _join_roads_at_seams(m: Built, seams: list[set[HexId]]) -> None:
    """A road that left its sheet where the other sheet now abuts it continues on that
    sheet's road: join the two ends (the Kursk - Oboyan highway, issue #18)."""
    grid = m.grid
    ends = [
        (i, chain[k], kind)
        for kind, chain in m.roads
        for k in (0, -1)
        for i, seam in enumerate(seams)
        if chain[k] in seam
    ]
    used: set[HexId] = set()
    for i, a, kind in ends:
        if a in used:
            continue
        near = sorted(
            (grid.distance(a, b), kind2 != kind, b)
            for j, b, kind2 in ends
            if j != i and b not in used and grid.distance(a, b) <= SEAM_REACH
        )
        if near:
            b = near[0][2]
            used |= {a, b}
            m.roads.append((kind, grid.line(a, b)))


def write_map(map_id: str) -> Path:
    path = map_path(map_id)
    path.parent.mkdir(exist_ok=True)
    path.write_text(build_text(map_id), encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="mapbuild", description="build a map from its geography")
    p.add_argument("ids", nargs="+", help="map ids (scenarios/geography/<id>.yaml)")
    p.add_argument("--check", action="store_true", help="only check the committed file is fresh")
    args = p.parse_args(argv)
    status = 0
    for map_id in args.ids:
        try:
            if args.check:
                fresh = build_text(map_id)
                path = map_path(map_id)
                if not path.is_file() or path.read_text(encoding="utf-8") != fresh:
                    print(f"{path}: out of date (rebuild it)", file=sys.stderr)
                    status = 1
            else:
                print(f"wrote {write_map(map_id)}")
        except ScenarioError as e:
            print(f"mapbuild: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
