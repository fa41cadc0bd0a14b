"""4.1-4.2 Zones of control and their effect on movement (R14, K1, K4, K8, K11)."""

from __future__ import annotations

from fractions import Fraction

from conftest import play, reject, scenario

from engine.wb95.game import legal_moves
from engine.wb95.zoc import zoc_map


def test_4_1_1_zoc_covers_the_six_adjacent_hexes() -> None:
    rec = play(scenario([{"id": "g-inf", "hex": "0505"}, {"id": "s-x", "hex": "0101"}]))
    assert set(zoc_map(rec.state, "german")) == {"0504", "0506", "0404", "0405", "0604", "0605"}


def test_6_1_5_k8_artillery_hq_and_rg_have_no_zoc() -> None:
    setup = scenario(
        [
            {"id": "g-art", "hex": "0202", "type": "art", "sp": [4, 2]},
            {"id": "g-sp", "hex": "0205", "type": "sp-art", "sp": [4, 2]},
            {"id": "g-hq", "hex": "0602", "type": "hq", "sp": 0},
            {"id": "g-rg", "hex": "0605", "type": "rg"},
            {"id": "s-x", "hex": "1008"},
        ]
    )
    assert zoc_map(play(setup).state, "german") == {}


def test_4_1_3_k11_no_zoc_across_a_big_river_even_bridged() -> None:
    setup = scenario(
        [{"id": "g-inf", "hex": "0505"}, {"id": "s-x", "hex": "0101"}],
        hexsides=[{"hexes": ["0505", "0605"], "feature": "big-river"}],
        bridges=[["0505", "0605"]],
    )
    zm = zoc_map(play(setup).state, "german")
    assert "0605" not in zm and "0604" in zm


def test_4_1_4_motorized_units_exert_no_zoc_into_swamps() -> None:
    setup = scenario(
        [
            {"id": "g-arm", "hex": "0505", "type": "arm"},
            {"id": "g-inf", "hex": "0202"},
            {"id": "s-x", "hex": "1008"},
        ],
        terrain={"0504": "swamp", "0203": "swamp"},
    )
    zm = zoc_map(play(setup).state, "german")
    assert "0504" not in zm  # 4.1.4 (example: motorized into swamp)
    assert "0203" in zm  # infantry can enter swamps, so its ZoC reaches them


def test_4_2_1_entering_enemy_zoc_ends_the_move() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0505"}])
    rec = play(setup)
    r = reject(rec, "move s-inf 0304 0404 0403")
    assert r.rule == "4.2.1" and "0404" in r.message
    rec = play(setup, "move s-inf 0304 0404")  # 4.2.2: no extra cost to enter
    assert rec.state.units["s-inf"].mp_spent == 3


def test_4_2_6_leaving_zoc_costs_one_more_mp() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0404"}, {"id": "g-inf", "hex": "0505"}])
    rec = play(setup, "move s-inf 0304 0204")
    assert rec.state.units["s-inf"].mp_spent == 4  # 1.5 + 1 + 1.5


def test_3_1_13_k1_cap_includes_zoc_exit() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0404", "mp": 2}, {"id": "g-inf", "hex": "0505"}],
        terrain={"0304": "hills"},
    )
    rec = play(setup, "move s-inf 0304")  # hills 2 + ZoC exit 1 = 3, capped at 2
    assert rec.state.units["s-inf"].mp_spent == 2


def test_4_2_3_r14_k4_no_step_within_one_units_zoc() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0404"}, {"id": "g-inf", "hex": "0505"}])
    rec = play(setup)
    r = reject(rec, "move s-inf 0404 0504")  # 0404 and 0504 both in g-inf's ZoC
    assert r.rule == "4.2.3" and r.ruling == "R14"
    # the cheapest legal way there leaves the ZoC first and re-enters it (4.2.4)
    assert legal_moves(rec.state, "s-inf")["0504"].path == ("0403", "0504")


def test_4_2_5_r14_moving_into_a_different_units_zoc_is_allowed_and_stops() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0404"}, {"id": "g-a", "hex": "0505"}, {"id": "g-b", "hex": "0402"}]
    )
    rec = play(setup, "move s-inf 0404 0403")  # from g-a's ZoC into g-b's only
    assert rec.state.units["s-inf"].hex == "0403"
    assert legal_moves(rec.state, "s-inf") == {}  # moved already


def test_4_2_4_leaving_and_reentering_the_same_zoc() -> None:
    setup = scenario([{"id": "s-inf", "hex": "0404", "mp": 6}, {"id": "g-inf", "hex": "0505"}])
    rec = play(setup, "move s-inf 0304 0305 0405")  # out to a free hex, back into the ZoC
    assert rec.state.units["s-inf"].mp_spent == Fraction(11, 2)
