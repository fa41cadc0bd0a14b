"""3.0 Movement on the Korsun terrain table (and a few Kursk values), with R10-R13, K1-K3."""

from __future__ import annotations

from fractions import Fraction

from conftest import play, reject, scenario

from engine.wb95.game import legal_moves


def cost_of(rec, unit: str) -> Fraction:  # type: ignore[no-untyped-def]
    return rec.state.units[unit].mp_spent


def moves(rec, unit: str) -> dict[str, Fraction]:  # type: ignore[no-untyped-def]
    return {h: r.cost for h, r in legal_moves(rec.state, unit).items()}


def test_3_1_11_korsun_clear_costs_by_movement_class() -> None:
    setup = scenario(
        [
            {"id": "s-foot", "hex": "0102", "mp": 4},
            {"id": "s-truck", "hex": "0104", "mp": 6, "type": "mot"},
            {"id": "s-mech", "hex": "0106", "mp": 6, "type": "arm"},
        ]
    )
    rec = play(
        setup, "move s-foot 0202 0302", "move s-truck 0204 0304", "move s-mech 0206 0306 0406"
    )
    assert cost_of(rec, "s-foot") == Fraction(3)  # 1.5 + 1.5
    assert cost_of(rec, "s-truck") == Fraction(6)  # 3 + 3 (R11: trucked)
    assert cost_of(rec, "s-mech") == Fraction(6)  # 2 + 2 + 2 (R11: mechanized)
    r = reject(play(setup), "move s-foot 0202 0302 0402")
    assert r.rule == "3.1.5" and "needs 4.5 MP" in r.message


def test_3_1_12_forest_entered_across_a_stream_cumulates() -> None:
    """E8's rule with the Korsun values: mechanized clear 2 + forest 1 + stream 1 = 4."""
    setup = scenario(
        [
            {"id": "s-mech", "hex": "0203", "mp": 6, "type": "arm"},
            {"id": "s-truck", "hex": "0205", "mp": 6, "type": "mot"},
            {"id": "s-foot", "hex": "0207", "mp": 4},
        ],
        terrain={"0303": "forest", "0305": "forest", "0307": "forest"},
        hexsides=[
            {"hexes": ["0203", "0303"], "feature": "stream"},
            {"hexes": ["0205", "0305"], "feature": "stream"},
            {"hexes": ["0207", "0307"], "feature": "river"},
        ],
    )
    rec = play(setup, "move s-mech 0303", "move s-truck 0305", "move s-foot 0307")
    assert cost_of(rec, "s-mech") == 4
    assert cost_of(rec, "s-truck") == 5  # 3 + 1 + 1
    assert cost_of(rec, "s-foot") == 4  # 1.5 + 1 + river 1.5


def test_3_1_12_k2_bridge_carries_the_crossing_and_road_replaces_terrain() -> None:
    setup = scenario(
        [{"id": "s-truck", "hex": "0203", "mp": 4, "type": "mot"}],
        terrain={"0303": "forest", "0403": "swamp"},
        hexsides=[{"hexes": ["0203", "0303"], "feature": "river"}],
        bridges=[["0203", "0303"]],
        roads=[{"kind": "main", "hexes": ["0203", "0303", "0403", "0503"]}],
    )
    rec = play(setup, "move s-truck 0303 0403 0503")
    assert cost_of(rec, "s-truck") == 1  # three main-road hexes at 1/3, bridge, causeway


def test_3_1_12_k2_a_road_across_an_unbridged_river_pays_the_river() -> None:
    setup = scenario(
        [{"id": "s-foot", "hex": "0203"}],
        hexsides=[{"hexes": ["0203", "0303"], "feature": "river"}],
        roads=[{"kind": "side", "hexes": ["0203", "0303"]}],
    )
    rec = play(setup, "move s-foot 0303")
    assert cost_of(rec, "s-foot") == Fraction(5, 2)  # side road 1 + river 1.5


def test_main_road_costs_a_third_for_trucks_and_a_half_for_tracks() -> None:
    line = [f"{c:02d}03" for c in range(1, 11)]
    setup = scenario(
        [
            {"id": "s-truck", "hex": "0103", "mp": 3, "type": "mot"},
            {"id": "s-mech", "hex": "0103", "mp": 3, "type": "arm"},
        ],
        roads=[{"kind": "main", "hexes": line}],
    )
    rec = play(setup, "move s-truck 1003")
    assert cost_of(rec, "s-truck") == 3  # 9 hexes at 1/3
    assert "0703" in moves(rec, "s-mech") and "0803" not in moves(rec, "s-mech")


def test_destination_only_takes_the_cheapest_legal_path() -> None:
    road = ["0103", "0203", "0304", "0404", "0504"]
    setup = scenario(
        [{"id": "s-truck", "hex": "0103", "mp": 4, "type": "mot"}],
        roads=[{"kind": "main", "hexes": road}],
    )
    rec = play(setup, "move s-truck 0504")
    ev = rec.events[-1]
    assert ev.kind == "moved" and ev.data["path"] == road
    assert cost_of(rec, "s-truck") == Fraction(4, 3)


def test_r12_side_road_extra_hex_when_every_step_is_on_the_road() -> None:
    line = [f"{c:02d}03" for c in range(1, 11)]
    setup = scenario(
        [{"id": "s-foot", "hex": "0103", "mp": 4}, {"id": "s-foot2", "hex": "0104", "mp": 4}],
        roads=[{"kind": "side", "hexes": line}],
    )
    rec = play(setup, "move s-foot 0603")  # 4 hexes for 4 MP, then one more (R12)
    assert rec.events[-1].data["bonus"] is True
    assert "0703" not in moves(play(setup), "s-foot")
    # K3: a first step off the road forfeits the bonus
    r = reject(rec, "move s-foot2 0103 0203 0303 0403 0503 0603")
    assert r.rule == "3.1.5"


def test_3_1_13_minimum_move_caps_the_cost_of_one_hex() -> None:
    """E9: a unit can always enter one adjacent hex, whatever it costs."""
    setup = scenario(
        [{"id": "s-mech", "hex": "0203", "mp": 2, "type": "arm"}],
        terrain={"0303": "hills"},
        hexsides=[{"hexes": ["0203", "0303"], "feature": "river"}],
    )
    rec = play(setup, "move s-mech 0303")  # 2.5 + 2 = 4.5, capped at 2
    assert cost_of(rec, "s-mech") == 2


def test_3_1_13_example_b_out_of_supply_infantry() -> None:
    """E9 (b): 4 MP infantry OoS has 2 MP (10.2.2, R5) and still enters a 3 MP hex."""
    setup = scenario(
        [{"id": "s-inf", "hex": "0203", "mp": 4, "oos": 1}],
        terrain={"0303": "hills"},
        hexsides=[{"hexes": ["0203", "0303"], "feature": "stream"}],
    )
    rec = play(setup, "move s-inf 0303")
    assert cost_of(rec, "s-inf") == 2
    assert rec.events[-1].data["mp"] == "2"


def test_3_1_4_path_must_be_continuous() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0203"}]))
    r = reject(rec, "move s-inf 0203 0303 0503")
    assert r.rule == "3.1.4" and "not adjacent" in r.message


def test_3_1_8_cannot_enter_an_enemy_hex() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0503"}]))
    assert reject(rec, "move s-inf 0503").rule == "3.1.8"


def test_unknown_unit_off_map_hex_and_wrong_side_are_rejected() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0203"}, {"id": "g-inf", "hex": "0808"}]))
    assert "no unit 's-999'" in reject(rec, "move s-999 0303").message
    assert "not on the map" in reject(rec, "move s-inf 0203 0103 0003").message
    assert "not on the map" in reject(rec, "move s-inf 2020").message
    assert "not yours" in reject(rec, "soviet: move g-inf 0807").message
    r = reject(rec, "german: move g-inf 0807")
    assert r.rule == "2.1.2" and "german cannot give orders now" in r.message


def test_3_1_6_k9_a_unit_moves_once_per_phase() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0203"}]), "move s-inf 0303")
    r = reject(rec, "move s-inf 0403")
    assert "already moved" in r.message and r.rule == "3.1.6"


def test_3_1_10_moving_through_friendly_stacks_and_at_hex_refs() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "cel": 2},
            {"id": "s-b", "hex": "0303", "cel": 2},
            {"id": "s-c", "hex": "0303", "cel": 2},
        ]
    )
    rec = play(setup, "move s-a 0303 0403", "move @0303 0304")
    assert rec.state.units["s-b"].hex == rec.state.units["s-c"].hex == "0304"


def test_6_2_3_towed_artillery_in_combat_setup_cannot_move() -> None:
    setup = scenario([{"id": "s-art", "hex": "0203", "type": "art", "sp": [6, 2]}])
    r = reject(play(setup), "move s-art 0303")
    assert r.rule == "6.2.3" and "transport setup" in r.message


def test_r10_swamps_are_impassable_to_motorized_units_and_cost_hqs_5() -> None:
    setup = scenario(
        [
            {"id": "s-mech", "hex": "0203", "mp": 6, "type": "arm"},
            {"id": "s-hq", "hex": "0205", "mp": 6, "type": "hq", "sp": 0},
            {"id": "s-foot", "hex": "0207"},
        ],
        terrain={"0303": "swamp", "0305": "swamp", "0307": "swamp"},
    )
    rec = play(setup)
    r = reject(rec, "move s-mech 0303")
    assert r.ruling == "R10" and "impassable" in r.message
    rec = play(setup, "move s-hq 0305", "move s-foot 0307")
    assert cost_of(rec, "s-hq") == 5 and cost_of(rec, "s-foot") == Fraction(3, 2)


def test_r24_big_river_only_by_bridge() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0203"}, {"id": "s-inf2", "hex": "0205"}],
        hexsides=[
            {"hexes": ["0203", "0303"], "feature": "big-river"},
            {"hexes": ["0205", "0305"], "feature": "big-river"},
        ],
        bridges=[["0205", "0305"]],
    )
    rec = play(setup)
    assert reject(rec, "move s-inf 0203 0303").ruling == "R24"
    rec = play(setup, "move s-inf2 0305")
    assert cost_of(rec, "s-inf2") == Fraction(3, 2)


def test_k7_mountains_stop_motorized_units() -> None:
    setup = scenario(
        [{"id": "s-mech", "hex": "0203", "type": "arm", "mp": 6}, {"id": "s-foot", "hex": "0205"}],
        terrain={"0303": "mountain", "0305": "mountain"},
    )
    assert "impassable" in reject(play(setup), "move s-mech 0303").message
    assert cost_of(play(setup, "move s-foot 0305"), "s-foot") == 3  # hills 2 + 1


def test_kursk_table_differs() -> None:
    setup = scenario(
        [{"id": "s-mech", "hex": "0203", "type": "arm", "mp": 6}, {"id": "s-foot", "hex": "0205"}],
        game="kursk",
        terrain={"0303": "forest"},
        hexsides=[{"hexes": ["0205", "0305"], "feature": "big-river"}],
    )
    rec = play(setup, "move s-mech 0303", "move s-foot 0305")
    assert cost_of(rec, "s-mech") == 2  # Kursk: clear (1) + forest (+1)
    assert cost_of(rec, "s-foot") == 2  # clear 1 + Siewiernyj Doniec +1: not a big river


def test_rejected_move_changes_nothing_and_a_good_one_is_an_event() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0203"}]))
    reject(rec, "move s-inf 0203 0303 0403 0503")
    rec2 = play(scenario([{"id": "s-inf", "hex": "0203"}]), "move s-inf 0303")
    ev = rec2.events[-1]
    assert ev.kind == "moved"
    assert ev.data["from"] == "0203" and ev.data["to"] == "0303" and ev.data["cost"] == "3/2"
