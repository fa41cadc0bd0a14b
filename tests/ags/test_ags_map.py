"""The reconstructed Korsun map (scenarios/geography/ags-korsun.yaml -> scenarios/maps/ags/)
fitted to every hex the text names; built by the shared pipeline (docs/maps.md)."""

from __future__ import annotations

import itertools

import pytest

from engine.ags.zoc import zoc_neighbours
from scenarios.ags.maps import MAPS_DIR, load_board
from scenarios.mapbuild import build_text, map_path


def test_committed_map_equals_a_fresh_build() -> None:
    assert map_path("ags-korsun") == MAPS_DIR / "ags-korsun.yaml"
    committed = map_path("ags-korsun").read_text(encoding="utf-8")
    assert committed == build_text("ags-korsun"), "rebuild: python -m scenarios.mapbuild ags-korsun"


def test_frame_and_terrain_set_a00() -> None:
    b = load_board()
    assert b.grid.cols == (1, 39) and b.grid.rows == (1, 26) and b.grid.layout == "even-q"
    assert b.provenance == "reconstructed"
    assert set(b.terrain.values()) <= {"clear", "woods", "city", "town", "dnieper"}  # terrain key
    assert set(b.hexsides.values()) == {"minor-river", "major-river"}
    assert b.grid.adjacent("1214", "1215") and b.grid.adjacent("1214", "1315")  # A00, 21.11


def test_19_25_dnieper_hexes_2907_to_3911() -> None:
    b = load_board()
    river = sorted(h for h, t in b.terrain.items() if t == "dnieper")
    assert river[0] == "2907" and river[-1] == "3911"
    assert all(b.blocked(h) for h in river)
    assert all(b.grid.adjacent(a, c) for a, c in itertools.pairwise(river))
    assert zoc_neighbours(b, "3008") and "3007" not in zoc_neighbours(b, "3008")


@pytest.mark.parametrize(
    "h", ["0117", "0626", "1726", "2226", "3215", "0608", "0611", "0709", "3217", "3317", "1502"]
)
def test_named_hexes_are_on_open_ground(h: str) -> None:
    b = load_board()
    assert b.grid.contains(h) and not b.blocked(h)


def test_supply_hexes_on_the_west_and_south_edges_19_72() -> None:
    b = load_board()
    assert "0117" in b.edge("W")
    assert {"0626", "1726", "2226"} <= set(b.edge("S"))


def test_places_where_the_fit_puts_them() -> None:
    b = load_board()
    assert b.names["2812"] == "Korsun" and b.terrain["2812"] == "town"
    assert b.names["3215"] == "Tsvetkovo" and b.names["2415"] == "Lysyanka"
    assert b.names["0616"] == "Pogrebishche" and b.names["0114"] == "Kazatin"
    assert b.terrain["3711"] == "city"  # Cherkassy, beside the river hexes


def test_roads_cross_rivers_and_never_the_dnieper_hexes() -> None:
    b = load_board()
    assert b.roads
    assert not any(b.blocked(h) for side in b.roads for h in side)
    assert any(side in b.hexsides for side in b.roads)  # AGS-K 19.22: roads cross rivers
