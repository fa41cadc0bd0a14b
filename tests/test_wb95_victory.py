"""Victory conditions (the Korsun scenarios' "Victory Conditions"), engine/wb95/victory.py,
and the shipped Korsun scenarios built on the countersheet (docs/order-of-battle.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.model import Setup
from engine.wb95 import flow
from engine.wb95.victory import final_result, linked, victory_standing
from scenarios import load_scenario


def _map(**extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        "layout": "even-q",
        "cols": [1, 10],
        "rows": [1, 8],
        "default": "clear",
        "terrain": {"0503": "city", "0504": "city"},
        "names": {"0503": "Korsuń", "0504": "Korsuń"},
        "zones": {"B": ["0108", "0208"]},
    }
    m.update(extra)
    return m


def _setup(victory: dict[str, Any], control: dict[str, list[str]] | None = None) -> Setup:
    return scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}],
        map=_map(),
        victory=victory,
        control=control,
    )


def test_victory_city_hexes_score_one_vp_each_for_their_controller() -> None:
    setup = _setup({"cities": ["Korsuń"]}, control={"german": ["0503"], "soviet": ["0504"]})
    assert {(v.hex, v.vp) for v in setup.victory} == {("0503", 1), ("0504", 1)}
    st = victory_standing(play(setup).state)
    assert st["vp"] == {"soviet": 1, "german": 1}


def test_victory_at_any_moment_ends_the_game_after_the_input() -> None:
    levels = [{"side": "soviet", "at_any_moment": True, "vp": 2, "result": "soviet victory"}]
    setup = _setup(
        {"cities": ["Korsuń"], "conditions": levels}, control={"soviet": ["0503", "0504"]}
    )
    rec = play(setup, "done")
    ended = [e for e in rec.events if e.kind == "game_ended"]
    assert ended and ended[0].data["result"]["winner"] == "soviet"
    assert ended[0].data["result"]["outcome"] == "soviet victory"
    assert rec.state.over
    assert rec.rebuild().snapshot() == rec.state.snapshot()
    reject(rec, "done")


def test_victory_not_met_levels_do_not_end_the_game() -> None:
    levels = [{"side": "soviet", "at_any_moment": True, "vp": 2, "result": "soviet victory"}]
    setup = _setup({"cities": ["Korsuń"], "conditions": levels}, control={"soviet": ["0503"]})
    rec = play(setup, "done")
    assert not rec.state.over
    assert victory_standing(rec.state)["levels"][0]["met"] is False


def test_victory_one_vp_per_enemy_cel_destroyed_and_more_vps_wins() -> None:
    setup = _setup({"cel_vp": 1, "otherwise": "more VPs"})
    state = play(setup).state
    g = state.units["g-inf"]
    g.cel, g.eliminated = 0, True
    res = final_result(state)
    assert res["vp"] == {"soviet": 2, "german": 0}
    assert (res["winner"], res["outcome"]) == ("soviet", "soviet victory on VPs")


def test_victory_equal_vps_are_a_draw() -> None:
    state = play(_setup({"cel_vp": 1, "otherwise": "more VPs"})).state
    assert final_result(state)["outcome"] == "draw"


def test_victory_link_from_korsun_to_the_zones_runs_through_own_hexes() -> None:
    link = {"side": "german", "from": "Korsuń", "to_zones": ["B"]}
    path = ["0503", "0403", "0304", "0305", "0306", "0307", "0207", "0208"]
    setup = _setup({"cities": ["Korsuń"], "link": link}, control={"german": path})
    state = play(setup).state
    assert linked(state)
    state.control["0305"] = "soviet"
    assert not linked(state)


def test_victory_bad_levels_are_refused_with_the_key() -> None:
    from scenarios import ScenarioError

    with pytest.raises(ScenarioError, match=r"victory\.conditions\[0\]"):
        _setup({"conditions": [{"side": "soviet", "result": "x", "vp": 1}]})
    with pytest.raises(ScenarioError, match=r"victory\.cities"):
        _setup({"cities": ["Atlantis"]})


# --- the shipped Korsun scenarios -------------------------------------------------------
def test_korsun_1944_option_i_setup() -> None:
    s = load_scenario("korsun-1944")
    assert (s.turns, s.initiative, str(s.calendar_start)) == (25, "soviet", "1944-01-24")
    assert len(s.victory) == 27  # every hex of the six VP cities
    kinds = {lv["vp"]: lv["side"] for lv in s.victory_rules["levels"]}
    assert kinds == {13: "soviet", 15: "german"}
    fortified = [st.id for st in s.starts if st.fortification == "ff"]
    assert "g-88-inf-1" in fortified and "s-206-inf" in fortified
    assert {"s-40a-hq", "s-5gtc-20tb"} <= s.scenario_rules.activation[0].group.units
    assert s.scenario_rules.activation[0].turn == 3
    where = {st.id: st.hex for st in s.starts}
    assert where["g-202-ag"] == where["g-471-at"] == "1524"  # K63
    assert where["s-4ga-3art"] == "6021"  # K63: XX ARM fills 6022
    arrivals = {st.id: st.arrives for st in s.starts if st.arrives}
    assert arrivals["s-78-inf"] == {"turn": 2, "hex": "6422"}  # K62: 25 I
    assert arrivals["g-24-arm-1"] == {"turn": 11, "zone": "C"}
    assert s.air_sides["german"].forbid == {"disorganize"}  # 8.2.11-8.2.16 barred
    assert (s.air_sides["german"].pool(1), s.air_sides["soviet"].pool(1)) == (4, 12)  # 24 I


def test_korsun_1944_option_ii_and_deblockade() -> None:
    short = load_scenario("korsun-1944-short")
    assert short.turns == 11 and short.victory_rules["link"]["side"] == "german"
    deb = load_scenario("deblockade")
    assert (deb.turns, deb.initiative, str(deb.calendar_start)) == (15, "german", "1944-02-03")
    reduced = {st.id: st.cel for st in deb.starts if st.cel < deb.units[st.id].max_cel}
    assert reduced["g-202-ag"] == 1 and len(reduced) >= 10
    assert load_scenario("the-retreat").victory_rules["cel_vp"] == 1
    assert (deb.air_sides["german"].pool(1), deb.air_sides["soviet"].pool(1)) == (9, 6)  # 3 II


def test_korsun_1944_first_ukrainian_front_moves_from_turn_3() -> None:
    s = load_scenario("korsun-1944")
    # the German IF placement (K85: none placed), then the Air Phase
    rec = play(s, "german: done", "soviet: done", "german: done")
    assert flow.current_phase(rec.state).kind == "movement"
    r = reject(rec, "move s-232-inf 0334")
    assert "turn 3" in r.message


def test_korsun_1944_opening_position_json(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    assert main(["run", "korsun-1944", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["turn"] == 1 and out["phase"] == "air"
    ids = {u["id"] for u in out["units"]}
    assert {"g-88-inf-1", "s-232-inf", "g-rg-korsun"} <= ids
    standing = out["victory"]  # the standing on request (victory_standing)
    assert standing["vp"] == out["vp"] and out["vp"]["german"] > 13
    assert [lv["met"] for lv in standing["levels"]] == [False, out["vp"]["german"] >= 15]


# --- the German free placement of 30 improved fortifications (Korsuń 1944 notes) --------
def test_korsun_improved_fortifications_are_placed_before_play() -> None:
    from engine.wb95.fortification_markers import markers

    setup = scenario(
        [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}],
        special={"improved_fortifications": {"side": "german", "count": 2, "hexes": [201, "0505"]}},
    )
    state = play(setup).state
    assert state.units["g-inf"].fortification == "if"
    assert markers(state)["0505"] == {"kind": "if", "side": "german"}


def test_korsun_improved_fortifications_are_limited_and_not_under_the_enemy() -> None:
    from scenarios import ScenarioError

    units = [{"id": "s-inf", "hex": "0901"}, {"id": "g-inf", "hex": "0201"}]
    with pytest.raises(ScenarioError, match="more than the 1 allowed"):
        scenario(
            units,
            special={
                "improved_fortifications": {"side": "german", "count": 1, "hexes": ["0505", "0506"]}
            },
        )
    with pytest.raises(ScenarioError, match="holds an enemy unit"):
        scenario(
            units,
            special={"improved_fortifications": {"side": "german", "count": 1, "hexes": ["0901"]}},
        )


# --- The Retreat: withdrawal through the southern zones ---------------------------------
def _retreat() -> Setup:
    return scenario(
        [
            {"id": "s-inf", "hex": "0901"},
            {"id": "g-inf", "hex": "0208"},
            {"id": "g-b", "hex": "0505"},
        ],
        map=_map(),
        start={"turn": 1, "phase": "movement", "active": "german"},
        special={"withdrawal_zones": {"side": "german", "zones": ["B"]}},
        victory={"cel_vp": 1, "otherwise": "more VPs"},
    )


def test_the_retreat_units_in_a_zone_leave_the_map_and_are_saved() -> None:
    rec = play(_retreat(), "withdraw g-inf")
    u = rec.state.units["g-inf"]
    assert u.hex is None and u.withdrawn == 1
    assert victory_standing(rec.state)["vp"] == {"soviet": 0, "german": 0}
    assert rec.rebuild().snapshot() == rec.state.snapshot()


def test_the_retreat_only_units_in_a_zone_may_withdraw() -> None:
    r = reject(play(_retreat()), "withdraw g-b")
    assert "not in a withdrawal zone (B)" in r.message
