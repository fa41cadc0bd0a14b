"""4.3 Hex control (K5, K10) and victory points."""

from __future__ import annotations

from conftest import play, scenario


def test_4_3_1_k5_initial_control_goes_to_the_nearer_side() -> None:
    rec = play(scenario([{"id": "s-inf", "hex": "0103"}, {"id": "g-inf", "hex": "0903"}]))
    c = rec.state.control
    assert c["0103"] == "soviet" and c["0203"] == "soviet"
    assert c["0903"] == "german" and c["1008"] == "german"
    assert "0503" not in c  # equally near both


def test_4_3_1_scenario_may_list_initial_control() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0103"}, {"id": "g-inf", "hex": "0903"}],
        control={"soviet": ["0103", "0203"], "german": ["0903"]},
    )
    assert play(setup).state.control == {"0103": "soviet", "0203": "soviet", "0903": "german"}


def test_4_3_2_4_3_3_control_is_taken_at_the_end_of_the_own_supply_phase() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0103", "mp": 6}, {"id": "g-inf", "hex": "0903"}],
        control={"soviet": ["0103"], "german": ["0903", "0403", "0503", "0603", "0502", "0504"]},
        # a supply base just behind it: only supplied units take hexes by ZoC (4.3.5)
        sides={
            "soviet": {"nation": "soviet", "supply": [{"hex": "0303"}]},
            "german": {"nation": "german", "supply": [{"edge": "E"}]},
        },
    )
    rec = play(setup, "move s-inf 0203 0303 0403")
    assert rec.state.control["0403"] == "german"  # not before the Supply Phase
    rec = play(setup, "move s-inf 0203 0303 0403", "done")
    c = rec.state.control
    assert c["0403"] == "soviet"  # 4.3.2: occupied
    assert c["0503"] == "soviet"  # 4.3.3: in its ZoC, no enemy ZoC
    changed = [e for e in rec.events if e.kind == "control_changed"]
    assert changed and changed[0].data["side"] == "soviet"


def test_4_3_6_k10_hexes_in_both_zocs_belong_to_neither() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0303"}, {"id": "g-inf", "hex": "0503"}],
        control={"german": ["0403", "0404"]},
    )
    rec = play(setup, "done")
    assert "0403" not in rec.state.control  # both ZoCs: neither (4.3.6)
    assert rec.state.control["0303"] == "soviet"


def test_4_3_5_out_of_supply_units_do_not_take_hexes_by_zoc() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0303", "oos": 1}, {"id": "g-inf", "hex": "0908"}],
        control={"german": ["0303", "0403"]},
    )
    rec = play(setup, "done")
    assert rec.state.control["0303"] == "soviet"  # its own hex (4.3.2)
    assert rec.state.control["0403"] == "german"  # not by ZoC (4.3.5)


def test_victory_points_count_controlled_victory_hexes() -> None:
    setup = scenario(
        [{"id": "s-inf", "hex": "0103"}, {"id": "g-inf", "hex": "0903"}],
        victory={"hexes": [{"hex": "0203", "vp": 2}, {"hex": "0903", "vp": 3, "side": "soviet"}]},
    )
    from engine.wb95.control import victory_points

    assert victory_points(play(setup).state) == {"soviet": 2, "german": 0}
