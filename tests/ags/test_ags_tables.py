"""The AGS tables as data: CRT 9.5, TEC 10.4 (with the Korsun overrides, A1, A2), turn
track and weather (AGS-K 20.1, 28.0), active HQs (AGS-K 23.11), victory (AGS-K 27.x),
16.0 ladders; each with its provenance."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from pathlib import Path

import pytest

from scenarios.ags.tables import (
    TABLES_DIR,
    crt_from,
    load_crt,
    load_organization,
    load_tec,
    load_turns,
    load_victory,
)
from scenarios.errors import ScenarioError
from scenarios.yamlio import read_yaml_file


def test_9_5_crt_is_printed_with_twelve_columns_and_six_rows() -> None:
    crt = load_crt()
    assert crt.provenance == "printed"
    assert crt.columns[0] == "1-3" and crt.columns[-1] == "10-1" and len(crt.columns) == 12
    assert sorted(crt.rows) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    ("column", "die", "cell"),
    [
        ("1-3", 5, "E/-"),
        ("1-2", 2, "eng"),
        ("3-1", 6, "eng"),
        ("8-1", 6, "-/2"),  # A000: kept as printed, off the diagonal
        ("10-1", 5, "-/3"),  # A000
        ("10-1", 1, "-/E"),
        ("6-1", 1, "1/3"),
    ],
)
def test_9_5_cells_as_transcribed_a000(column: str, die: int, cell: str) -> None:
    assert str(load_crt().cell(column, die)) == cell


def test_9_5_a_bad_cell_is_named() -> None:
    data = read_yaml_file(TABLES_DIR / "ags-results.yaml")
    data["rows"][3][2] = "4/1"
    with pytest.raises(ScenarioError, match=r"rows\.3: '4' is not a CRT result"):
        crt_from(data, "t.yaml")


def test_a_league_table_is_league_supplied(tmp_path: Path) -> None:
    text = (TABLES_DIR / "ags-results.yaml").read_text(encoding="utf-8")
    p = tmp_path / "crt.yaml"
    p.write_text(text.replace("provenance: printed", "provenance: league-supplied"))
    assert load_crt(p).provenance == "league-supplied"


def test_10_4_tec_korsun_overrides_a1_a2() -> None:
    tec = load_tec()
    assert tec.provenance == "printed"
    assert tec.hexsides["minor-river"].cost == 1  # AGS-K 19.24, A1 (chart: Axis +2)
    assert tec.hexsides["major-river"].cost == 2  # AGS-K 19.23, A1 (chart: Axis +3)
    assert tec.hexsides["major-river"].blocks_zoc  # AGS 8.12, AGS-K 19.22
    assert tec.hexsides["major-river"].soviet_supply_road_only  # AGS-K 19.71
    assert not tec.hexsides["major-river"].german_supply_blocked  # AGS-K 19.72
    assert tec.row("woods").cost("mech") == 2 and tec.row("woods").cost("inf") == 1
    assert tec.row("rough").cost("mech") == 4
    assert tec.roads["road"].cost("mech") == Fraction(1, 2)
    assert tec.roads["road"].cost("inf") is None  # AGS 10.23: no effect on infantry
    assert tec.row("dnieper").blocks and tec.row("dnieper").cost("inf") is None  # 19.25
    assert tec.row("swamp").supply_into_only  # AGS 12.11


def test_korsun_turn_track_weather_and_hq_schedule() -> None:
    track = load_turns()
    assert track.last == 13  # AGS-K 19.12
    assert track.turn(1).date == dt.date(1944, 1, 26)
    assert track.turn(13).date == dt.date(1944, 2, 19)
    snow = [n for n, t in track.turns.items() if t.weather == "snow"]
    assert snow == [1, 2, 3, 9, 10, 11]  # AGS-K 20.11
    assert [track.air_points(n) for n in (1, 4, 9, 12)] == [0, 3, 0, 3]  # AGS-K 19.8
    assert [track.turn(n).active_hqs for n in (1, 4, 7, 10, 11)] == [3, 2, 1, 1, 2]  # 23.11
    assert track.turn(3).reinforcements == ("soviet",) and track.turn(6).reinforcements == (
        "german",
    )
    assert track.effects["mud"].mech_allowance == 4  # AGS-K 20.12


def test_28_0_variable_weather_from_turn_4() -> None:
    track = load_turns()
    assert track.weather(3, die=1) == "snow"  # no roll on turns 1-3
    assert [track.weather(8, die=d) for d in range(1, 7)] == ["mud"] * 4 + ["snow"] * 2


def test_27_victory_points_and_levels() -> None:
    v = load_victory()
    assert v.german_loss("infantry-regiment", isolated=False) == 3
    assert v.german_loss("other", isolated=True) == 8
    assert v.german_at_end("infantry-regiment", isolated=True, he_under=True) == 3  # A38
    assert v.soviet_loss("corps", steps_lost=2) == 4
    assert v.soviet_loss("corps", whole=True) == 12
    assert v.soviet_loss("hq") == 6
    assert [v.level(s, 0) for s in (85, 84, 65, 64, 60, 59, 40, 39)] == [
        "Soviet Strategic",
        "Soviet Operational",
        "Soviet Tactical",
        "Draw",
        "Draw",
        "German Tactical",
        "German Operational",
        "German Strategic",
    ]


def test_16_0_ladders() -> None:
    o = load_organization()
    assert o["infantry-division-1943"] == ((7, 8), (4, 5), (2, 3))
    assert o["panzer-regiment-1943"] == ((5, 2), (3, 1))
    assert o["panzergrenadier-of-panzer-1943"] == ((2, 3), (1, 1))


@pytest.mark.parametrize(
    "name", ["ags-results", "ags-tec", "ags-turns", "ags-victory", "ags-organization"]
)
def test_every_ags_table_states_its_provenance(name: str) -> None:
    data = read_yaml_file(TABLES_DIR / f"{name}.yaml")
    assert data["provenance"] in ("printed", "reconstructed", "league-supplied")
    assert data["source"]
