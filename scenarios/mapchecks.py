"""Geography checks of `kessel validate` (issue #18): faults a hex map drawn from public
geography is prone to, which the loader accepts because each is legal on its own.

- a road that crosses water (a river, stream or the Donets) with no bridge;
- a road that stops in the open: its last hex neither a map edge nor a named place (a road
  broken where two sheets of a joint map meet, or cut by an override);
- an entry zone with no road hex, an entry hex that is not on a road (the references put
  the rulebooks' entry zones and hexes where roads leave the map, as 11.2.4 makes every
  road that leaves an edge an entry zone; a unit entering off the road pays the terrain);
- a unit set up on the wrong bank: a scenario's `special.banks` names a river feature, a
  box of the map and the two sides (or lists of units) that face each other across it;
- a river that stops short of a place that stands on it (shipped maps only: the place and
  the river's course come from `scenarios/geography/<id>.yaml`).

Each function returns messages in validate's `file: key: text` form.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.hexgrid import HexId, hexside, normalize, parse_hex
from engine.model import MapData, TerrainTable


def water(table: TerrainTable) -> frozenset[str]:
    """The hexside features that are water: the rows of the game's TERRAIN INFLUENCE."""
    return frozenset(table.hexsides)


def unbridged_roads(m: MapData, table: TerrainTable, file: str) -> list[str]:
    wet = water(table)
    out = []
    for (a, b), kinds in sorted(m.roads.items()):
        feats = m.hexsides.get((a, b), frozenset()) & wet
        if feats and (a, b) not in m.bridges:
            out.append(
                f"{file}: roads: the {'/'.join(sorted(kinds))} road between {a} and {b} crosses "
                f"the {'/'.join(sorted(feats))} with no bridge (bridge it where the real road "
                "crosses, or keep the road on one bank)"
            )
    return out


def broken_roads(m: MapData, file: str) -> list[str]:
    degree: dict[HexId, int] = {}
    for a, b in m.roads:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    edge = {h for hexes in m.edges.values() for h in hexes}
    return [
        f"{file}: roads: a road stops at {h}, neither at a named place nor at a map edge "
        "(a broken road? on a joint map: continue it across the seam)"
        for h, n in sorted(degree.items())
        if n == 1 and h not in edge and h not in m.names
    ]


WHERE = "the maps put entry zones and hexes where roads leave the map, cf. 11.2.4"


def entry_roads(m: MapData, entries: Iterable[tuple[str, str | None, HexId | None]]) -> list[str]:
    """`entries`: (key, zone, hex) of each arrival; each zone and hex is reported once."""
    on_road = {h for side in m.roads for h in side}
    out: list[str] = []
    seen: set[str] = set()
    for key, zone, h in entries:
        if zone is not None and zone in m.zones and zone not in seen:
            seen.add(zone)
            if not set(m.zones[zone]) & on_road:
                out.append(f"{key}.zone: entry zone {zone} has no road hex ({WHERE})")
        if h is not None and h not in seen and m.grid.contains(h):
            seen.add(h)
            if h not in on_road:
                out.append(f"{key}.hex: entry hex {m.label(h)} is not on a road ({WHERE})")
    return out


def _in_box(h: HexId, box: Mapping[str, Any]) -> bool:
    c, r = parse_hex(h)
    c0, c1 = box.get("cols") or (0, 99)
    r0, r1 = box.get("rows") or (0, 99)
    return int(c0) <= c <= int(c1) and int(r0) <= r <= int(r1)


def banks(
    m: MapData,
    rules: Sequence[Any],
    placed: Sequence[tuple[str, str, HexId]],
    file: str,
) -> list[str]:
    """`special.banks: [{feature, area: {cols, rows}, apart: [A, B], label}]`: within the
    area, cut along the feature's hexsides, A's units all stand on one bank and B's on
    another (A, B: a side's name or a list of unit ids)."""
    out: list[str] = []
    for j, rule in enumerate(rules):
        key = f"{file}: special.banks[{j}]"
        if not isinstance(rule, Mapping) or not isinstance(rule.get("apart"), list):
            out.append(f"{key}: give feature, area and apart: [side or [unit ids], ...]")
            continue
        feature = str(rule.get("feature", "river"))
        box = rule.get("area") or {}
        label = str(rule.get("label") or f"the {feature}")
        bank = _banks(m, feature, box)
        groups: list[tuple[str, set[int]]] = []
        for g in rule["apart"]:
            ids = {str(u) for u in g} if isinstance(g, list) else None
            who = [
                (uid, h)
                for uid, side, h in placed
                if (uid in ids if ids is not None else side == str(g)) and _in_box(h, box)
            ]
            name = str(g) if ids is None else ", ".join(sorted(ids))
            if not who:
                out.append(f"{key}.apart: no unit of {name} is set up in the area")
                continue
            found = {bank[h] for _, h in who}
            if len(found) > 1:
                first = bank[who[0][1]]
                odd = sorted(f"{uid} ({h})" for uid, h in who if bank[h] != first)
                out.append(
                    f"{key}: {name} stand on both banks of {label}: {', '.join(odd)} "
                    f"on the other bank from {who[0][0]} ({who[0][1]})"
                )
            groups.append((name, found))
        for (a, fa), (b, fb) in itertools.pairwise(groups):
            if fa & fb:
                out.append(f"{key}: {a} and {b} stand on the same bank of {label}")
    return out


def _banks(m: MapData, feature: str, box: Mapping[str, Any]) -> dict[HexId, int]:
    """Each hex of the area -> its bank: the part of the area it reaches without crossing
    a hexside with the feature."""
    area = [h for h in m.grid.all_hexes() if _in_box(h, box)]
    inside = set(area)
    bank: dict[HexId, int] = {}
    for start in area:
        if start in bank:
            continue
        bank[start] = len(bank)
        todo = [start]
        while todo:
            h = todo.pop()
            for n in m.grid.neighbours(h):
                if n in inside and n not in bank and feature not in m.features(h, n):
                    bank[n] = bank[start]
                    todo.append(n)
    return bank


def rivers_at_places(map_id: str, m: MapData, table: TerrainTable, file: str) -> list[str]:
    """A place of the geography that stands on a drawn river (its point within a third of
    a hex of the river's line) must touch a water hexside on the map: one of its hex's
    hexsides, or one that meets its hex at a corner (where a river rising there begins)."""
    from scenarios import mapbuild  # the build's projection; imported late (a heavy module)
    from scenarios.roadpath import line_distance

    geo = mapbuild.read_geography(map_id)
    parts = geo.get("join") or [{"map": map_id, "shift": [0, 0]}]
    sheets = [
        (geo if p["map"] == map_id else mapbuild.read_geography(str(p["map"])), p) for p in parts
    ]
    rivers = [
        r for g, _ in sheets for r in g.get("rivers") or [] if r.get("feature") in table.hexsides
    ]
    wet = water(table)
    out: list[str] = []
    for g, part in sheets:
        proj = mapbuild.projection_of(g)
        dc, dr = (int(x) for x in part.get("shift", (0, 0)))
        (c0, c1), (r0, r1) = g["frame"]["cols"], g["frame"]["rows"]
        for p in g.get("places") or []:
            at = proj.point(float(p["lat"]), float(p["lon"]))
            c, r = proj.nearest(at)
            if not (c0 <= c <= c1 and r0 <= r <= r1):
                continue
            hexes = [normalize(str(h)) for h in p.get("hexes") or []] or [f"{c:02d}{r:02d}"]
            hexes = [f"{parse_hex(h)[0] + dc:02d}{parse_hex(h)[1] + dr:02d}" for h in hexes]
            for river in rivers:
                line = [proj.point(lat, lon) for lat, lon in river["points"]]
                if line_distance(at, line) > 1 / 3:
                    continue
                if not any(_wet_at(m, h, wet) for h in hexes if m.grid.contains(h)):
                    out.append(
                        f"{file}: rivers: {p['name']} ({hexes[0]}) stands on the "
                        f"{river['name']}, but no river runs by its hex (the river stops "
                        "short of it or is not drawn on this sheet)"
                    )
    return out


def _wet_at(m: MapData, h: HexId, wet: frozenset[str]) -> bool:
    around = m.grid.neighbours(h)
    sides = [hexside(h, n) for n in around]
    sides += [hexside(a, b) for a in around for b in around if a < b and m.grid.adjacent(a, b)]
    return any(m.hexsides.get(s, frozenset()) & wet for s in sides)
