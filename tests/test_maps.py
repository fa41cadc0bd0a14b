"""The shipped maps (scenarios/maps/) built from their geography by scenarios/mapbuild.py
(docs/maps.md): they load, are fresh builds, and agree with the references."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from engine.hexgrid import Grid, HexId, Hexside, hexside, parse_hex
from engine.model import MapData
from scenarios import load_scenario_data, load_table
from scenarios.mapbuild import (
    MAPS_DIR,
    Built,
    apply_override,
    build,
    build_text,
    projection_of,
    read_geography,
)

MAP_IDS = ("korsun", "kursk", "prokhorovka")
KORSUN_VP_CITIES = {
    "Korsuń": 4,
    "Gorodiszczce": 4,
    "Smieła": 6,
    "Nowomirgorod": 5,
    "Szpoła": 4,
    "Katerynopol": 4,
}
RIVERS = ("stream", "river", "big-river")


def load_map(map_id: str) -> MapData:
    geo = read_geography(map_id)
    data: dict[str, Any] = {
        "id": f"t-map-{map_id}",
        "system": "wb95",
        "game": geo["game"],
        "initiative": "soviet",
        "turns": 1,
        "map": map_id,
        "sides": {
            "soviet": {"nation": "soviet", "supply": [{"edge": "E"}]},
            "german": {"nation": "german", "supply": [{"edge": "S"}]},
        },
        "units": [],
    }
    return load_scenario_data(data, name="test").map


@pytest.fixture(scope="module", params=MAP_IDS)
def shipped(request: pytest.FixtureRequest) -> tuple[str, MapData, dict[str, Any]]:
    return request.param, load_map(request.param), read_geography(request.param)


def test_each_map_loads_through_the_loader(shipped: tuple[str, MapData, dict[str, Any]]) -> None:
    map_id, m, _geo = shipped
    assert m.id == map_id
    assert m.terrain and m.names and m.hexsides and m.roads


@pytest.mark.parametrize("map_id", MAP_IDS)
def test_committed_map_equals_a_fresh_build(map_id: str) -> None:
    committed = (MAPS_DIR / f"{map_id}.yaml").read_text(encoding="utf-8")
    assert committed == build_text(map_id), f"rebuild: python -m scenarios.mapbuild {map_id}"


def test_frames_match_the_rulebook_numbering() -> None:
    assert (load_map("korsun").grid.cols, load_map("korsun").grid.rows) == ((1, 64), (0, 35))
    assert load_map("kursk").grid.cols == (1, 31)
    assert load_map("prokhorovka").grid.cols == (34, 63)


def test_setup_hexes_are_on_the_map_and_passable_on_foot(
    shipped: tuple[str, MapData, dict[str, Any]],
) -> None:
    _id, m, geo = shipped
    table = load_table(geo["game"])
    hexes = geo["checks"]["setup_hexes"]
    assert len(hexes) > 50
    for h in hexes:
        assert m.grid.contains(h), h
        assert table.terrain[m.terrain_of(h)].cost.get("foot") is not None, h


def test_named_places_are_where_the_projection_puts_them(
    shipped: tuple[str, MapData, dict[str, Any]],
) -> None:
    _id, m, geo = shipped
    proj = projection_of(geo)
    checked = 0
    for p in geo["places"]:
        if "hex" not in p:
            continue
        c, r = proj.nearest(proj.point(p["lat"], p["lon"]))
        assert f"{c:02d}{r:02d}" == p["hex"], p["key"]  # the reference's hex
        # the hex carries this place's name unless a bigger place took it
        assert m.names.get(p["hex"]), p["key"]
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("map_id", "name", "hex_"),
    [
        ("korsun", "Korsuń", "3312"),
        ("korsun", "Gorodiszczce", "3916"),
        ("korsun", "Smieła", "5315"),
        ("korsun", "Szpoła", "4227"),
        ("korsun", "Katerynopol", "3032"),
        ("korsun", "Nowomirgorod", "5234"),
        ("korsun", "Zwienigorodka", "2827"),
        ("kursk", "Kursk", "1626"),
        ("kursk", "Ponoryi", "1807"),
        ("kursk", "Fatież", "0814"),
        ("kursk", "Zołotino", "2014"),
        ("kursk", "Małoarchangielsk", "2304"),
        ("prokhorovka", "Bielgorod", "5026"),
        ("prokhorovka", "Prokhorovka", "5412"),
        ("prokhorovka", "Obojań", "4307"),
    ],
)
def test_reference_anchor_places(map_id: str, name: str, hex_: str) -> None:
    m = load_map(map_id)
    assert m.names[hex_] == name
    assert m.terrain_of(hex_) in ("town", "city")


def _connected(hexes: set[HexId], grid: Grid) -> bool:
    todo = [min(hexes)]
    seen = {todo[0]}
    while todo:
        for n in grid.neighbours(todo.pop()):
            if n in hexes and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == hexes


def test_korsun_victory_cities_are_multi_hex_and_support_15_13() -> None:
    m = load_map("korsun")
    total = 0
    for name, size in KORSUN_VP_CITIES.items():
        hexes = {h for h, n in m.names.items() if n == name}
        assert len(hexes) == size, name
        assert all(m.terrain_of(h) == "city" for h in hexes), name
        assert _connected(hexes, m.grid), name
        total += len(hexes)
    # 27 VP hexes: a German win needs 15 (more than half), a Soviet one 13 (under half):
    # neither side starts holding its threshold and both need most of the cities.
    assert total == 27
    assert 13 < 15 <= total and total - 15 < 13


def _sides_meet(a: Hexside, b: Hexside, grid: Grid) -> bool:
    """Two hexsides share a hex corner: three mutually adjacent hexes."""
    hexes = set(a) | set(b)
    return len(hexes) == 3 and all(grid.adjacent(x, y) for x in hexes for y in hexes if x < y)


def test_dnieper_is_a_connected_chain_of_big_river_hexsides() -> None:
    m = load_map("korsun")
    sides = [s for s, f in m.hexsides.items() if "big-river" in f]
    assert len(sides) > 30
    seen = {sides[0]}
    todo = [sides[0]]
    while todo:
        s = todo.pop()
        for t in sides:
            if t not in seen and _sides_meet(s, t, m.grid):
                seen.add(t)
                todo.append(t)
    assert seen == set(sides)
    # it cuts the north-east corner: Cherkassy side (5605) against the left bank (6400)
    cols = [parse_hex(h)[0] for s in sides for h in s]
    assert min(cols) <= 40 and max(cols) == 64


def test_korsun_rivers_of_the_reference_are_drawn() -> None:
    geo = read_geography("korsun")
    m = load_map("korsun")
    proj = projection_of(geo)
    built = build(geo)
    for key in ("ros", "rossava", "hnyly_tikych", "olshanka", "tiasmin", "shpolka"):
        river = next(r for r in geo["rivers"] if r["key"] == key)
        assert river["feature"] in RIVERS
        assert any(f == river["feature"] for f in built.hexsides.values()), key
    assert proj.rotation_deg == 15.0
    assert {"river", "stream", "big-river"} <= {f for fs in m.hexsides.values() for f in fs}


@pytest.mark.parametrize("map_id", MAP_IDS)
def test_every_road_is_a_chain_of_adjacent_hexes(map_id: str) -> None:
    geo = read_geography(map_id)
    built = build(geo)
    grid = built.grid
    assert built.roads
    for _kind, chain in built.roads:
        assert len(chain) >= 2
        for a, b in itertools.pairwise(chain):
            assert grid.adjacent(a, b), (a, b)


@pytest.mark.parametrize("map_id", MAP_IDS)
def test_bridges_sit_on_river_hexsides_that_a_road_crosses(map_id: str) -> None:
    m = load_map(map_id)
    assert m.bridges
    for side in m.bridges:
        assert m.hexsides[side] & set(RIVERS), side
        assert side in m.roads, side


def test_no_road_crosses_the_dnieper_without_a_bridge() -> None:
    m = load_map("korsun")
    for side in m.roads:
        if "big-river" in m.hexsides.get(side, frozenset()):
            assert side in m.bridges, side


def test_korsun_zones_a_to_f_on_the_south_edge() -> None:
    m = load_map("korsun")
    assert sorted(m.zones) == ["A", "B", "C", "D", "E", "F"]
    south = set(m.edges["S"])
    starts = []
    for letter in "ABCDEF":
        assert m.zones[letter] and set(m.zones[letter]) <= south, letter
        starts.append(min(parse_hex(h)[0] for h in m.zones[letter]))
    assert starts == sorted(starts)  # lettered west -> east


def test_kursk_maps_have_rivers_fortified_lines_and_objectives() -> None:
    k, p = load_map("kursk"), load_map("prokhorovka")
    kf = {f for fs in k.hexsides.values() for f in fs}
    pf = {f for fs in p.hexsides.values() for f in fs}
    assert {"river", "fortified-line"} <= kf
    assert {"river", "big-river", "fortified-line"} <= pf  # big-river = the Donets
    kursk_city = {h for h, n in k.names.items() if n == "Kursk"}
    assert len(kursk_city) == 4 and all(k.terrain_of(h) == "city" for h in kursk_city)
    geo = read_geography("kursk")
    for key in ("seym", "tuskar", "sosna"):
        assert next(r for r in geo["rivers"] if r["key"] == key)["feature"] == "river"


def test_override_replaces_and_adds_per_hex() -> None:
    m = Built(id="x", game="korsun", cols=(1, 5), rows=(1, 5), default="clear", layout="even-q")
    m.hexsides[hexside("0202", "0203")] = "river"
    m.bridges.add(hexside("0202", "0203"))
    m.roads.append(("main", ["0201", "0202", "0203", "0204"]))
    apply_override(
        m,
        {
            "terrain": {"0303": "forest"},
            "names": {"0303": "Wood", "0101": None},
            "hexsides": [{"hexes": ["0202", "0203"], "feature": None}],
            "roads": {"remove": ["0203"], "add": [{"kind": "side", "hexes": ["0301", "0302"]}]},
            "bridges": {"add": [["0301", "0302"]]},
            "zones": {"A": ["0105"]},
        },
    )
    assert m.terrain["0303"] == "forest" and m.names["0303"] == "Wood"
    assert hexside("0202", "0203") not in m.hexsides and not m.bridges - {("0301", "0302")}
    assert m.roads == [("main", ["0201", "0202"]), ("side", ["0301", "0302"])]
    assert m.zones == {"A": ["0105"]}


def test_projection_round_numbers() -> None:
    proj = projection_of(read_geography("korsun"))
    x, y = proj.point(49.2016, 31.1909)
    assert math.isclose(x, 33 * math.sqrt(3) / 2) and math.isclose(y, 21.0)
    assert proj.nearest((x, y)) == (33, 21)


def test_kessel_buildmap_check(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    assert main(["buildmap", "korsun", "--check"]) == 0
    assert main(["buildmap", "nosuchmap", "--check"]) == 1
    assert "no geography" in capsys.readouterr().err
