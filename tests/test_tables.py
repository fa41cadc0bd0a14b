"""The game tables kept as data: TERRAIN INFLUENCE (3.1.11, 3.1.12, 5.5.1, R10, R11, R15,
R24) and the 5.6.2 morale limits."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import pytest

from engine.model import Cost, TerrainTable
from scenarios import ScenarioError, load_morale, load_table


@pytest.fixture(scope="module")
def korsun() -> TerrainTable:
    return load_table("korsun")


@pytest.fixture(scope="module")
def kursk() -> TerrainTable:
    return load_table("kursk")


def costs(row_cost: Mapping[str, Cost]) -> tuple[object, object, object]:
    """(trucked, mechanized, foot) of a table row (R11)."""
    return row_cost["trucked"], row_cost["mechanized"], row_cost["foot"]


# --- Korsun (000) ----------------------------------------------------------------------------
def test_3_1_11_korsun_clear_costs(korsun: TerrainTable) -> None:
    clear = korsun.terrain["clear"]
    assert clear.cost["trucked"] == 3
    assert clear.cost["mechanized"] == 2
    assert clear.cost["foot"] == Fraction(3, 2)
    assert isinstance(clear.cost["foot"], Fraction)
    assert clear.combat == 0
    assert clear.base is None


def test_3_1_11_korsun_terrain_rows(korsun: TerrainTable) -> None:
    t = korsun.terrain
    assert costs(t["hills"].cost) == (3, Fraction(5, 2), 2)
    assert t["hills"].combat == -1
    assert costs(t["city"].cost) == (2, 2, 2)
    assert t["city"].combat == -1
    assert costs(t["town"].cost) == (2, 2, 1)
    assert t["town"].combat == -1


def test_3_1_12_korsun_forest_adds_to_clear(korsun: TerrainTable) -> None:
    forest = korsun.terrain["forest"]
    assert forest.base == "clear"
    assert costs(forest.cost) == (1, 1, 1)
    assert forest.combat == -1


def test_r10_korsun_swamp_closed_to_motorized(korsun: TerrainTable) -> None:
    swamp = korsun.terrain["swamp"]
    assert swamp.cost["trucked"] is None
    assert swamp.cost["mechanized"] is None
    assert swamp.cost["foot"] == Fraction(3, 2)
    assert swamp.cost["hq"] == 5  # 9.1.3
    assert "R10" in swamp.note


def test_k7_mountain_row_is_hills_foot_plus_one(korsun: TerrainTable, kursk: TerrainTable) -> None:
    for table in (korsun, kursk):
        mountain = table.terrain["mountain"]
        assert mountain.cost["trucked"] is None
        assert mountain.cost["mechanized"] is None
        hills_foot = table.terrain["hills"].cost["foot"]
        assert hills_foot is not None
        assert mountain.cost["foot"] == hills_foot + 1
        assert mountain.combat == -1
        assert "K7" in mountain.note


def test_3_1_12_korsun_hexsides(korsun: TerrainTable) -> None:
    h = korsun.hexsides
    assert costs(h["river"].cost) == (2, 2, Fraction(3, 2))
    assert h["river"].combat == -2
    assert costs(h["stream"].cost) == (1, 1, 1)
    assert h["stream"].combat == -1
    assert not h["river"].bridge_only


def test_r24_korsun_dnieper_bridge_only(korsun: TerrainTable) -> None:
    dnieper = korsun.hexsides["big-river"]
    assert dnieper.bridge_only
    assert dnieper.blocks_zoc  # 4.1.3
    assert dnieper.no_attack


def test_r12_korsun_roads(korsun: TerrainTable) -> None:
    r = korsun.roads
    assert costs(r["main"].cost) == (Fraction(1, 3), Fraction(1, 2), Fraction(1, 2))
    assert not r["main"].bonus
    assert costs(r["side"].cost) == (1, 1, 1)
    assert r["side"].bonus
    assert costs(r["rail"].cost) == (1, 1, 1)
    assert r["rail"].bonus


def test_r15_korsun_ff_cms(korsun: TerrainTable) -> None:
    assert korsun.ff_cms == {"city": 2, "*": 1}


# --- Kursk (004) -----------------------------------------------------------------------------
def test_3_1_11_kursk_terrain_rows(kursk: TerrainTable) -> None:
    t = kursk.terrain
    assert costs(t["clear"].cost) == (2, 1, 1)
    assert costs(t["hills"].cost) == (2, Fraction(3, 2), 1)
    assert t["hills"].combat == -1
    assert costs(t["city"].cost) == (2, 2, 2)
    assert costs(t["town"].cost) == (1, 1, 1)
    assert t["town"].combat == -1


def test_3_1_12_kursk_forest_mechanized_plus_one(kursk: TerrainTable) -> None:
    forest = kursk.terrain["forest"]
    assert forest.base == "clear"
    assert costs(forest.cost) == (2, 1, 1)
    assert forest.combat == -1


def test_kursk_has_no_swamp_stream_or_rail(kursk: TerrainTable) -> None:
    assert "swamp" not in kursk.terrain
    assert "stream" not in kursk.hexsides
    assert "rail" not in kursk.roads


def test_kursk_river_and_siewiernyj_doniec(kursk: TerrainTable) -> None:
    river = kursk.hexsides["river"]
    assert costs(river.cost) == (1, 1, 1)
    assert river.combat == -1
    doniec = kursk.hexsides["big-river"]
    assert costs(doniec.cost) == (2, 2, 1)
    assert doniec.combat == -2
    assert not doniec.bridge_only
    assert not doniec.blocks_zoc
    assert not doniec.no_attack
    assert "not a big river" in doniec.note


def test_r12_kursk_roads(kursk: TerrainTable) -> None:
    r = kursk.roads
    assert costs(r["main"].cost) == (Fraction(1, 3), Fraction(1, 2), Fraction(1, 2))
    assert costs(r["side"].cost) == (Fraction(1, 2), 1, 1)
    assert r["side"].bonus
    assert not r["main"].bonus


def test_r15_kursk_ff_cms(kursk: TerrainTable) -> None:
    assert kursk.ff_cms == {"town": 2, "city": 2, "*": 1}


def test_tables_are_per_game(korsun: TerrainTable, kursk: TerrainTable) -> None:
    assert korsun.game == "korsun"
    assert kursk.game == "kursk"
    assert load_table("korsun") is korsun  # cached, shared by every Setup


@pytest.mark.parametrize("game", ["stalingrad", "../tables/morale", ""])
def test_unknown_game_has_no_table(game: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_table(game)
    assert e.value.key == "game"
    assert "korsun, kursk" in e.value.problem


# --- 5.6.2 morale --------------------------------------------------------------------------
def test_5_6_2_morale_limits() -> None:
    m = load_morale()
    assert m["ss"] == 12
    assert m["german"] == 11
    assert m["volkssturm"] == 9
    assert m["italian"] == 9  # the Axis figure
    assert m["italian-allied"] == 7
    for nation in ("american", "british", "polish", "guards"):
        assert m[nation] == 11
    for nation in ("french", "romanian", "hungarian"):
        assert m[nation] == 9
    assert m["belgian"] == m["dutch"] == 8
    assert m["soviet"] == 10


def test_morale_is_a_fresh_dict() -> None:
    m = load_morale()
    m["soviet"] = 2
    assert load_morale()["soviet"] == 10
