"""The rulebook's worked examples about combat (shared/reference/wb95-examples.md E5, E11-E18,
E41, E42), replayed as games, with the edge cases around them: retreat limits (5.3.3,
5.3.5, 5.3.6), pursuit (5.4), recovery (5.6.5, R22), mandatory combat (5.1.5), tactical
concentration (13.1), Volkssturm (15.3.2) and the star-cap variant option.

Hexes are even-q on the 10x8 test map; neighbours are worked out with `engine.hexgrid`,
e.g. 0505 touches 0504 0506 0404 0405 0604 0605. `dice=(a, b, ...)` forces the 2K6 of the
COMBAT TABLE (scenarios/tables/wb95-results.yaml) and then any disorganization tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.hexgrid import Grid
from engine.model import Setup
from engine.record import GameRecord
from engine.wb95.crt import COLUMNS, lookup

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}
SOVIET_COMBAT = {"turn": 1, "phase": "combat", "active": "soviet"}
GRID = Grid("even-q", (1, 10), (1, 8))


def resolved(rec: GameRecord) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == "combat_resolved").data


def disorganization_tests(rec: GameRecord) -> int:
    """5.3.9 / 5.6.2 tests rolled, counted from the dice_rolled events."""
    return sum(
        1
        for e in rec.events
        if e.kind == "dice_rolled" and "disorganization test" in e.data["reason"]
    )


def cels_lost(rec: GameRecord, rule: str | None = None) -> list[str]:
    return [
        e.data["unit"]
        for e in rec.events
        if e.kind == "cel_lost" and (rule is None or e.data["rule"] == rule)
    ]


def paths(rec: GameRecord, unit: str) -> list[list[str]]:
    (d,) = [d for d in rec.state.pending if d.kind == "retreat"]
    p: list[list[str]] = d.options["paths"][unit]
    return p


def test_the_test_map_geometry() -> None:
    """The hexes the tests below rely on."""
    assert sorted(GRID.neighbours("0505")) == ["0404", "0405", "0504", "0506", "0604", "0605"]
    assert sorted(GRID.neighbours("0604")) == ["0504", "0505", "0603", "0605", "0704", "0705"]
    assert [GRID.distance("0505", h) for h in ("0404", "0304", "0204")] == [1, 2, 3]
    assert [GRID.distance("0505", h) for h in ("0405", "0305", "0205")] == [1, 2, 3]
    assert [GRID.distance("0604", h) for h in ("0704", "0804")] == [1, 2]


# --- E5: the 5.2.1 example ------------------------------------------------------------------


def e5_setup() -> Setup:
    """E5: a German armoured division (17 SPs in three units, g-a with a black star)
    attacks two Soviet cavalry brigades (8 SPs) in woods, not fortified."""
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 6, "formation": "11PzD"},
        {"id": "g-b", "hex": "0605", "type": "arm", "sp": 6, "formation": "11PzD"},
        {"id": "g-c", "hex": "0506", "type": "arm", "sp": 5, "formation": "11PzD"},
        {"id": "s-cav1", "hex": "0505", "type": "cav", "sp": 4},
        {"id": "s-cav2", "hex": "0505", "type": "cav", "sp": 4},
    ]
    units[0]["stars"] = ["black"]
    return scenario(units, terrain={"0505": "forest"}, start=GERMAN_COMBAT)


E5_ATTACK = "attack g-a g-b g-c -> 0505 stars g-a"


def test_e5_5_2_1_ratio_17_to_8_with_tc_black_star_and_woods_is_3_to_1() -> None:
    rec = play(e5_setup(), E5_ATTACK, dice=(3, 4))
    c = resolved(rec)
    assert (c["attack_sp"], c["defence_sp"]) == (17, 8)
    assert c["initial"] == "2:1"  # 17/8 = 2.125 -> 2:1 (1.7)
    text = "\n".join(c["explanation"])
    assert "tactical concentration: 3 units of 11PzD" in text  # +1 (13.1.2)
    assert "black star of g-a" in text  # +1 (15.1.3): the Soviets are not fortified
    assert "forest at 0505" in text  # -1 (5.5.1)
    assert "2:1 -> 4:1" in text and "4:1 -> 3:1" in text  # R3: attacker CMs, then defender
    assert c["column"] == "3:1"


def test_e5_5_2_1_the_example_b2_minus_1_cannot_occur_at_3_to_1() -> None:
    """The example's "B2/-1" is "-1 / D2" (attacker loses 1 CEL, defender retreats 2).
    No such cell exists in the 3:1 column (rolls 2-12: -1 / D3D, • / D3 -1, • / D3,
    • / D2, - / D2, - / D2, - / D2, - / D1, -1 / D1 -1, -1 / -1, D -1 / -1). The
    defender's three options are tested on the nearest real cell, `- / D2` (roll 7), and
    the attacker's loss from the star user on `-1 / D1 -1` (roll 10)."""
    rec = play(e5_setup())
    three = COLUMNS.index("3:1")
    col = [lookup(rec.state.setup.results, three, roll).text for roll in range(2, 13)]
    assert not any(c.startswith("-1 / D2") for c in col)
    assert col[5] == "- / D2" and col[8] == "-1 / D1 -1"


def test_e5_5_3_7_option_lose_2_cels_and_hold() -> None:
    rec = play(
        e5_setup(),
        E5_ATTACK,
        "soviet: retreat s-cav1",
        "soviet: retreat s-cav2",
        dice=(3, 4),
    )
    (d,) = rec.state.pending  # R19: 2 CELs, the owner chooses from the units that held
    assert d.kind == "losses" and d.options["count"] == 2
    rec = play(
        e5_setup(),
        E5_ATTACK,
        "soviet: retreat s-cav1",
        "soviet: retreat s-cav2",
        "soviet: losses s-cav1 s-cav2",
        dice=(3, 4),
    )
    assert cels_lost(rec, "5.3.7") == ["s-cav1", "s-cav2"]
    assert rec.state.combat is None and not rec.state.pending  # 0505 not emptied: no pursuit
    assert disorganization_tests(rec) == 0


def test_e5_5_3_7_option_lose_1_cel_and_retreat_1_hex() -> None:
    rec = play(
        e5_setup(),
        E5_ATTACK,
        "soviet: retreat s-cav1 0404",
        "soviet: retreat s-cav2 0404",
        "soviet: losses s-cav2",
        "german: pass",
        dice=(3, 4),
    )
    assert cels_lost(rec, "5.3.7") == ["s-cav2"]
    assert {rec.state.units[u].hex for u in ("s-cav1", "s-cav2")} == {"0404"}
    assert disorganization_tests(rec) == 0  # 5.3.9: the first hex needs no test


def test_e5_5_3_9_option_retreat_2_hexes_with_a_test() -> None:
    """One test for the 2-hex retreat (5.3.9). The engine rolls it for each retreating
    unit, so the two brigades make one test each (see the open point in the report)."""
    rec = play(
        e5_setup(),
        E5_ATTACK,
        "soviet: retreat s-cav1 0404 0304",
        "soviet: retreat s-cav2 0404 0304",
        "german: pass",
        dice=(3, 4, 1, 1, 1, 1),
    )
    assert cels_lost(rec) == []
    assert disorganization_tests(rec) == 2
    assert not rec.state.units["s-cav1"].disorganized


def test_e5_15_1_7_the_german_loss_comes_from_the_star_user() -> None:
    rec = play(e5_setup(), E5_ATTACK, dice=(4, 6))
    assert resolved(rec)["result"] == "-1 / D1 -1"
    # 15.1.7 leaves the German side one legal answer: taken at once (DESIGN §4, #16)
    auto = [e.data for e in rec.events if e.kind == "decision_automatic"]
    assert [(a["side"], a["answer"]) for a in auto] == [("german", "losses g-a")]
    assert rec.state.units["g-a"].cel == 1
    (d,) = rec.state.pending  # the Soviets now choose their own CEL (5.1.8)
    assert d.side == "soviet" and d.kind == "losses" and d.options["count"] == 1


# --- E11: 5.3.4 -----------------------------------------------------------------------------


def e11_setup() -> Setup:
    """g-a attacks s-a (4 CELs) at 3:1; g-b at 0403 puts 0404 and 0304 in German ZoC, where
    the Soviet units s-f and s-g stand."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 12},
        {"id": "g-b", "hex": "0403", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 4, "cel": 4, "max_cel": 4},
        {"id": "s-f", "hex": "0404", "sp": 4},
        {"id": "s-g", "hex": "0304", "sp": 4},
    ]
    return scenario(units, start=GERMAN_COMBAT)


def test_e11_5_3_4_retreat_through_friendly_unit_in_enemy_zoc_costs_a_cel() -> None:
    assert {"0404", "0304"} <= set(GRID.neighbours("0403"))
    rec = play(e11_setup(), "attack g-a -> 0505", dice=(3, 4))
    assert resolved(rec)["result"] == "- / D2"  # 3:1, roll 7
    offered = paths(rec, "s-a")
    assert ["0404", "0304"] in offered and ["0404", "0305"] in offered and ["0404"] in offered
    assert ["0504"] not in offered  # in g-a's ZoC and empty (5.3.3)
    assert reject(rec, "soviet: retreat s-a 0504").rule == "5.3.3"
    # through 0404 and into 0304: both in enemy ZoC and held by friends: 2 CELs
    rec = play(
        e11_setup(),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0304",
        "german: pass",
        dice=(3, 4, 1, 1),
    )
    assert rec.state.units["s-a"].hex == "0304" and rec.state.units["s-a"].cel == 2
    assert cels_lost(rec, "5.3.4") == ["s-a", "s-a"]
    # through 0404 only: 1 CEL
    rec = play(
        e11_setup(),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0305",
        "german: pass",
        dice=(3, 4, 1, 1),
    )
    assert rec.state.units["s-a"].cel == 3 and cels_lost(rec) == ["s-a"]
    # around the ZoC: nothing
    rec = play(
        e11_setup(),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0405 0305",
        "german: pass",
        dice=(3, 4, 1, 1),
    )
    assert rec.state.units["s-a"].cel == 4 and cels_lost(rec) == []


# --- E12 / E14: 5.3.7, 5.3.9 ----------------------------------------------------------------


def d3_setup() -> Setup:
    """4:1 (16 vs 4), roll 5: `- / D3`, against one unit of 4 CELs."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 4, "cel": 4, "max_cel": 4},
    ]
    return scenario(units, start=GERMAN_COMBAT)


@pytest.mark.parametrize(
    ("retreat", "cels_left", "tests"),
    [
        ("0404 0304 0204", 4, 2),  # withdraw 3 hexes
        ("0404 0304", 3, 1),  # withdraw 2, lose 1 CEL
        ("0404", 2, 0),  # withdraw 1, lose 2 CELs (E14 c: no test)
    ],
)
def test_e12_5_3_7_d3_options(retreat: str, cels_left: int, tests: int) -> None:
    rec = play(
        d3_setup(),
        "attack g-a -> 0505",
        f"soviet: retreat s-a {retreat}",
        "german: pass",
        dice=(2, 3, 1, 1, 1, 1),
    )
    assert resolved(rec)["result"] == "- / D3"
    s = rec.state.units["s-a"]
    assert s.hex == retreat.split()[-1] and s.cel == cels_left
    assert len(cels_lost(rec, "5.3.7")) == 4 - cels_left
    assert disorganization_tests(rec) == tests  # 5.3.9
    assert rec.state.combat is None


def test_e12_5_3_7_d3_hold_costs_3_cels() -> None:
    rec = play(d3_setup(), "attack g-a -> 0505", "soviet: retreat s-a", dice=(2, 3))
    s = rec.state.units["s-a"]
    assert s.hex == "0505" and s.cel == 1
    assert cels_lost(rec, "5.3.7") == ["s-a"] * 3
    assert [e.data["reason"] for e in rec.events if e.kind == "retreat_held"] == [
        "sustained retreat"
    ]
    assert disorganization_tests(rec) == 0
    assert rec.state.combat is None and not rec.state.pending  # not emptied: no pursuit


def test_e14_a_5_3_9_a2_retreated_2_hexes_makes_1_test() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 2},
        {"id": "s-a", "hex": "0505", "sp": 8},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT),
        "attack g-a -> 0505",
        "german: retreat g-a 0704 0804",
        "soviet: pass",
        dice=(3, 4, 1, 1),
    )
    c = resolved(rec)
    assert c["column"] == "1:4" and c["result"] == "A2 -1 / -"  # R4: 8/2 -> 1:4, roll 7
    assert rec.state.units["g-a"].hex == "0804" and rec.state.units["g-a"].cel == 1
    assert disorganization_tests(rec) == 1


def test_e14_b_5_3_9_d4_retreated_3_hexes_makes_2_tests_and_loses_a_cel() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 2, "cel": 4, "max_cel": 4},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0304 0204",
        "german: pass",
        dice=(2, 3, 1, 1, 1, 1),
    )
    c = resolved(rec)
    assert c["column"] == "8:1" and c["result"] == "- / D4"
    assert cels_lost(rec, "5.3.7") == ["s-a"]  # 1 CEL of sustained retreat (5.3.7)
    assert disorganization_tests(rec) == 2


def test_e14_c_5_3_9_d3_retreated_1_hex_makes_no_test() -> None:
    rec = play(
        d3_setup(),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404",
        "german: pass",
        dice=(2, 3),
    )
    assert resolved(rec)["result"] == "- / D3"
    assert [e.kind for e in rec.events].count("dice_rolled") == 1  # the combat roll only


def test_e14_5_3_9_a_failed_test_ends_the_testing() -> None:
    """5.3.9 with 5.6.2: a unit already disorganized by its first test has nothing left
    to test (the second roll is not made)."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 2, "cel": 4, "max_cel": 4},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT),
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0304 0204",
        "german: pass",
        dice=(2, 3, 5, 5),
    )
    assert rec.state.units["s-a"].disorganized  # 10 >= 10 (Soviet "others")
    assert disorganization_tests(rec) == 1


# --- E13: 5.3.8, R19 ------------------------------------------------------------------------


def e13_setup() -> Setup:
    """Three German armoured battalions from three hexes attack a Soviet guard division
    at 1:1 (12 vs 12); roll 10 gives `A1 / -`."""
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 4},
        {"id": "g-b", "hex": "0605", "type": "arm", "sp": 4},
        {"id": "g-c", "hex": "0506", "type": "arm", "sp": 4},
        {"id": "s-gd", "hex": "0505", "sp": 12, "nation": "guards"},
    ]
    return scenario(units, start=GERMAN_COMBAT)


E13_ATTACK = "attack g-a g-b g-c -> 0505"


def test_e13_5_3_8_all_attackers_withdraw_and_lose_nothing() -> None:
    rec = play(e13_setup(), E13_ATTACK, dice=(4, 6))
    assert resolved(rec)["result"] == "A1 / -"
    (d,) = rec.state.pending
    assert d.side == "german" and d.kind == "retreat" and d.options["hexes"] == 1
    rec = play(
        e13_setup(),
        E13_ATTACK,
        "german: retreat g-a 0704",
        "german: retreat g-b 0706",
        "german: retreat g-c 0507",
        dice=(4, 6),
    )
    (p,) = rec.state.pending  # the defender may pursue (5.4.1 note) into any emptied hex
    assert p.side == "soviet" and p.kind == "pursuit"
    assert sorted(p.options["first"]) == ["0506", "0604", "0605"]
    rec = play(
        e13_setup(),
        E13_ATTACK,
        "german: retreat g-a 0704",
        "german: retreat g-b 0706",
        "german: retreat g-c 0507",
        "soviet: pass",
        dice=(4, 6),
    )
    assert cels_lost(rec) == [] and rec.state.combat is None


def test_e13_5_3_8_all_stay_lose_1_cel_from_any_of_the_three() -> None:
    lines = [E13_ATTACK, "german: retreat g-a", "german: retreat g-b", "german: retreat g-c"]
    rec = play(e13_setup(), *lines, dice=(4, 6))
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.options["count"] == 1
    assert sorted(d.options["units"]) == ["g-a", "g-b", "g-c"]
    rec = play(e13_setup(), *lines, "german: losses g-c", dice=(4, 6))
    assert cels_lost(rec) == ["g-c"]  # once per result, not per hex (5.3.8)
    assert rec.state.combat is None and not rec.state.pending


def test_e13_5_3_8_r19_some_stay_the_loss_comes_from_a_unit_that_stayed() -> None:
    lines = [E13_ATTACK, "german: retreat g-a", "german: retreat g-b", "german: retreat g-c 0507"]
    rec = play(e13_setup(), *lines, dice=(4, 6))
    (d,) = rec.state.pending
    assert d.kind == "losses" and sorted(d.options["units"]) == ["g-a", "g-b"]
    r = reject(rec, "german: losses g-c")
    assert "choose among g-a, g-b" in r.message
    rec = play(e13_setup(), *lines, "german: losses g-b", "soviet: pass", dice=(4, 6))
    assert cels_lost(rec) == ["g-b"]
    # only one stayed: the CEL is taken from it without asking
    lines = [
        E13_ATTACK,
        "german: retreat g-a",
        "german: retreat g-b 0706",
        "german: retreat g-c 0507",
    ]
    rec = play(e13_setup(), *lines, dice=(4, 6))
    assert cels_lost(rec, "5.3.7") == ["g-a"]
    (p,) = rec.state.pending
    assert p.kind == "pursuit" and sorted(p.options["first"]) == ["0506", "0605"]


# --- E15: 5.4 -------------------------------------------------------------------------------


def d4_setup(**extra: Any) -> Setup:
    """8:1 (16 vs 2), roll 5: `- / D4`."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 2, "cel": 4, "max_cel": 4},
    ]
    return scenario(units, start=GERMAN_COMBAT, **extra)


D4_RETREAT = ["attack g-a -> 0505", "soviet: retreat s-a 0404 0304 0204"]
D4_DICE = (2, 3, 1, 1, 1, 1)


def test_e15_5_4_6_pursuit_up_to_the_retreat_length_from_the_emptied_hex() -> None:
    rec = play(d4_setup(), *D4_RETREAT, dice=D4_DICE)
    (p,) = rec.state.pending
    assert p.kind == "pursuit" and p.options["units"] == ["g-a"] and p.options["first"] == ["0505"]
    assert reject(rec, "german: pursue g-a 0404 0304").rule == "5.4.4"  # 5.4.4
    r = reject(rec, "german: pursue g-a 0505 0404 0304 0203")  # 4 hexes after a 3-hex retreat
    assert r.rule == "5.4.6" and "3 hexes" in r.message
    rec = play(d4_setup(), *D4_RETREAT, "german: pursue g-a 0505 0404 0304", dice=D4_DICE)
    assert rec.state.units["g-a"].hex == "0304"
    assert [e.data["path"] for e in rec.events if e.kind == "pursued"] == [
        ["0604", "0505", "0404", "0304"]
    ]
    assert rec.state.combat is None


def test_e15_5_4_2_pursuit_may_leave_the_path_by_one_hex() -> None:
    rec = play(d4_setup(), *D4_RETREAT, "german: pursue g-a 0505 0404 0305", dice=D4_DICE)
    assert rec.state.units["g-a"].hex == "0305"
    rec = play(d4_setup(), *D4_RETREAT, "german: pursue g-a 0505 0405", dice=D4_DICE)
    assert rec.state.units["g-a"].hex == "0405"
    rec = play(d4_setup(), *D4_RETREAT, dice=D4_DICE)
    assert reject(rec, "german: pursue g-a 0505 0405 0305").rule == "5.4.2"


def test_e15_5_4_3_several_retreat_paths_any_one_of_them() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 1},
        {"id": "s-b", "hex": "0505", "sp": 1},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    lines = [
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0304 0204",
        "soviet: retreat s-b 0405 0305 0205",
        "soviet: losses s-a",  # R19: one CEL of sustained retreat for the stack
    ]
    dice = (2, 3, 1, 1, 1, 1, 1, 1, 1, 1)
    rec = play(setup, *lines, "german: pursue g-a 0505 0405 0305", dice=dice)
    assert rec.state.units["g-a"].hex == "0305"
    rec = play(setup, *lines, "german: pursue g-a 0505 0404 0304", dice=dice)
    assert rec.state.units["g-a"].hex == "0304"


def test_e15_5_4_8_pursuit_stops_after_crossing_a_big_river_by_bridge() -> None:
    big = [{"hexes": ["0505", "0404"], "feature": "big-river"}]
    setup = d4_setup(hexsides=big, bridges=[["0505", "0404"]])
    rec = play(setup, "attack g-a -> 0505", dice=D4_DICE)
    assert ["0404", "0304", "0204"] in paths(rec, "s-a")  # 5.3.5: across by the bridge
    rec = play(setup, *D4_RETREAT, dice=D4_DICE)
    assert reject(rec, "german: pursue g-a 0505 0404 0304").rule == "5.4.8"
    rec = play(setup, *D4_RETREAT, "german: pursue g-a 0505 0404", dice=D4_DICE)
    assert rec.state.units["g-a"].hex == "0404"


def test_e15_5_4_9_towed_units_are_not_offered_as_pursuers() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 14},
        {"id": "s-inf", "hex": "0505", "sp": 12},
        {"id": "s-at", "hex": "0505", "type": "at", "sp": 2},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    lines = ["attack g-a -> 0505", "german: retreat g-a 0704"]
    rec = play(setup, *lines, dice=(4, 6))
    assert resolved(rec)["result"] == "A1 / -"  # 1:1, roll 10
    (p,) = rec.state.pending
    assert p.side == "soviet" and p.options["units"] == ["s-inf"]
    assert reject(rec, "soviet: pursue s-at 0604").rule == "5.4.1"
    rec = play(setup, *lines, "soviet: pursue s-inf 0604", dice=(4, 6))
    assert rec.state.units["s-inf"].hex == "0604" and rec.state.units["s-at"].hex == "0505"


# --- E16: 5.6.5, R22 ------------------------------------------------------------------------


def e16_setup() -> Setup:
    """3:1 (12 vs 4), roll 2: `-1 / D3D`: s-a retreats to 0204 disorganized, in the German
    Combat Phase (phase 10) of turn 1. g-b stands far away at 0102."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 12},
        {"id": "g-b", "hex": "0102", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 4},
    ]
    return scenario(units, start=GERMAN_COMBAT, turns=3)


E16_LINES = ["attack g-a -> 0505", "soviet: retreat s-a 0404 0304 0204", "german: pass"]


def recovered(rec: GameRecord) -> list[str]:
    return [e.data["unit"] for e in rec.events if e.kind == "recovered"]


def test_e16_5_6_5_r22_recovery_one_full_turn_later() -> None:
    rec = play(e16_setup(), *E16_LINES, dice=(1, 1))
    s = rec.state.units["s-a"]
    assert s.disorganized and s.disorganized_at == (1, 9)
    # its own Combat Phase of turn 2 (skipped: nothing to attack) is not enough (A-46, R22)
    rec = play(e16_setup(), *E16_LINES, "german: done", "soviet: done", dice=(1, 1))
    assert (rec.state.turn, rec.state.phase) == (2, 8) and rec.state.units["s-a"].disorganized
    # ... it recovers as the German Combat Phase of turn 2 ends
    rec = play(e16_setup(), *E16_LINES, "german: done", "soviet: done", "german: done", dice=(1, 1))
    assert recovered(rec) == ["s-a"] and not rec.state.units["s-a"].disorganized
    (ev,) = [e for e in rec.events if e.kind == "recovered"]
    assert ev.data["rule"] == "5.6.5" and ev.data["ruling"] == "R22"


def test_e16_5_6_5_r22_no_recovery_after_moving() -> None:
    rec = play(
        e16_setup(),
        *E16_LINES,
        "german: done",
        "soviet: move s-a 0203",
        "soviet: done",
        "german: done",
        dice=(1, 1),
    )
    assert recovered(rec) == [] and rec.state.units["s-a"].disorganized


def test_e16_k36_after_moving_the_full_turn_of_rest_starts_again() -> None:
    rec = play(
        e16_setup(),
        *E16_LINES,
        "german: done",
        "soviet: move s-a 0203",  # turn 2, Soviet Movement Phase (index 2)
        "soviet: done",
        "german: done",
        "soviet: done",  # turn 3: its Movement Phase ends idle -> recovered
        dice=(1, 1),
    )
    assert recovered(rec) == ["s-a"] and not rec.state.units["s-a"].disorganized


def test_e16_5_6_5_r22_no_recovery_after_being_attacked() -> None:
    rec = play(
        e16_setup(),
        *E16_LINES,
        "german: done",
        "soviet: done",
        "german: move g-b 0104",  # next to s-a at 0204
        "german: done",
        "german: attack g-b -> 0204",
        dice=(1, 1, 5, 6),
    )
    c = resolved(rec)
    assert c["defenders"][0]["sp"] == 2  # disorganized: 4 halved (5.6.4)
    assert c["result"] == "-1 / -1"  # 4 vs 2 = 2:1, roll 11
    rec = play(
        e16_setup(),
        *E16_LINES,
        "german: done",
        "soviet: done",
        "german: move g-b 0104",
        "german: done",
        "german: attack g-b -> 0204",
        "german: done",
        dice=(1, 1, 5, 6),
    )
    assert rec.state.turn == 3
    assert recovered(rec) == [] and rec.state.units["s-a"].disorganized


# --- E18: 5.1.5 -----------------------------------------------------------------------------


def test_e18_a_5_1_5_the_armour_must_attack_someone_and_the_infantry_be_attacked() -> None:
    """s-arm (standing for the US armour) is in the ZoC of g-inf and g-b. It must attack,
    not necessarily g-inf; g-inf must be attacked, not necessarily by s-arm."""
    units = [
        {"id": "s-arm", "hex": "0504", "type": "arm", "sp": 8},
        {"id": "s-inf", "hex": "0506", "sp": 4},
        {"id": "g-inf", "hex": "0505", "sp": 4},
        {"id": "g-b", "hex": "0503", "sp": 4},
    ]
    assert GRID.adjacent("0504", "0505") and GRID.adjacent("0504", "0503")
    assert not GRID.adjacent("0506", "0503")
    setup = scenario(units, start=SOVIET_COMBAT)
    r = reject(play(setup), "done")
    assert "s-arm (0504)" in r.message and "0505" in r.message and "0503" in r.message
    rec = play(setup, "attack s-arm -> 0503", dice=(5, 6))
    assert resolved(rec)["result"] == "-1 / -1"  # 2:1, roll 11
    r = reject(rec, "done")
    assert "s-arm" not in r.message and "s-inf (0506)" in r.message and "0505" in r.message
    rec = play(setup, "attack s-arm -> 0503", "attack s-inf -> 0505", "done", dice=(5, 6, 4, 4))
    assert resolved(rec)["result"] == "-1 / -1"  # 1:1, roll 8
    assert rec.state.phase != 3  # the Soviet Combat Phase is over


def test_e18_b_5_1_5_mechanized_next_to_cavalry_in_a_swamp() -> None:
    """No ZoC of the Soviet mechanized brigade reaches the swamp (4.1.4, R10): the Romanian
    cavalry need not attack; the Soviets are in its ZoC, must attack, and it must be
    attacked."""
    units = [
        {"id": "s-mech", "hex": "0604", "type": "mech", "sp": 8},
        {"id": "g-cav", "hex": "0505", "type": "cav", "sp": 4, "nation": "romanian"},
    ]
    swamp = {"0505": "swamp"}
    rec = play(scenario(units, terrain=swamp, start=GERMAN_COMBAT), "german: done")
    assert (rec.state.turn, rec.state.phase) == (2, 2)  # the Romanians need not attack
    setup = scenario(units, terrain=swamp, start=SOVIET_COMBAT)
    r = reject(play(setup), "done")
    assert "s-mech (0604)" in r.message and "0505" in r.message
    rec = play(setup, "attack s-mech -> 0505", dice=(3, 4))
    c = resolved(rec)
    assert c["column"] == "2:1" and c["result"] == "- / D1"  # a swamp gives no CM
    # the cavalry retreats; the mechanized brigade cannot follow into the swamp (5.4.7, R10),
    # so no pursuit is offered
    rec = play(setup, "attack s-mech -> 0505", "german: retreat g-cav 0404", dice=(3, 4))
    assert rec.state.combat is None and not rec.state.pending
    assert rec.state.units["s-mech"].hex == "0604"
    rec = play(setup, "attack s-mech -> 0505", "german: retreat g-cav 0404", "done", dice=(3, 4))
    assert rec.state.phase != 3


def e18c_setup() -> Setup:
    """Unit A (g-a) has s-1, s-2 and s-3 in its ZoC; s-2 and s-3 are entrenched (FF), s-1
    is not and is also in the ZoC of unit B (g-b)."""
    units = [
        {"id": "g-a", "hex": "0505", "sp": 2},
        {"id": "g-b", "hex": "0704", "sp": 2},
        {"id": "s-1", "hex": "0604", "sp": 6},
        {"id": "s-2", "hex": "0404", "sp": 6, "ff": True},
        {"id": "s-3", "hex": "0405", "sp": 6, "ff": True},
    ]
    assert GRID.adjacent("0604", "0704") and not GRID.adjacent("0704", "0404")
    return scenario(units, start=SOVIET_COMBAT)


def test_e18_c_5_1_5_unit_1_attacks_a_and_b_together() -> None:
    setup = e18c_setup()
    r = reject(play(setup), "done")
    assert "s-1 (0604)" in r.message and "s-2" not in r.message and "s-3" not in r.message
    assert "0505" in r.message and "0704" in r.message
    # either side of a combat in one hex (5.1.5): 2 cannot join an attack on two hexes
    assert reject(play(setup), "attack s-1 s-2 -> 0505 0704").rule == "5.1.5"
    lines = ["attack s-1 -> 0505 0704", "german: losses g-a"]
    rec = play(setup, *lines, dice=(5, 6))
    c = resolved(rec)
    assert c["column"] == "2:1" and c["result"] == "-1 / -1"  # 6 vs 4 = 1.5 -> 2:1, roll 11
    assert {d["unit"] for d in c["defenders"]} == {"g-a", "g-b"}
    assert reject(rec, "attack s-2 -> 0505").rule == "5.1.1"  # A has fought
    rec = play(setup, *lines, "done", dice=(5, 6))
    assert rec.state.phase != 3


def test_e18_c_5_1_5_unit_1_attacks_b_and_the_entrenched_units_attack_a() -> None:
    setup = e18c_setup()
    rec = play(setup, "attack s-1 -> 0704", dice=(5, 6))
    assert resolved(rec)["result"] == "-1 / -1"  # 6 vs 2 = 3:1, roll 11
    r = reject(rec, "done")
    assert "0505" in r.message and "0704" not in r.message
    rec = play(setup, "attack s-1 -> 0704", "attack s-2 -> 0505", "done", dice=(5, 6, 5, 6))
    assert [d["unit"] for d in resolved(rec)["attackers"]] == ["s-2"]  # although entrenched
    assert rec.state.phase != 3


# --- E41: 13.1 ------------------------------------------------------------------------------


def test_e41_13_1_4_nine_units_of_three_divisions_give_3_cms() -> None:
    units: list[dict[str, Any]] = [
        {"id": f"g-{div}{n}", "hex": h, "sp": 1, "formation": f"{div}PzD"}
        for div in (1, 2, 3)
        for n, h in enumerate(("0604", "0605", "0506"))
    ]
    units.append({"id": "s-a", "hex": "0505", "sp": 9})
    attackers = " ".join(u["id"] for u in units[:-1])
    rec = play(scenario(units, start=GERMAN_COMBAT), f"attack {attackers} -> 0505", dice=(3, 4))
    c = resolved(rec)
    tc = [x for x in c["explanation"] if "tactical concentration" in x]
    assert len(tc) == 3 and all("+1 CM" in x and "3 units of" in x for x in tc)
    assert c["initial"] == "1:1" and c["column"] == "4:1"  # 13.1.3: hexes do not matter


def test_e41_13_1_4_six_units_of_one_division_give_2_cms() -> None:
    units: list[dict[str, Any]] = [
        {"id": f"g-{n}", "hex": h, "sp": 1, "formation": "1PzD"}
        for n, h in enumerate(("0604", "0604", "0605", "0605", "0506", "0506"))
    ]
    units.append({"id": "s-a", "hex": "0505", "sp": 6})
    attackers = " ".join(u["id"] for u in units[:-1])
    rec = play(scenario(units, start=GERMAN_COMBAT), f"attack {attackers} -> 0505", dice=(3, 4))
    c = resolved(rec)
    tc = [x for x in c["explanation"] if "tactical concentration" in x]
    assert tc == ["  attacker +2 CM: tactical concentration: 6 units of 1PzD (13.1.2)"]
    assert c["column"] == "3:1"
    # five units: still one CM (13.1.2 counts whole groups of three)
    units = [u for u in units if u["id"] != "g-5"]
    units[-1]["sp"] = 5
    attackers = " ".join(u["id"] for u in units[:-1])
    rec = play(scenario(units, start=GERMAN_COMBAT), f"attack {attackers} -> 0505", dice=(3, 4))
    assert resolved(rec)["column"] == "2:1"


@pytest.mark.parametrize(
    ("kind", "formation", "column"),
    [
        ("inf", "180RD", "1:1"),  # a Soviet rifle division: no TC (13.1.1)
        ("arm", "5GTC", "2:1"),  # a Soviet armoured corps: +1
    ],
)
def test_e41_13_1_1_soviet_tc_only_for_armoured_and_mechanized_corps(
    kind: str, formation: str, column: str
) -> None:
    units: list[dict[str, Any]] = [
        {"id": f"s-{n}", "hex": h, "type": kind, "sp": 2, "formation": formation}
        for n, h in enumerate(("0604", "0605", "0506"))
    ]
    units.append({"id": "g-a", "hex": "0505", "sp": 6})
    rec = play(scenario(units, start=SOVIET_COMBAT), "attack s-0 s-1 s-2 -> 0505", dice=(3, 4))
    assert resolved(rec)["column"] == column


# --- E42: 15.3.2 ----------------------------------------------------------------------------


@pytest.mark.parametrize(("regulars", "column"), [(0, "3:1"), (1, "2:1"), (2, "1:1")])
def test_e42_15_3_2_each_regular_unit_stacked_with_volkssturm_offsets_one_cm(
    regulars: int, column: str
) -> None:
    """Two regular units in the hex let the Volkssturm fight normally."""
    units: list[dict[str, Any]] = [
        {"id": "g-vs", "hex": "0505", "type": "vs", "nation": "volkssturm", "sp": 2},
    ]
    units += [{"id": f"g-r{n}", "hex": "0505", "sp": 1} for n in range(regulars)]
    units.append({"id": "s-a", "hex": "0604", "sp": 2 + regulars})
    rec = play(scenario(units, start=SOVIET_COMBAT), "attack s-a -> 0505", dice=(3, 4))
    c = resolved(rec)
    assert c["initial"] == "1:1" and c["column"] == column


def test_e42_15_3_2_k20_self_propelled_artillery_offsets_volkssturm() -> None:
    units: list[dict[str, Any]] = [
        {"id": "g-vs", "hex": "0505", "type": "vs", "nation": "volkssturm", "sp": 2},
        {"id": "g-sp1", "hex": "0505", "type": "sp-art", "sp": 1},
        {"id": "g-sp2", "hex": "0505", "type": "sp-art", "sp": 1},
        {"id": "s-a", "hex": "0604", "sp": 4},
    ]
    rec = play(scenario(units, start=SOVIET_COMBAT), "attack s-a -> 0505", dice=(3, 4))
    assert resolved(rec)["column"] == "1:1"


# --- star cap variant (002 15.1.4) ----------------------------------------------------------


@pytest.mark.parametrize(("cap", "column"), [(False, "6:1"), (True, "5:1")])
def test_15_1_4_star_cap_option_limits_star_cms_to_3_per_hex(cap: bool, column: str) -> None:
    units: list[dict[str, Any]] = [
        {"id": f"g-{n}", "hex": "0604", "sp": 1, "stars": ["blue"]} for n in range(4)
    ]
    units.append({"id": "g-4", "hex": "0605", "sp": 1, "stars": ["blue"]})
    units.append({"id": "s-a", "hex": "0505", "sp": 5})
    options = {"star_cap": True} if cap else {}
    setup = scenario(units, start=GERMAN_COMBAT, options=options)
    rec = play(setup, "attack g-0 g-1 g-2 g-3 g-4 -> 0505 stars g-0 g-1 g-2 g-3 g-4", dice=(3, 4))
    c = resolved(rec)
    assert c["initial"] == "1:1" and c["column"] == column  # 4 + 1 stars, or 3 + 1 capped
    capped = [x for x in c["explanation"] if "over the cap of 3 at 0604" in x]
    assert len(capped) == (1 if cap else 0)


# --- 5.3.3, 5.3.5, 5.3.6: where a retreat may not go ---------------------------------------


def test_5_3_3_a_retreat_cannot_leave_the_map() -> None:
    units = [
        {"id": "g-a", "hex": "0205", "sp": 12},
        {"id": "s-a", "hex": "0105", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0105", dice=(3, 4))
    assert resolved(rec)["result"] == "- / D2"
    assert all(GRID.contains(h) for p in paths(rec, "s-a") for h in p)
    r = reject(rec, "soviet: retreat s-a 0004")
    assert r.rule == "5.3.3" and "not on the map" in r.message
    # cornered: 0104 and 0106 in German ZoC, everything else off the map -> no retreat
    units = [
        {"id": "g-a", "hex": "0205", "sp": 12},
        {"id": "g-b", "hex": "0103", "sp": 4},
        {"id": "s-a", "hex": "0105", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0105", dice=(3, 4))
    held = [e.data for e in rec.events if e.kind == "retreat_held"]
    assert held == [{"unit": "s-a", "hexes": 2, "reason": "no legal retreat", "rule": "5.3.3"}]
    assert rec.state.units["s-a"].eliminated  # 2 CELs of sustained retreat (5.3.7)


def test_5_3_3_no_retreat_into_terrain_impassable_to_the_unit() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 12},
        {"id": "s-mech", "hex": "0505", "type": "mech", "sp": 4},
    ]
    setup = scenario(units, terrain={"0404": "swamp"}, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0505", dice=(3, 4))
    offered = paths(rec, "s-mech")
    assert not any("0404" in p for p in offered) and ["0405"] in offered
    r = reject(rec, "soviet: retreat s-mech 0404")
    assert r.rule == "5.3.3" and "swamp" in r.message


def test_5_3_5_no_retreat_across_a_big_river_without_a_bridge() -> None:
    big = [{"hexes": ["0505", "0405"], "feature": "big-river"}]
    setup = scenario(
        [{"id": "g-a", "hex": "0604", "sp": 12}, {"id": "s-a", "hex": "0505", "sp": 4}],
        hexsides=big,
        start=GERMAN_COMBAT,
    )
    rec = play(setup, "attack g-a -> 0505", dice=(3, 4))
    offered = paths(rec, "s-a")
    assert not any(p[0] == "0405" for p in offered) and ["0404"] in offered
    r = reject(rec, "soviet: retreat s-a 0405 0305")
    assert r.rule == "5.3.5" and "bridge" in r.message


def test_5_3_6_a_retreat_may_pass_but_not_end_in_a_full_hex() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 12},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-f", "hex": "0404", "sp": 4, "cel": 4, "max_cel": 4},
        {"id": "s-g", "hex": "0404", "sp": 4, "cel": 3, "max_cel": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0505", dice=(3, 4))
    offered = paths(rec, "s-a")
    assert ["0404"] not in offered and ["0404", "0304"] in offered  # 7 + 2 > 8
    r = reject(rec, "soviet: retreat s-a 0404")
    assert r.rule == "5.3.6" and "8" in r.message
    rec = play(
        setup, "attack g-a -> 0505", "soviet: retreat s-a 0404 0304", "german: pass", dice=(3, 4)
    )
    assert rec.state.units["s-a"].hex == "0304" and cels_lost(rec) == []


def test_e41_13_1_1_soviet_armoured_corps_counts_its_artillery() -> None:
    """K55: three units of a Soviet tank corps, one of them its towed artillery
    supporting from range, give +1; a rifle division's do not."""
    units: list[dict[str, Any]] = [
        {"id": "s-t1", "hex": "0604", "type": "arm", "sp": 4, "formation": "18TC"},
        {"id": "s-t2", "hex": "0605", "type": "arm", "sp": 4, "formation": "18TC"},
        {"id": "s-art", "hex": "0804", "type": "art", "sp": [4, 2], "formation": "18TC"},
        {"id": "g-a", "hex": "0505", "sp": 8},
    ]
    setup = scenario(units, start=SOVIET_COMBAT)
    rec = play(setup, "attack s-t1 s-t2 -> 0505 support s-art", dice=(6, 6))
    assert any("tactical concentration: 3 units of 18TC" in x for x in resolved(rec)["explanation"])
