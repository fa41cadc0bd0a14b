"""Loading scenarios (DESIGN §5) and maps (DESIGN §3) into engine objects, and the errors
a bad file gets: always a ScenarioError naming the file, the key and the problem."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.model import DEFAULT_MOVE, Setup
from scenarios import (
    ScenarioError,
    ScenarioInfo,
    list_scenarios,
    load_morale,
    load_scenario,
    load_scenario_data,
    load_scenario_text,
    load_table,
    yamlio,
)
from scenarios.loader import unit_id_problem
from scenarios.yamlio import MAX_NODES, parse_yaml, read_yaml_file

# DESIGN §5's example, verbatim but for two lines: `edges:` lists real hexes instead of
# "...", and the unit stands on 0303 (0333 is off this 10x8 map).
DESIGN_EXAMPLE = """\
id: t-zoc-1
system: wb95
game: korsun                  # korsun | kursk   (tables and game rules)
initiative: soviet            # player A (2.2)
turns: 25
start: {turn: 1, phase: movement, active: soviet}   # air | barrage | movement |
                                                    # combat | strategic | supply
options: {}                   # rulings marked "option" in RULINGS.md, by name
map:                          # or: map: korsun   (a shipped map)
  layout: even-q
  cols: [1, 10]               # first and last column
  rows: [1, 8]                # first and last row
  default: clear              # clear | hills | forest | city | town | swamp | mountain
  terrain: {"0304": forest, "0405": town}
  names: {"0405": Steblev}
  hexsides:                   # stream | river | big-river | fixed-position | fortified-line
    - {hexes: ["0304", "0404"], feature: river}
  bridges: [["0304", "0404"]]
  roads:                      # main | side | rail ; consecutive hexes are adjacent
    - {kind: main, hexes: ["0101", "0201", "0301"]}
  edges: {N: ["0101", "0201"], S: ["0108", "0208"]}   # optional; by default the outermost hexes
sides:
  soviet: {supply: [{edge: E}], nation: soviet}
  german: {supply: [{edge: S}, {hex: "0405"}], nation: german}
units:
  - id: s-232                 # unique in the scenario; what orders name
    name: 232 Rifle Division
    side: soviet
    nation: soviet            # german | ss | soviet | guards | ... (morale 5.6.2,
                              #   supply MPs 10.1.7, HQ range 9.2.2)
    type: inf                 # inf cav para eng arm mech mot recon ag at art
                              #   sp-art aa hq rg vs fu
    move: foot                # foot | trucked | mechanized | none ; default from type
    size: D                   # D BR R B C
    formation: 40A            # division / corps, for tactical concentration (13.0)
    sp: 6                     # artillery: [attack, defence]
    mp: 4
    cel: 2                    # current; max_cel defaults to cel
    max_cel: 2
    stars: []                 # black white yellow blue
    hex: "0303"
    ff: false                 # starts in field fortifications
    setup: combat             # towed artillery: combat | transport
    oos: 0                    # starting OoS level (10.2)
    disorganized: false
"""


def example() -> dict[str, Any]:
    """The DESIGN example as data."""
    data = yaml.safe_load(DESIGN_EXAMPLE)
    assert isinstance(data, dict)
    return data


def base() -> dict[str, Any]:
    """A small valid scenario to break in the error tests."""
    return {
        "id": "t",
        "system": "wb95",
        "game": "korsun",
        "initiative": "soviet",
        "turns": 5,
        "map": {"cols": [1, 10], "rows": [1, 8], "default": "clear"},
        "sides": {"soviet": {"nation": "soviet"}, "german": {"nation": "german"}},
        "units": [
            {"id": "s-1", "side": "soviet", "type": "inf", "sp": 4, "mp": 4, "hex": "0303"},
            {"id": "g-1", "side": "german", "type": "inf", "sp": 4, "mp": 4, "hex": "0606"},
        ],
    }


def write(tmp_path: Path, data: object, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# --- the DESIGN §5 example -------------------------------------------------------------------
def test_design_example_loads_with_its_values() -> None:
    setup = load_scenario_data(example(), name="example.yaml")
    assert isinstance(setup, Setup)
    assert (setup.id, setup.name, setup.system, setup.game) == (
        "t-zoc-1",
        "t-zoc-1",
        "wb95",
        "korsun",
    )
    assert setup.initiative == "soviet"
    assert setup.turns == 25
    assert (setup.start_turn, setup.start_phase, setup.start_active) == (1, "movement", "soviet")
    assert setup.side_names == ("soviet", "german")
    assert setup.options == {}
    assert setup.table is load_table("korsun")
    assert setup.morale == load_morale()
    assert setup.control is None
    assert setup.victory == ()
    assert setup.barrage is False

    german = setup.sides["german"]
    assert german.nation == "german"
    assert german.supply == ({"edge": "S"}, {"hex": "0405"})
    assert setup.sides["soviet"].supply == ({"edge": "E"},)

    u = setup.units["s-232"]
    assert u.name == "232 Rifle Division"
    assert (u.side, u.nation, u.type, u.move) == ("soviet", "soviet", "inf", "foot")
    assert (u.size, u.formation) == ("D", "40A")
    assert u.sp == 6 and u.art is None
    assert u.mp == Fraction(4) and isinstance(u.mp, Fraction)
    assert u.max_cel == 2
    assert u.stars == ()
    (start,) = setup.starts
    assert (start.id, start.hex, start.cel, start.oos) == ("s-232", "0303", 2, 0)
    assert start.disorganized is False
    assert start.fortification is None
    assert start.setup is None
    assert start.arrives is None


def test_design_example_text_loads_as_written() -> None:
    """The text itself, through our YAML reader; `setup: combat` on its infantry unit is
    accepted and means nothing (only towed artillery has a setup, 6.2)."""
    setup = load_scenario_text(DESIGN_EXAMPLE, name="example.yaml")
    assert setup.units["s-232"].sp == 6
    assert setup.starts[0].setup is None
    assert setup.starts[0].hex == "0303"


def test_design_example_map() -> None:
    m = load_scenario_data(example()).map
    assert m.id == "t-zoc-1"  # an inline map takes the scenario's id
    assert m.grid.layout == "even-q"
    assert (m.grid.cols, m.grid.rows) == ((1, 10), (1, 8))
    assert m.terrain_of("0304") == "forest"
    assert m.terrain_of("0405") == "town"
    assert m.terrain_of("0101") == "clear"
    assert m.label("0405") == "0405 (Steblev)"
    assert m.features("0304", "0404") == frozenset({"river"})
    assert m.features("0404", "0304") == frozenset({"river"})
    assert m.bridged("0404", "0304")
    assert m.edges["N"] == ("0101", "0201")
    assert m.edges["S"] == ("0108", "0208")
    # unlisted edges default to the outermost hexes
    assert m.edges["W"] == tuple(f"01{r:02d}" for r in range(1, 9))
    assert m.edges["E"] == tuple(f"10{r:02d}" for r in range(1, 9))


def test_design_example_roads_connect_both_ways() -> None:
    m = load_scenario_data(example()).map
    for a, b in (("0101", "0201"), ("0201", "0301")):
        assert m.road_kinds(a, b) == frozenset({"main"})
        assert m.road_kinds(b, a) == frozenset({"main"})
    assert m.road_kinds("0101", "0102") == frozenset()
    assert m.road_kinds("0101", "0301") == frozenset()  # not adjacent: no connection


def test_default_edges_are_the_outermost_hexes() -> None:
    m = load_scenario_data(base()).map
    assert m.edges["N"] == tuple(f"{c:02d}01" for c in range(1, 11))
    assert m.edges["S"] == tuple(f"{c:02d}08" for c in range(1, 11))
    assert m.edges["W"] == tuple(f"01{r:02d}" for r in range(1, 9))
    assert m.edges["E"] == tuple(f"10{r:02d}" for r in range(1, 9))


# --- unit defaults and value forms -----------------------------------------------------------
def test_unit_defaults() -> None:
    data = base()
    data["units"] = [
        {"id": "s-1", "side": "soviet", "type": "arm", "sp": 5, "mp": 8, "hex": "0303"},
        {"id": "s-art", "side": "soviet", "type": "art", "sp": [8, 4], "mp": 6, "hex": "0304"},
        {"id": "s-hq", "side": "soviet", "type": "hq", "hex": "0305"},
        {"id": "s-spa", "side": "soviet", "type": "sp-art", "sp": [6, 3], "mp": 8, "hex": "0306"},
    ]
    setup = load_scenario_data(data)
    arm = setup.units["s-1"]
    assert arm.name == "s-1"
    assert arm.nation == "soviet"  # the side's nation
    assert arm.move == DEFAULT_MOVE["arm"] == "mechanized"
    assert arm.max_cel == 2
    art = setup.units["s-art"]
    assert (art.sp, art.art, art.max_cel, art.move) == (8, (8, 4), 1, "trucked")
    hq = setup.units["s-hq"]
    assert (hq.sp, hq.mp, hq.max_cel, hq.move) == (0, Fraction(0), 1, "trucked")
    spa = setup.units["s-spa"]
    assert (spa.sp, spa.art, spa.max_cel, spa.move) == (6, (6, 3), 2, "mechanized")
    starts = {s.id: s for s in setup.starts}
    assert starts["s-1"].cel == 2
    assert starts["s-1"].setup is None
    assert starts["s-art"].cel == 1
    assert starts["s-art"].setup == "combat"  # 6.2: towed artillery, default combat setup
    assert starts["s-hq"].cel == 1
    assert starts["s-spa"].setup is None


def test_side_nation_defaults_to_side_name_and_unit_nation_overrides() -> None:
    data = base()
    data["sides"] = {"soviet": {}, "german": None}
    data["units"][0]["nation"] = "guards"
    setup = load_scenario_data(data)
    assert setup.sides["soviet"].nation == "soviet"
    assert setup.sides["german"].nation == "german"
    assert setup.units["s-1"].nation == "guards"
    assert setup.units["g-1"].nation == "german"


@pytest.mark.parametrize(
    ("mp", "expected"),
    [(4, Fraction(4)), ("7/2", Fraction(7, 2)), (3.5, Fraction(7, 2)), ("1/3", Fraction(1, 3))],
)
def test_mp_is_an_exact_fraction(mp: object, expected: Fraction) -> None:
    data = base()
    data["units"][0]["mp"] = mp
    assert load_scenario_data(data).units["s-1"].mp == expected


def test_cel_and_max_cel() -> None:
    data = base()
    data["units"][0].update(cel=1, max_cel=2)
    data["units"][1].update(max_cel=1)
    setup = load_scenario_data(data)
    starts = {s.id: s for s in setup.starts}
    assert (starts["s-1"].cel, setup.units["s-1"].max_cel) == (1, 2)
    assert (starts["g-1"].cel, setup.units["g-1"].max_cel) == (1, 1)


def test_unit_start_fields() -> None:
    data = base()
    data["units"][0].update(ff=True, oos=2, disorganized=True, stars=["black", "white"])
    data["units"].append(
        {"id": "g-art", "side": "german", "type": "art", "sp": [6, 3], "mp": 6,
         "setup": "transport", "hex": "0707"}
    )  # fmt: skip
    setup = load_scenario_data(data)
    starts = {s.id: s for s in setup.starts}
    assert starts["s-1"].fortification == "ff"
    assert (starts["s-1"].oos, starts["s-1"].disorganized) == (2, True)
    assert setup.units["s-1"].stars == ("black", "white")
    assert starts["g-art"].setup == "transport"


@pytest.mark.parametrize("written", ["303", "0303", 303])
def test_hex_ids_are_normalised(written: object) -> None:
    data = base()
    data["units"][0]["hex"] = written
    data["map"]["terrain"] = {written: "forest"}
    data["map"]["names"] = {written: "Steblev"}
    setup = load_scenario_data(data)
    assert setup.starts[0].hex == "0303"
    assert setup.map.terrain_of("0303") == "forest"
    assert setup.map.names == {"0303": "Steblev"}


def test_hex_ids_with_a_leading_zero_unquoted_in_yaml() -> None:
    """YAML 1.1 reads 0535 as octal 349 and 0809 as a string: both stay hex ids here."""
    text = yaml.safe_dump(base(), sort_keys=False).replace("'0303'", "0303")
    text = text.replace("'0606'", "0608")
    assert "hex: 0303" in text
    setup = load_scenario_text(text, name="t.yaml")
    assert [s.hex for s in setup.starts] == ["0303", "0608"]


def test_road_hexes_written_as_ints_and_each_kind() -> None:
    data = base()
    data["map"]["roads"] = [
        {"kind": "side", "hexes": [101, 102, 103]},
        {"kind": "rail", "hexes": ["0102", "0202"]},
        {"kind": "main", "hexes": ["0102", "0202"]},
    ]
    m = load_scenario_data(data).map
    assert m.road_kinds("0102", "0101") == frozenset({"side"})
    assert m.road_kinds("0202", "0102") == frozenset({"rail", "main"})


def test_start_defaults_and_calendar() -> None:
    data = base()
    data["calendar"] = {"start": dt.date(1944, 1, 24)}
    setup = load_scenario_data(data)
    assert (setup.start_turn, setup.start_phase, setup.start_active) == (1, "air", "soviet")
    assert setup.calendar_start == dt.date(1944, 1, 24)
    assert setup.date_of(3) == dt.date(1944, 1, 26)
    data["calendar"] = {"start": "1943-07-05"}
    assert load_scenario_data(data).calendar_start == dt.date(1943, 7, 5)


def test_options_air_special_barrage_and_extra_keys() -> None:
    data = base()
    data.update(
        options={"oos_accumulates": False},
        air={"soviet": {"sp": 24}},
        special={"improved_fortifications": 30},
        barrage=True,
        notes="kept out of the Setup",
        victory={"hexes": [{"hex": "0303", "vp": 2}, {"hex": 606, "vp": 1, "side": "german"}],
                 "levels": {"german": 15}},
    )  # fmt: skip
    setup = load_scenario_data(data)
    assert setup.options == {"oos_accumulates": False}
    assert setup.air == {"soviet": {"sp": 24}}
    assert setup.special == {"improved_fortifications": 30}
    assert setup.barrage is True
    assert [(v.hex, v.vp, v.side) for v in setup.victory] == [
        ("0303", 2, None),
        ("0606", 1, "german"),
    ]


@pytest.mark.parametrize(
    "control",
    [
        {"0303": "soviet", 606: "german", "0101": "soviet"},
        {"soviet": ["0303", 101], "german": ["0606"]},
    ],
)
def test_4_3_1_initial_control_both_forms(control: dict[Any, Any]) -> None:
    data = base()
    data["control"] = control
    assert load_scenario_data(data).control == {
        "0303": "soviet",
        "0101": "soviet",
        "0606": "german",
    }


def test_11_0_reinforcements_arrive_by_zone_edge_or_hex() -> None:
    data = base()
    data["map"]["zones"] = {"A": ["0108", "0208"]}
    data["units"] += [
        {"id": "g-2", "side": "german", "type": "arm", "sp": 8, "mp": 8,
         "arrives": {"turn": 2, "zone": "A"}},
        {"id": "g-3", "side": "german", "type": "arm", "sp": 8, "mp": 8,
         "arrives": {"turn": 3, "hex": 808}},
        {"id": "s-2", "side": "soviet", "type": "cav", "sp": 3, "mp": 6,
         "arrives": {"turn": 5, "zone": "N"}},
    ]  # fmt: skip
    setup = load_scenario_data(data)
    starts = {s.id: s for s in setup.starts}
    assert setup.map.zones == {"A": ("0108", "0208")}
    assert starts["g-2"].hex is None
    assert starts["g-2"].arrives == {"turn": 2, "zone": "A"}
    assert starts["g-3"].arrives == {"turn": 3, "hex": "0808"}
    assert starts["s-2"].arrives == {"turn": 5, "zone": "N"}


def test_hexside_features_without_table_rows_are_allowed() -> None:
    data = base()
    data["map"]["hexsides"] = [
        {"hexes": ["0303", "0304"], "feature": "fixed-position"},
        {"hexes": ["0303", "0304"], "feature": "stream"},
        {"hexes": ["0505", "0506"], "feature": "fortified-line"},
    ]
    m = load_scenario_data(data).map
    assert m.features("0304", "0303") == frozenset({"fixed-position", "stream"})
    assert m.features("0505", "0506") == frozenset({"fortified-line"})


def test_3_2_1_eight_cels_may_stack() -> None:
    data = base()
    data["units"] = [
        {"id": f"s-{i}", "side": "soviet", "type": "inf", "sp": 4, "mp": 4, "hex": "0303"}
        for i in range(4)
    ] + [{"id": "s-hq", "side": "soviet", "type": "hq", "hex": "0404"}]
    setup = load_scenario_data(data)
    assert len(setup.starts) == 5


def test_3_2_2_an_hq_counts_one_cel() -> None:
    data = base()
    data["units"] = [
        {"id": f"s-{i}", "side": "soviet", "type": "inf", "sp": 4, "mp": 4, "hex": "0303"}
        for i in range(3)
    ] + [
        {"id": "s-hq", "side": "soviet", "type": "hq", "hex": "0303", "cel": 1},
        {"id": "s-x", "side": "soviet", "type": "inf", "sp": 1, "mp": 4, "cel": 1, "hex": "0303"},
    ]
    assert len(load_scenario_data(data).starts) == 5


# --- files, shipped scenarios, maps and countersheets -----------------------------------------
def test_load_scenario_from_a_path(tmp_path: Path) -> None:
    path = write(tmp_path, example(), "example.yaml")
    assert load_scenario(path).id == "t-zoc-1"
    assert load_scenario(str(path)).id == "t-zoc-1"


def test_shipped_demo_scenarios_are_listed() -> None:
    infos = list_scenarios()
    ids = [i.id for i in infos]
    assert ids == sorted(ids)
    assert {"demo-steblev", "demo-kursk"} <= set(ids)
    steblev = next(i for i in infos if i.id == "demo-steblev")
    assert isinstance(steblev, ScenarioInfo)
    assert (steblev.game, steblev.turns) == ("korsun", 3)
    assert steblev.path.is_file()
    assert steblev.name


def test_every_shipped_scenario_loads() -> None:
    for info in list_scenarios():
        setup = load_scenario(info.path)
        assert setup.id == info.id
        assert setup.game == info.game
        assert load_scenario(info.id).id == info.id  # by id, from any CWD


def test_shipped_scenarios_load_from_another_cwd(tmp_path: Path) -> None:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        assert load_scenario("demo-kursk").game == "kursk"
    finally:
        os.chdir(old)


def test_demo_steblev_has_the_promised_features() -> None:
    setup = load_scenario("demo-steblev")
    m = setup.map
    assert setup.game == "korsun"
    assert setup.initiative == "soviet"
    assert setup.turns == 3
    assert setup.calendar_start == dt.date(1944, 1, 24)
    assert (setup.start_phase, setup.start_active) == ("movement", "soviet")
    terrains = set(m.terrain.values()) | {m.default}
    assert {"clear", "forest", "hills", "town", "city", "swamp"} <= terrains
    assert sum(1 for t in m.terrain.values() if t == "city") == 2
    features = set().union(*m.hexsides.values())
    assert {"river", "stream", "big-river"} <= features
    kinds = set().union(*m.roads.values())
    assert kinds == {"main", "side", "rail"}
    # a river bridge carrying a main road, and one bridge over the Dnieper
    assert any("river" in m.hexsides[b] and "main" in m.road_kinds(*b) for b in m.bridges)
    assert sum(1 for b in m.bridges if "big-river" in m.hexsides[b]) == 1
    types = {u.type for u in setup.units.values()}
    assert {"hq", "art"} <= types
    for side in ("soviet", "german"):
        assert sum(1 for u in setup.units.values() if u.side == side) >= 6
    assert {v.hex for v in setup.victory} >= {h for h, t in m.terrain.items() if t == "city"}


def test_demo_kursk_uses_only_kursk_rows() -> None:
    setup = load_scenario("demo-kursk")
    m = setup.map
    assert setup.game == "kursk"
    assert "swamp" not in set(m.terrain.values())
    features = set().union(*m.hexsides.values())
    assert "stream" not in features
    assert "rail" not in set().union(*m.roads.values())


def test_shipped_map_by_id_next_to_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    write(
        tmp_path / "maps",
        {"id": "little", "game": "korsun", "cols": [1, 6], "rows": [1, 6],
         "terrain": {"0202": "hills"}, "zones": {"A": ["0106"]}},
        "little.yaml",
    )  # fmt: skip
    data = base()
    data["map"] = "little"
    data["units"][1]["hex"] = "0505"
    path = write(tmp_path, data)
    setup = load_scenario(path)
    assert setup.map.id == "little"
    assert setup.map.terrain_of("0202") == "hills"
    assert setup.map.zones == {"A": ("0106",)}
    # the same through load_scenario_data with base_dir
    assert load_scenario_data(data, base_dir=tmp_path).map.id == "little"


def test_errors_in_a_map_file_name_the_map_file(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    write(tmp_path / "maps", {"id": "bad", "cols": [1, 6], "rows": [1, 6],
                              "terrain": {"0909": "hills"}}, "bad.yaml")  # fmt: skip
    data = base()
    data["map"] = "bad"
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, base_dir=tmp_path)
    assert e.value.file.endswith("bad.yaml")
    assert e.value.key == "terrain.0909"
    assert "0909 is not on the map (columns 1-6, rows 1-6)" in e.value.problem


def make_countersheet(tmp_path: Path) -> None:
    (tmp_path / "countersheets").mkdir()
    write(
        tmp_path / "countersheets",
        {
            "game": "korsun",
            "source": "test",
            "units": [
                {"id": "g-88a", "name": "88 Infanterie-Division", "side": "german",
                 "type": "inf", "size": "D", "formation": "XXXXII", "sp": 7, "mp": "7/2",
                 "stars": ["black"], "note": "ignored"},
                {"id": "g-art7", "side": "german", "type": "art", "sp": [6, 3], "mp": 6},
                {"id": "s-232", "side": "soviet", "nation": "guards", "type": "inf",
                 "sp": 6, "mp": 4, "cel": 2},
            ],
        },
        "sheet.yaml",
    )  # fmt: skip


def test_countersheet_units_with_overrides(tmp_path: Path) -> None:
    make_countersheet(tmp_path)
    data = base()
    data["countersheet"] = "sheet"
    data["units"] = [
        {"id": "g-88a", "hex": "1619"},
        {"id": "g-art7", "hex": 1618, "setup": "transport"},
        {"id": "s-232", "hex": "0303", "cel": 1, "sp": 5},  # a worn-down division
        {"id": "s-new", "side": "soviet", "type": "cav", "sp": 3, "mp": 6, "hex": "0304"},
    ]
    data["map"]["cols"] = [1, 20]
    data["map"]["rows"] = [1, 20]
    path = write(tmp_path, data)
    for setup in (load_scenario(path), load_scenario_data(data, base_dir=tmp_path)):
        g = setup.units["g-88a"]
        assert (g.name, g.side, g.nation, g.size, g.formation) == (
            "88 Infanterie-Division", "german", "german", "D", "XXXXII",
        )  # fmt: skip
        assert (g.sp, g.mp, g.stars, g.max_cel) == (7, Fraction(7, 2), ("black",), 2)
        art = setup.units["g-art7"]
        assert (art.art, art.max_cel) == ((6, 3), 1)
        s = setup.units["s-232"]
        assert (s.sp, s.nation, s.max_cel) == (5, "guards", 1)
        starts = {st.id: st for st in setup.starts}
        assert starts["g-88a"].hex == "1619"
        assert starts["g-art7"].setup == "transport"
        assert starts["s-232"].cel == 1
        assert setup.units["s-new"].type == "cav"


def test_countersheet_unit_not_on_the_sheet(tmp_path: Path) -> None:
    make_countersheet(tmp_path)
    data = base()
    data["countersheet"] = "sheet"
    data["units"] = [{"id": "g-99x", "hex": "0303"}]
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml", base_dir=tmp_path)
    assert e.value.key == "units[0].id"
    assert "not on countersheet 'sheet'" in e.value.problem


def test_errors_in_a_countersheet_name_the_countersheet(tmp_path: Path) -> None:
    (tmp_path / "countersheets").mkdir()
    write(tmp_path / "countersheets", {"units": [{"id": "x", "colour": "red"}]}, "bad.yaml")
    data = base()
    data["countersheet"] = "bad"
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, base_dir=tmp_path)
    assert e.value.file.endswith("bad.yaml")
    assert e.value.key == "units[0].colour"


# --- every kind of bad input is a ScenarioError naming file, key and problem ------------------
Mutation = Callable[[dict[str, Any]], None]


def _set_unit(i: int, **kw: Any) -> Mutation:
    def f(d: dict[str, Any]) -> None:
        d["units"][i].update(kw)

    return f


def _del_unit_key(i: int, key: str) -> Mutation:
    def f(d: dict[str, Any]) -> None:
        del d["units"][i][key]

    return f


def _set(path: str, value: Any) -> Mutation:
    def f(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node = d
        for k in head:
            node = node[k]
        node[last] = value

    return f


def _kursk(d: dict[str, Any]) -> None:
    d["game"] = "kursk"


def _both(*fs: Mutation) -> Mutation:
    def f(d: dict[str, Any]) -> None:
        for g in fs:
            g(d)

    return f


def _add_units(*units: dict[str, Any]) -> Mutation:
    def f(d: dict[str, Any]) -> None:
        d["units"].extend(copy.deepcopy(list(units)))

    return f


def _inf(uid: str, hex_: str, side: str = "soviet") -> dict[str, Any]:
    return {"id": uid, "side": side, "type": "inf", "sp": 4, "mp": 4, "hex": hex_}


BAD: list[tuple[str, Mutation, str, str]] = [
    (
        "unknown-terrain",
        _set("map.terrain", {"0304": "jungle"}),
        "map.terrain.0304",
        "unknown terrain 'jungle'",
    ),
    ("unknown-default-terrain", _set("map.default", "sand"), "map.default", "unknown terrain"),
    (
        "off-map-hex",
        _set_unit(0, hex="9999"),
        "units[0].hex",
        "9999 is not on the map (columns 1-10, rows 1-8)",
    ),
    (
        "off-map-terrain",
        _set("map.terrain", {"1109": "forest"}),
        "map.terrain.1109",
        "not on the map",
    ),
    ("bad-hex-text", _set_unit(0, hex="abc"), "units[0].hex", "not a hex number"),
    (
        "non-adjacent-hexside",
        _set("map.hexsides", [{"hexes": ["0304", "0306"], "feature": "river"}]),
        "map.hexsides[0].hexes",
        "not adjacent",
    ),
    (
        "unknown-hexside-feature",
        _set("map.hexsides", [{"hexes": ["0304", "0305"], "feature": "canal"}]),
        "map.hexsides[0].feature",
        "unknown hexside feature 'canal'",
    ),
    (
        "non-adjacent-road-step",
        _set("map.roads", [{"kind": "main", "hexes": ["0101", "0201", "0401"]}]),
        "map.roads[0].hexes[2]",
        "0401 is not adjacent to 0201",
    ),
    (
        "road-step-off-map",
        _set("map.roads", [{"kind": "main", "hexes": ["0101", "0100"]}]),
        "map.roads[0].hexes[1]",
        "not on the map",
    ),
    (
        "unknown-road-kind",
        _set("map.roads", [{"kind": "highway", "hexes": ["0101", "0201"]}]),
        "map.roads[0].kind",
        "unknown road kind 'highway'",
    ),
    ("bridge-over-nothing", _set("map.bridges", [["0101", "0102"]]), "map.bridges[0]", "to bridge"),
    (
        "non-adjacent-bridge",
        _set("map.bridges", [["0101", "0103"]]),
        "map.bridges[0]",
        "not adjacent",
    ),
    ("unknown-key-in-map", _set("map.colour", "red"), "map.colour", "unknown key 'colour'"),
    ("bad-layout", _set("map.layout", "pointy"), "map.layout", "even-q"),
    ("map-is-a-list", _set("map", [1, 2]), "map", "inline map"),
    ("unknown-shipped-map", _set("map", "atlantis"), "map", "no map 'atlantis'"),
    (
        "duplicate-unit-id",
        _add_units(_inf("s-1", "0305")),
        "units[2].id",
        "duplicate unit id 's-1'",
    ),
    ("unknown-side", _set_unit(0, side="finnish"), "units[0].side", "unknown side 'finnish'"),
    ("unknown-type", _set_unit(0, type="tank"), "units[0].type", "unknown unit type 'tank'"),
    ("unknown-move", _set_unit(0, move="flying"), "units[0].move", "foot"),
    (
        "unknown-nation",
        _set_unit(0, nation="martian"),
        "units[0].nation",
        "unknown nation 'martian'",
    ),
    ("unknown-star", _set_unit(0, stars=["green"]), "units[0].stars[0]", "black"),
    ("unknown-size", _set_unit(0, size="XX"), "units[0].size", "BR"),
    ("cel-over-max", _set_unit(0, cel=3, max_cel=2), "units[0].cel", "more than max_cel 2"),
    ("cel-zero", _set_unit(0, cel=0), "units[0].cel", "greater than or equal to 1"),
    ("cel-not-a-number", _set_unit(0, cel="two"), "units[0].cel", "integer"),
    (
        "hex-and-arrives",
        _set_unit(0, arrives={"turn": 2, "hex": "0101"}),
        "units[0]",
        "both hex and arrives",
    ),
    ("neither-hex-nor-arrives", _del_unit_key(0, "hex"), "units[0]", "needs hex"),
    (
        "arrives-zone-and-hex",
        _both(
            _del_unit_key(0, "hex"), _set_unit(0, arrives={"turn": 2, "hex": "0101", "zone": "A"})
        ),
        "units[0].arrives",
        "exactly one of zone or hex",
    ),
    (
        "arrives-unknown-zone",
        _both(_del_unit_key(0, "hex"), _set_unit(0, arrives={"turn": 2, "zone": "Q"})),
        "units[0].arrives.zone",
        "unknown entry zone 'Q'",
    ),
    (
        "arrives-after-the-game",
        _both(_del_unit_key(0, "hex"), _set_unit(0, arrives={"turn": 9, "zone": "N"})),
        "units[0].arrives.turn",
        "outside the game",
    ),
    ("missing-mp", _del_unit_key(0, "mp"), "units[0].mp", "required"),
    ("missing-sp", _del_unit_key(0, "sp"), "units[0].sp", "required"),
    ("fraction-garbage-mp", _set_unit(0, mp="fast"), "units[0].mp", "not a number"),
    ("attack-defence-on-infantry", _set_unit(0, sp=[4, 2]), "units[0].sp", "only for artillery"),
    (
        "transport-setup-on-infantry",
        _set_unit(0, setup="transport"),
        "units[0].setup",
        "towed artillery",
    ),
    (
        "overstacked-start-hex",
        _add_units(*(_inf(f"s-x{i}", "0303") for i in range(4))),
        "units[5].hex",
        "3.2.1",
    ),
    ("both-sides-in-a-hex", _set_unit(1, hex="0303"), "units[1].hex", "both sides"),
    ("unknown-key-in-unit", _set_unit(0, colour="red"), "units[0].colour", "unknown key 'colour'"),
    ("unit-is-a-string", _set("units", ["s-1"]), "units[0]", "must be a mapping"),
    (
        "swamp-on-kursk-map",
        _both(_kursk, _set("map.terrain", {"0304": "swamp"})),
        "map.terrain.0304",
        "kursk TERRAIN INFLUENCE table has no such row",
    ),
    (
        "stream-on-kursk-map",
        _both(_kursk, _set("map.hexsides", [{"hexes": ["0304", "0305"], "feature": "stream"}])),
        "map.hexsides[0].feature",
        "unknown hexside feature 'stream' for game kursk",
    ),
    (
        "rail-on-kursk-map",
        _both(_kursk, _set("map.roads", [{"kind": "rail", "hexes": ["0101", "0201"]}])),
        "map.roads[0].kind",
        "unknown road kind 'rail' for game kursk",
    ),
    ("unknown-game", _set("game", "stalingrad"), "game", "'korsun' or 'kursk'"),
    ("unknown-system", _set("system", "asl"), "system", "'wb95'"),
    ("missing-system", lambda d: d.pop("system"), "system", "missing"),
    ("turns-not-a-number", _set("turns", "many"), "turns", "integer"),
    ("three-sides", _set("sides.finnish", {"nation": "german"}), "sides", "exactly two"),
    ("unknown-initiative", _set("initiative", "finnish"), "initiative", "unknown side"),
    ("unknown-start-phase", _set("start", {"phase": "lunch"}), "start.phase", "movement"),
    ("unknown-start-active", _set("start", {"active": "finnish"}), "start.active", "unknown side"),
    ("turns-before-start", _set("start", {"turn": 7}), "turns", "before the start turn"),
    (
        "bad-supply-edge",
        _set("sides.soviet.supply", [{"edge": "NE"}]),
        "sides.soviet.supply[0].edge",
        "'N'",
    ),
    (
        "victory-off-map",
        _set("victory", {"hexes": [{"hex": "4040", "vp": 1}]}),
        "victory.hexes[0].hex",
        "not on the map",
    ),
    (
        "control-unknown-side",
        _set("control", {"0303": "finnish"}),
        "control.0303",
        "unknown side 'finnish'",
    ),
    (
        "control-neither-side-nor-hex",
        _set("control", {"axis": ["0303"]}),
        "control.axis",
        "neither a side",
    ),
    ("bad-calendar", _set("calendar", {"start": "someday"}), "calendar.start", "date"),
    (
        "unknown-countersheet",
        _set("countersheet", "nowhere"),
        "countersheet",
        "no countersheet 'nowhere'",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "key", "problem"),
    [pytest.param(m, k, p, id=name) for name, m, k, p in BAD],
)
def test_bad_scenarios_name_file_key_and_problem(
    tmp_path: Path, mutate: Mutation, key: str, problem: str
) -> None:
    data = base()
    load_scenario_data(copy.deepcopy(data))  # the unbroken scenario loads
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    err = e.value
    assert err.file == str(path)
    assert err.key == key, str(err)
    assert problem in err.problem, str(err)
    assert str(err) == f"{path}: {key}: {err.problem}"


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        pytest.param("id: [unclosed\nsystem: wb95\n", "line 2, column 7", "YAML syntax error",
                     id="corrupt-yaml"),
        pytest.param("- id: t\n- system: wb95\n", "(top level)", "must be a mapping",
                     id="top-level-list"),
        pytest.param("just text\n", "(top level)", "not a string", id="top-level-string"),
        pytest.param("", "(top level)", "not empty", id="empty-file"),
        pytest.param("id: t\nid: u\n", "line 2, column 1", "duplicate key 'id'",
                     id="duplicate-key"),
        pytest.param("\tid: t\n", "line 1, column 1", "YAML syntax error", id="tab-indent"),
        pytest.param("id: t\ncalendar: {start: 1944-13-45}\n", "line 2, column 19",
                     "'1944-13-45' is not a date: month must be in 1..12", id="impossible-date"),
        pytest.param(
            "[" * 5000,
            *(  # libyaml (6.0.4, requirements*.lock) scans ahead to its own depth limit
                ("line 1, column 1001", "exceeded maximum nesting depth")
                if yaml.__with_libyaml__
                else ("line 1, column 65", "YAML refused: nested more than 64 levels deep")
            ),
            id="deep-nesting",
        ),
        pytest.param("[" * 100 + "]" * 100, "line 1, column 65",
                     "YAML refused: nested more than 64 levels deep", id="nested-too-deep"),
        pytest.param("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                     + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
                               for p, c in zip("abcdef", "bcdefg", strict=True)),
                     "line 6, column 12", "aliases expand it to more than 250,000 values",
                     id="alias-bomb"),
        pytest.param("a: &a [*a]\n", "line 1, column 8", "a recursive structure",
                     id="recursive-alias"),
        pytest.param("a: !!binary aGVsbG8=\n", "line 1, column 4",
                     "binary values (!!binary) are not allowed", id="binary-tag"),
        pytest.param("a: !!bool maybe\n", "line 1, column 4", "'maybe' is not a valid bool",
                     id="bad-bool-tag"),
        pytest.param("a: b\ac\n", "line 1, column 5", "the character U+0007 is not allowed",
                     id="control-character"),
        pytest.param("a: !!python/object:os.system x\n", "line 1, column 4",
                     "could not determine a constructor", id="unsafe-tag"),
    ],
)  # fmt: skip
def test_bad_yaml_files(tmp_path: Path, text: str, key: str, problem: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert e.value.file == str(path)
    assert e.value.key == key, str(e.value)
    assert problem in e.value.problem, str(e.value)
    with pytest.raises(ScenarioError) as e2:
        load_scenario_text(text, name="t.yaml")
    assert str(e2.value).startswith(f"t.yaml: {key}: ")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert str(e.value) == f"{path}: (file): file not found"


def test_unknown_scenario_id() -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario("no-such-scenario")
    assert e.value.file == "no-such-scenario"
    assert "demo-steblev" in e.value.problem


def test_non_mapping_data() -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(["a"], name="export.yaml")
    assert str(e.value).startswith("export.yaml: (top level): ")


def test_several_problems_are_counted() -> None:
    data = base()
    data["units"][0].update(cel="x", colour="red")
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml")
    assert e.value.key == "units[0].cel"
    assert "and 1 more: units[0].colour" in e.value.problem


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10000),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.one_of(st.integers(-3, 3000), st.text(max_size=4)), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=2),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    where=st.sampled_from(["top", "unit", "map", "side"]),
    key=st.sampled_from(
        ["id", "system", "game", "initiative", "turns", "start", "map", "sides", "units",
         "hex", "side", "type", "sp", "mp", "cel", "max_cel", "stars", "arrives", "control",
         "terrain", "hexsides", "roads", "bridges", "cols", "rows", "supply", "nation",
         "victory", "calendar", "countersheet", "edges", "zones", "setup", "ff"]
    ),
    value=JUNK,
)  # fmt: skip
def test_junk_values_give_a_scenario_error_or_load(where: str, key: str, value: object) -> None:
    """Whatever a file holds, nothing but a ScenarioError ever escapes."""
    data = base()
    target = {
        "top": data,
        "unit": data["units"][0],
        "map": data["map"],
        "side": data["sides"]["soviet"],
    }[where]
    target[key] = value
    try:
        load_scenario_data(data, name="t.yaml")
    except ScenarioError as e:
        assert str(e).startswith("t.yaml: ")
        assert e.key and e.problem


# --- issue #14: JSON-safe data, unit ids, the loader's limits ----------------------------------
@pytest.mark.parametrize("info", list_scenarios(), ids=lambda i: i.id)
def test_every_shipped_scenario_survives_a_json_round_trip(info: ScenarioInfo) -> None:
    """The service stores a scenario file's data as JSON (`kessel play FILE.yaml`): the
    data has JSON types only (a date is its ISO text) and loads the same way after."""
    data = read_yaml_file(info.path)
    again = json.loads(json.dumps(data))  # no `default=`: a date would raise TypeError
    setup = load_scenario_data(again, str(info.path), info.path.parent)
    assert repr(setup) == repr(load_scenario(info.path))


def test_dates_are_read_as_iso_text_and_the_schema_reads_them() -> None:
    assert parse_yaml("d: 1944-01-24\nt: 2001-12-14 21:59:43\n", "t.yaml") == {
        "d": "1944-01-24",
        "t": "2001-12-14T21:59:43",
    }
    data = example()
    data["calendar"] = {"start": "1944-01-24"}
    assert load_scenario_data(data).calendar_start == dt.date(1944, 1, 24)


def test_air_turns_written_as_json_text_are_turns() -> None:
    data = base()
    data["air"] = {"soviet": {"sp": {1: 4, 2: 2}}}
    as_json = json.loads(json.dumps(data))
    assert as_json["air"]["soviet"]["sp"] == {"1": 4, "2": 2}
    setup = load_scenario_data(as_json)
    assert setup.air_sides["soviet"].sp == {1: 4, 2: 2}
    assert repr(setup) == repr(load_scenario_data(data))


BAD_UNIT_IDS = [
    pytest.param("s 180", id="space"),
    pytest.param("s\x00180", id="nul"),
    pytest.param("../s-180", id="path"),
    pytest.param("s-180\n", id="newline"),
    pytest.param("s-1\x1b[31m", id="escape"),
    pytest.param("\u0455-180", id="cyrillic-look-alike"),
    pytest.param("s\u200b180", id="zero-width-space"),
    pytest.param("@0303", id="at-hex"),
    pytest.param("support", id="notation-word"),
    pytest.param("s-" + "x" * 70, id="too-long"),
]


@pytest.mark.parametrize("uid", BAD_UNIT_IDS)
def test_a_unit_id_no_order_can_name_is_refused(uid: str) -> None:
    """K89, issue #14: a unit id round-trips through the order notation."""
    data = base()
    data["units"][0]["id"] = uid
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml")
    assert e.value.key == "units[0].id"
    assert "\n" not in str(e.value)
    assert unit_id_problem(uid) == e.value.problem


def test_an_empty_unit_id_is_refused() -> None:
    data = base()
    data["units"][0]["id"] = ""
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml")
    assert e.value.key == "units[0].id"
    assert unit_id_problem("") == "a unit id may not be empty"


@pytest.mark.parametrize("uid", ["s-180", "g-88a", "S-3mc.4_1", "s-1gwtbm"])
def test_unit_ids_orders_can_name(uid: str) -> None:
    assert unit_id_problem(uid) is None
    data = base()
    data["units"][0]["id"] = uid
    assert uid in load_scenario_data(data).units


def test_a_countersheet_or_air_counter_id_no_order_can_name(tmp_path: Path) -> None:
    sheet = tmp_path / "countersheets" / "mine.yaml"
    sheet.parent.mkdir()
    sheet.write_text("units:\n  - {id: 's 1', side: soviet, type: inf, sp: 4, mp: 4}\n")
    data = base()
    data["countersheet"] = "mine"
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml", base_dir=tmp_path)
    assert (e.value.file, e.value.key) == (str(sheet), "units[0].id")
    data = base()
    data["air"] = {"soviet": {"counters": [{"id": "a 1", "sp": 3}]}}
    with pytest.raises(ScenarioError) as e:
        load_scenario_data(data, name="t.yaml")
    assert e.value.key == "air.soviet.counters[0].id"
    data["air"] = {"soviet": {"counters": 10**9}}
    with pytest.raises(ScenarioError, match="at most 1000"):
        load_scenario_data(data, name="t.yaml")


def test_merge_keys_and_duplicate_keys() -> None:
    text = "a: &a {x: 1, y: 2}\nb: {<<: *a, x: 3}\n"
    assert parse_yaml(text, "t.yaml") == {"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 2}}
    with pytest.raises(ScenarioError, match="duplicate key 'x'"):
        parse_yaml("a: &a {x: 1}\nb: {<<: *a, x: 3, x: 4}\n", "t.yaml")


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        pytest.param("[" * 5000, "line 1, column 65", "nested more than 64 levels deep",
                     id="deep"),
        pytest.param("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                     + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n"
                               for p, c in zip("abcdef", "bcdefg", strict=True)),
                     "line 6, column 12", "more than 250,000 values", id="alias-bomb"),
        pytest.param("a: &a x\nb: [" + ", ".join(["*a"] * 10_001) + "]\n",
                     "line 2, column 40005", "more than 10,000 aliases", id="aliases"),
        pytest.param("a: &a {b: *a}\n", "line 1, column 11", "recursive structure",
                     id="recursive"),
        pytest.param("a: b\x00c\n", "line 1, column 5", "U+0000 is not allowed", id="nul"),
    ],
)  # fmt: skip
def test_both_parsers_keep_the_limits(text: str, key: str, problem: str) -> None:
    """The limits are in the composing, shared by libyaml's parser and Python's (used
    when PyYAML has no libyaml)."""
    with pytest.raises(ScenarioError) as e:
        yamlio._parse_with(yamlio.PyDataLoader, text, "t.yaml")
    assert (e.value.key, problem in e.value.problem) == (key, True), str(e.value)


def test_both_parsers_read_the_shipped_files_alike() -> None:
    root = Path(yamlio.__file__).parent
    for path in sorted(root.glob("*/*.yaml"))[:12]:
        text = path.read_text(encoding="utf-8")
        assert yamlio._parse_with(yamlio.PyDataLoader, text, "t") == parse_yaml(text, "t")


def test_a_large_file_within_the_limits_still_loads() -> None:
    items = ",".join(["1"] * (MAX_NODES - 10))
    assert len(parse_yaml(f"a: [{items}]", "t.yaml")["a"]) == MAX_NODES - 10
    with pytest.raises(ScenarioError, match="more than 250,000 values"):
        parse_yaml(f"a: [{items}, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", "t.yaml")
