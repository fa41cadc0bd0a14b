"""Scenario set-up and data items of issue #5: the German free placement of improved
fortifications as a set-up step (7.2.1, K65, K85), Deblockade's road link (K64), the
24 ARM* / V G MOT* reinforcement link (K62, K90) and the Kursk river VPs (K68)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.core import Applied
from engine.hexgrid import hexside
from engine.notation import format_order, parse_order
from engine.view import view
from engine.wb95.fortification_markers import markers
from engine.wb95.game import legal_actions


def _if_setup(count: int = 3, **extra: Any) -> Any:
    return scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}],
        special={"improved_fortifications": {"side": "german", "count": count, "hexes": []}},
        **extra,
    )


def test_7_2_1_place_if_notation_round_trips() -> None:
    order = parse_order("german: place-if 1619 620")
    assert order is not None and format_order(order) == "german: place-if 1619 0620"
    with pytest.raises(Exception, match="place-if needs at least one hex"):
        parse_order("german: place-if")


def test_7_2_1_k85_the_german_places_improved_fortifications_before_play() -> None:
    rec = play(_if_setup())
    assert [(d.side, d.kind, d.options) for d in rec.state.pending] == [
        ("german", "place-if", {"count": 3, "left": 3})
    ]
    r = reject(rec, "soviet: move s-inf 0801")
    assert "waiting for german" in r.message and r.rule == "7.2.1"
    acts = legal_actions(rec.state, "german")
    assert "0201" in acts["place_if"] and "0901" not in acts["place_if"] and acts["done"]
    rec = play(_if_setup(), "german: place-if 0201 0505")
    state = rec.state
    assert state.units["g-inf"].fortification == "if"
    assert markers(state)["0505"] == {"kind": "if", "side": "german"}
    assert state.pending[0].options == {"count": 3, "left": 1}
    for viewer in ("soviet", "spectator"):  # markers on the map are seen by everyone
        assert view(state, viewer).fortifications["0505"] == {"kind": "if", "side": "german"}
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_7_2_1_k85_placement_limits_cite_the_case() -> None:
    rec = play(_if_setup(), "german: place-if 0505")
    r = reject(rec, "german: place-if 0505")
    assert "one marker a hex" in r.message and r.rule == "7.2.1"
    r = reject(rec, "german: place-if 0901")
    assert "enemy unit" in r.message and r.rule == "7.2.1"
    r = reject(rec, "german: place-if 0303 0303")
    assert "one marker a hex" in r.message
    r = reject(rec, "german: place-if 1201")
    assert "not on the map" in r.message
    r = reject(rec, "german: place-if 0301 0302 0303")
    assert "only 2" in r.message
    r = reject(rec, "german: move g-inf 0301")
    assert "place-if" in r.message


def test_7_2_1_k85_done_ends_the_step_and_the_rest_are_not_used() -> None:
    rec = play(_if_setup(), "german: place-if 0505", "german: done", "soviet: move s-inf 0801")
    assert not rec.state.pending
    assert [h for h, m in markers(rec.state).items() if m["kind"] == "if"] == ["0505"]
    done = [e for e in rec.events if e.kind == "if_placement_done"]
    assert done[-1].data["placed"] == 1 and done[-1].data["left"] == 2
    reject(rec, "german: place-if 0506")  # not the German's turn any more (2.1.2)
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_7_2_1_k85_placing_them_all_ends_the_step() -> None:
    rec = play(_if_setup(count=2), "german: place-if 0505 0506", "soviet: move s-inf 0801")
    assert not rec.state.pending and rec.state.units["s-inf"].hex == "0801"


def test_k65_hexes_written_in_the_scenario_open_no_step() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}],
        special={"improved_fortifications": {"side": "german", "count": 2, "hexes": ["0505"]}},
    )
    rec = play(setup, "soviet: move s-inf 0801")
    assert not rec.state.pending


def test_k85_korsun_1944_opens_with_the_german_placement() -> None:
    from scenarios import load_scenario

    rec = play(load_scenario("korsun-1944"))
    assert rec.state.pending[0].kind == "place-if"
    assert rec.state.pending[0].options == {"count": 30, "left": 30}
    r = rec.submit(None, parse_order("german: done"))
    assert isinstance(r, Applied) and not rec.state.pending


# --- 24 ARM* / V G MOT* (Korsuń reinforcement schedule, A-51, K90) -----------------------
def _linked() -> Any:
    return scenario(
        [
            {"id": "s-inf", "hex": "0901"},
            {"id": "g-inf", "hex": "0101"},
            {"id": "g-24", "arrives": {"turn": 2, "hex": "0105"}},
            {"id": "s-5gm", "arrives": {"turn": 1, "hex": "1005"}},
        ],
        special={
            "linked_reinforcements": {"label": "24 ARM", "if_entered": ["g-24"], "then": ["s-5gm"]}
        },
    )


def test_k86_v_g_mot_waits_until_24_arm_has_entered() -> None:
    from engine.wb95.reinforcements import held_back, legal_entries

    rec = play(_linked())
    assert legal_entries(rec.state, "s-5gm") == {}
    r = reject(rec, "soviet: enter s-5gm 1005")
    assert "only once 24 ARM has entered" in r.message and r.ruling == "K90"
    # play on (every side says done) to turn 2, when 24 ARM may enter
    while not legal_actions(rec.state, "german")["entries"]:
        side = next(x for x in ("soviet", "german") if legal_actions(rec.state, x)["done"])
        assert isinstance(rec.submit(None, parse_order(f"{side}: done")), Applied)
    assert rec.state.turn == 2 and held_back(rec.state, "s-5gm") is not None
    assert "g-24" in legal_actions(rec.state, "german")["entries"]
    r = rec.submit(None, parse_order("german: enter g-24 0105"))
    assert isinstance(r, Applied), r
    assert rec.state.units["g-24"].hex == "0105"
    assert held_back(rec.state, "s-5gm") is None


def test_k86_shipped_korsun_files_link_24_arm_and_v_g_mot() -> None:
    from scenarios import load_scenario

    for sid in ("korsun-1944", "deblockade"):
        link = load_scenario(sid).special["linked_reinforcements"]
        assert link["if_entered"] == ["g-24-arm-1", "g-24-arm-2", "g-24-arm-3"]
        assert "s-5gmc-g" in link["then"]


# --- Deblockade: "linked by road with one of the zones: B to F" (K64) ---------------------
def _road_link(road: list[str], **map_extra: Any) -> Any:
    path = ["0503", "0403", "0304", "0305", "0306", "0307", "0207", "0208"]
    m: dict[str, Any] = {
        "layout": "even-q",
        "cols": [1, 10],
        "rows": [1, 8],
        "default": "clear",
        "terrain": {"0503": "city", "0504": "city"},
        "names": {"0503": "Korsuń", "0504": "Korsuń"},
        "zones": {"B": ["0108", "0208"]},
        "roads": [{"kind": "side", "hexes": road}],
    }
    m.update(map_extra)
    link = {"side": "german", "from": "Korsuń", "to_zones": ["B"], "by": "road"}
    return scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}],
        map=m,
        victory={"link": link},
        control={"german": [*path, "0504", "0404", "0405", "0406", "0407", "0308"]},
    )


def test_k64_deblockade_link_must_follow_a_road() -> None:
    from engine.wb95.victory import linked

    road = ["0504", "0404", "0405", "0406", "0407", "0308", "0208"]  # from the 2nd city hex
    state = play(_road_link(road)).state
    assert linked(state)  # 0503 -> 0504 inside the city, then along the road
    state.control["0406"] = "soviet"
    assert not linked(state)  # the German hexes around it are no road
    broken = play(_road_link(["0504", "0404", "0405"])).state
    assert not linked(broken)  # all hexes German, but no road reaches zone B


def test_k64_a_road_over_a_river_needs_its_bridge() -> None:
    from engine.wb95.victory import linked

    road = ["0504", "0404", "0405", "0406", "0407", "0308", "0208"]
    river = {"hexsides": [{"hexes": ["0405", "0406"], "feature": "river"}]}
    assert not linked(play(_road_link(road, **river)).state)
    bridged = play(_road_link(road, bridges=[["0405", "0406"]], **river)).state
    assert linked(bridged)
    bridged.bridges["0405/0406"] = "destroyed"
    assert not linked(bridged)


def test_k64_the_shipped_deblockade_links_by_road() -> None:
    from scenarios import load_scenario

    assert load_scenario("deblockade").victory_rules["link"]["by"] == "road"
    assert load_scenario("korsun-1944-short").victory_rules["link"]["by"] == "hexes"


# --- Kursk: "crossing Sjejm river 10 VPs" (K68) --------------------------------------------
def _river_setup() -> Any:
    m = {
        "layout": "even-q",
        "cols": [1, 10],
        "rows": [1, 8],
        "default": "clear",
        "hexsides": [{"hexes": ["0304", "0305"], "feature": "river"}],
        "rivers": {"Sjejm": [["0304", "0305"]]},
    }
    return scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0304"}],
        game="kursk",
        map=m,
        start={"turn": 1, "phase": "movement", "active": "german"},
        initiative="german",
        victory={"rivers": [{"river": "Sjejm", "vp": 10, "side": "german"}]},
    )


def test_k68_a_german_unit_crossing_the_sjejm_scores_10_vps_once() -> None:
    from engine.wb95.victory import victory_standing

    rec = play(_river_setup())
    assert victory_standing(rec.state)["vp"]["german"] == 0
    rec = play(_river_setup(), "german: move g-inf 0305")
    crossed = [e for e in rec.events if e.kind == "river_crossed"]
    assert [(e.data["side"], e.data["river"]) for e in crossed] == [("german", "Sjejm")]
    st = victory_standing(rec.state)
    assert st["vp"]["german"] == 10 and st["other_vp"]["german"] == 10
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_k68_river_vps_need_a_named_river_on_the_map() -> None:
    from scenarios import ScenarioError

    with pytest.raises(ScenarioError, match=r"victory\.rivers\[0\]\.river"):
        scenario(
            [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0304"}],
            victory={"rivers": [{"river": "Sjejm", "vp": 10, "side": "german"}]},
        )


def test_k68_shipped_kursk_maps_name_the_vp_rivers() -> None:
    from scenarios import load_scenario

    kursk = load_scenario("kursk")
    assert {r["river"]: r["vp"] for r in kursk.victory_rules["rivers"]} == {
        "Sjejm": 10,
        "Tuskar": 6,
        "Sosna": 5,
    }
    assert all(kursk.map.rivers[n] for n in ("Sjejm", "Tuskar", "Sosna"))
    prok = load_scenario("prokhorovka")
    assert prok.victory_rules["rivers"] == [{"river": "Psioł", "vp": 5, "side": "german"}]
    assert prok.map.rivers["Psioł"]


# --- Kursk maps: villages and bridges (K91) ------------------------------------------------
def test_k87_kursk_villages_are_town_hexes_and_korsun_villages_are_not() -> None:
    from scenarios import load_scenario
    from scenarios.mapbuild import build, read_geography

    m = load_scenario("kursk").map
    assert m.names["1409"] == "Olchowatka" and m.terrain_of("1409") == "town"
    geo = read_geography("korsun")
    villages = [p for p in geo["places"] if p["kind"] == "village" and p.get("hex")]
    built = build(geo)
    assert villages and all(built.terrain.get(str(p["hex"])) != "town" for p in villages[:5])


def test_k87_a_bridge_only_where_the_road_crosses_the_river() -> None:
    from scenarios.mapbuild import build

    geo: dict[str, Any] = {
        "id": "t",
        "game": "kursk",
        "bridges": "crossings",
        "projection": {
            "layout": "even-q",
            "origin": {"hex": "0505", "lat": 50.0, "lon": 36.0},
            "km_per_deg_lat": 111.2,
            "km_per_deg_lon": 70.0,
            "hex_km": 3.4,
        },
        "frame": {"cols": [1, 12], "rows": [1, 12]},
        # a river running west-east, a road along it just north, then crossing it once
        "rivers": [{"key": "r", "feature": "river", "points": [[49.984, 35.8], [49.984, 36.4]]}],
        "routes": [
            {
                "name": "road",
                "kind": "main",
                "via": [[49.99, 35.8], [49.99, 36.15], [49.93, 36.3]],
            }
        ],
    }
    crossing = build(geo)
    assert crossing.bridges == {("0905", "0906")}
    # K110: the road keeps to the north bank until its line crosses, so it steps over the
    # river once (it used to zigzag over three river hexsides, bridged or not)
    ((_kind, chain),) = crossing.roads
    steps = {hexside(a, b) for a, b in itertools.pairwise(chain)}
    assert steps & set(crossing.hexsides) == {("0905", "0906")}
    geo["bridges"] = "hexsides"  # the old setting changes nothing now
    assert build(geo).bridges == crossing.bridges


# --- kursk-joint: both Kursk sheets joined (Kursk "Join Scenarios", K92) -------------------
def test_k88_the_joint_map_keeps_kursk_numbers_and_shifts_the_southern_sheet() -> None:
    from scenarios import load_scenario
    from scenarios.joint import south_hex

    setup = load_scenario("kursk-joint")
    m, north, south = setup.map, load_scenario("kursk").map, load_scenario("prokhorovka").map
    assert south_hex("5026") == "2462" and m.names["2462"] == "Bielgorod"
    assert m.names["1626"] == north.names["1626"] == "Kursk"
    assert m.terrain_of("2462") == south.terrain_of("5026")
    grid = m.grid
    assert grid.contains("3135") and grid.contains("0836") and not grid.contains("0136")
    assert not grid.contains("3500") and "3500" not in set(grid.all_hexes())
    assert grid.adjacent("1035", "1036")  # the seam: Kursk row 35 over Prokhorovka row 00
    assert set(m.edges["E"]) >= {"3100", "3771"} and "3135" in m.edges["E"]
    assert all(h.endswith("71") for h in m.edges["S"]) and "0871" in m.edges["S"]
    assert set(m.rivers) == {"Sjejm", "Tuskar", "Sosna", "Psioł"}


def test_k88_the_joint_scenario_has_both_setups_and_added_victory_scales() -> None:
    from scenarios import load_scenario

    joint, north, south = (load_scenario(x) for x in ("kursk-joint", "kursk", "prokhorovka"))
    assert set(joint.units) == set(north.units) | set(south.units)
    assert joint.turns == 19 and joint.initiative == "german"
    starts = {st.id: st for st in joint.starts}
    assert starts["s-18tc-1-32mrb"].arrives == {"turn": 6, "hex": "3744"}  # earlier schedule
    scale = {lv["result"]: lv["vp"] for lv in joint.victory_rules["levels"] if lv["vp"]}
    assert scale == {
        "german significant victory": 58,
        "german medium victory": 43,
        "german small victory": 27,
    }
    assert {r["river"] for r in joint.victory_rules["rivers"]} == {
        "Sjejm",
        "Tuskar",
        "Sosna",
        "Psioł",
    }


def test_k88_joint_files_are_fresh_and_the_opening_runs() -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    from scenarios.joint import joint_text
    from scenarios.mapbuild import build_text

    root = Path(__file__).resolve().parent.parent
    assert (root / "scenarios/wb95/kursk-joint.yaml").read_text(encoding="utf-8") == joint_text()
    assert (root / "scenarios/maps/kursk-joint.yaml").read_text(encoding="utf-8") == build_text(
        "kursk-joint"
    )
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run", "kursk-joint", "--seed", "1", "--json"],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    data = json.loads(out.stdout)
    assert (data["turn"], data["phase"], data["rejected"]) == (1, "air", None)
    assert len(data["units"]) > 300
