"""5.0 Combat: declaration (5.1), procedure and explanation (5.2, E5), retreat (5.3),
pursuit (5.4), terrain (5.5), disorganization (5.6), with R1-R6, R19, R24, K15-K18."""

from __future__ import annotations

from typing import Any

from conftest import play, reject, scenario

from engine.record import GameRecord
from engine.wb95.flow import awaited_sides

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}
SOVIET_COMBAT = {"turn": 1, "phase": "combat", "active": "soviet"}


def e5_setup(**extra: Any):  # type: ignore[no-untyped-def]
    """E5: a German armoured division (17 SPs, three units) attacks two Soviet cavalry
    brigades (8 SPs) in woods."""
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 6, "formation": "11PzD"},
        {"id": "g-b", "hex": "0605", "type": "arm", "sp": 6, "formation": "11PzD"},
        {"id": "g-c", "hex": "0506", "type": "arm", "sp": 5, "formation": "11PzD"},
        {"id": "s-cav1", "hex": "0505", "type": "cav", "sp": 4},
        {"id": "s-cav2", "hex": "0505", "type": "cav", "sp": 4},
    ]
    return scenario(units, terrain={"0505": "forest"}, start=GERMAN_COMBAT, **extra)


def resolved(rec: GameRecord) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == "combat_resolved").data


def test_5_2_1_e5_combat_is_explained_step_by_step() -> None:
    rec = play(e5_setup(), "attack g-a g-b g-c -> 0505", dice=(3, 4))
    c = resolved(rec)
    assert (c["attack_sp"], c["defence_sp"]) == (17, 8)
    assert c["initial"] == "2:1" and c["column"] == "2:1"  # +1 TC, -1 woods (E5 without the star)
    text = "\n".join(c["explanation"])
    assert "tactical concentration: 3 units of 11PzD" in text and "forest at 0505" in text
    assert c["dice"] == [3, 4] and c["roll"] == 7 and c["result"] == "- / D1"
    assert [d["unit"] for d in c["defenders"]] == ["s-cav1", "s-cav2"]
    # issue #17: the figures say where they come from, the result what it does
    assert c["explanation"][0] == (
        "initial 2:1: 17 attack SP against 8 defence SP, rounded to the nearest column "
        "(1.5, 1.7, R4)"
    )
    assert "result - / D1 -- attacker: no effect; defender: retreats 1 hex (5.2.1 f)" in text


def test_5_3_retreat_is_a_decision_of_the_owner_and_pursuit_follows() -> None:
    rec = play(e5_setup(), "attack g-a g-b g-c -> 0505", dice=(3, 4))
    assert awaited_sides(rec.state) == ["soviet"]
    (d,) = rec.state.pending
    assert d.kind == "retreat" and d.options["paths"]["s-cav1"] == [["0404"]]
    assert "waiting for soviet to answer a retreat decision" in reject(rec, "german: done").message
    r = reject(rec, "soviet: retreat s-cav1 0504")  # into German ZoC (5.3.3)
    assert r.rule == "5.3.3"
    rec2 = play(
        e5_setup(),
        "attack g-a g-b g-c -> 0505",
        "soviet: retreat s-cav1 0404",
        "soviet: retreat s-cav2 0404",
        dice=(3, 4),
    )
    (p,) = rec2.state.pending
    assert p.kind == "pursuit" and p.side == "german" and p.options["first"] == ["0505"]
    assert "at most as long as the retreat" in reject(rec2, "german: pursue g-a 0505 0405").message
    rec3 = play(
        e5_setup(),
        "attack g-a g-b g-c -> 0505",
        "soviet: retreat s-cav1 0404",
        "soviet: retreat s-cav2 0404",
        "german: pursue g-a 0505",
        "german: pass",
        dice=(3, 4),
    )
    assert rec3.state.units["g-a"].hex == "0505"
    assert rec3.state.combat is None and not rec3.state.pending
    assert rec3.rebuild().snapshot() == rec3.state.snapshot()


def test_5_3_7_r19_holding_costs_a_cel_per_hex_not_retreated() -> None:
    rec = play(
        e5_setup(),
        "attack g-a g-b g-c -> 0505",
        "soviet: retreat s-cav1 0404",
        "soviet: retreat s-cav2",
        dice=(3, 4),
    )
    # s-cav2 stayed: shortfall 1 CEL, taken from it automatically (the only short unit)
    assert rec.state.units["s-cav2"].cel == 1
    lost = [e for e in rec.events if e.kind == "cel_lost"]
    assert [e.data["unit"] for e in lost] == ["s-cav2"] and lost[0].data["rule"] == "5.3.7"
    assert not rec.state.pending  # 0505 not emptied: no pursuit (5.4.4)


def test_5_1_8_r1_losses_are_cels_allocated_by_the_owner() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-b", "hex": "0605", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-b", "hex": "0505", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a g-b -> 0505", dice=(3, 4))  # 1:1, roll 7: -1 / -1
    assert resolved(rec)["result"] == "-1 / -1"
    kinds = [(d.side, d.kind) for d in rec.state.pending]
    assert kinds == [("german", "losses")]
    assert "1 CEL(s) must be lost" in reject(rec, "german: losses g-a g-b").message
    rec = play(
        setup, "attack g-a g-b -> 0505", "german: losses g-b", "soviet: losses s-a", dice=(3, 4)
    )
    assert rec.state.units["g-b"].cel == 1 and rec.state.units["s-a"].cel == 1
    assert rec.state.combat is None


def test_5_1_9_a_lone_hq_is_attacked_on_the_rightmost_column_and_falls() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 2},
        {"id": "s-hq", "hex": "0505", "type": "hq", "sp": 0},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", "german: pass", dice=(6, 6)
    )
    c = resolved(rec)
    assert c["column"] == "10:1" and c["result"] == "D -1 / D2"
    assert rec.state.units["s-hq"].eliminated  # cannot retreat: sustained retreat (5.1.9)


def test_5_4_10_advance_after_elimination() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "s-a", "hex": "0505", "sp": 1, "cel": 1},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0505", dice=(1, 1))  # 8:1 roll 2: -1 / D4D
    (d,) = rec.state.pending  # s-a could retreat...
    rec = play(setup, "attack g-a -> 0505", "soviet: retreat s-a", dice=(1, 1))
    assert rec.state.units["s-a"].eliminated  # held: 4 CELs owed, it had 1
    (d,) = rec.state.pending
    assert d.kind == "pursuit" and d.options["mode"] == "advance"
    assert reject(rec, "german: pursue g-a 0505 0405 0305").rule == "5.4.10"
    rec = play(
        setup,
        "attack g-a -> 0505",
        "soviet: retreat s-a",
        "german: pursue g-a 0505 0405",
        dice=(1, 1),
    )
    assert rec.state.units["g-a"].hex == "0405"


def test_5_1_declaration_errors() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-far", "hex": "0801", "sp": 4},
        {"id": "g-art", "hex": "0605", "type": "art", "sp": [6, 2]},
        {"id": "g-at", "hex": "0506", "type": "at", "sp": 3},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-b", "hex": "0503", "sp": 4},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT))
    assert reject(rec, "attack g-far -> 0505").rule == "5.1.2"
    assert reject(rec, "attack g-at -> 0505").rule == "5.1.10"
    assert reject(rec, "attack g-a -> 0606").rule == "5.1.2"  # no enemy there
    assert reject(rec, "attack g-a g-at -> 0505 0503").rule in ("5.1.5", "5.1.10")
    assert reject(rec, "attack g-a -> 0505 support g-far").rule == "6.1.1"  # not artillery
    assert reject(rec, "soviet: attack s-a -> 0604").rule == "2.1.2"


def test_5_1_1_each_unit_fights_once_per_phase() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-b", "hex": "0605", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-b", "hex": "0705", "sp": 4},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(4, 4))
    assert resolved(rec)["result"] == "-1 / -1"
    # one unit on each side: the losses are taken automatically (single legal answer)
    assert rec.state.units["g-a"].cel == 1 and rec.state.units["s-a"].cel == 1
    assert reject(rec, "attack g-a -> 0705").rule == "5.1.1"
    assert reject(rec, "attack g-b -> 0505").rule == "5.1.1"


def test_5_1_3_5_1_4_the_phase_cannot_end_before_mandatory_attacks() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-ff", "hex": "0807", "sp": 4, "ff": True},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-b", "hex": "0806", "sp": 4},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT))
    r = reject(rec, "done")
    assert "g-a (0604)" in r.message and "g-ff" not in r.message  # 7.1.11
    assert "0505" in r.message and "0806" not in r.message  # K17
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(6, 5))
    assert resolved(rec)["result"] == "A1 -1 / -"


def test_r24_no_attack_across_the_dnieper() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 4}, {"id": "s-a", "hex": "0505", "sp": 4}]
    setup = scenario(
        units, start=GERMAN_COMBAT, hexsides=[{"hexes": ["0604", "0505"], "feature": "big-river"}]
    )
    assert reject(play(setup), "attack g-a -> 0505").ruling == "R24"


def test_5_5_4_a_river_counts_when_more_than_half_the_sps_cross_it() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 6},
        {"id": "g-b", "hex": "0605", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 5},
    ]
    river = [{"hexes": ["0604", "0505"], "feature": "river"}]
    rec = play(
        scenario(units, start=GERMAN_COMBAT, hexsides=river), "attack g-a g-b -> 0505", dice=(6, 6)
    )
    c = resolved(rec)
    assert c["initial"] == "2:1" and c["column"] == "1:2"  # 6 of 10 SPs across: +2 CMs
    river = [{"hexes": ["0605", "0505"], "feature": "river"}]
    rec = play(
        scenario(units, start=GERMAN_COMBAT, hexsides=river), "attack g-a g-b -> 0505", dice=(6, 6)
    )
    assert resolved(rec)["column"] == "2:1"  # 4 of 10: no effect


def test_7_1_10_field_fortifications_and_7_2_improved() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT, terrain={"0505": "city"}),
        "attack g-a -> 0505",
        dice=(6, 6),
    )
    assert resolved(rec)["column"] == "1:3"  # 2:1, city -1, FF in a city -2 (Korsun, R15)
    units[1]["fortification"] = "if"
    units[1].pop("ff")
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(6, 6))
    assert resolved(rec)["column"] == "1:2"


def test_9_2_hq_modifies_the_roll_and_r6_clamps_it() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-hq", "hex": "0804", "type": "hq", "sp": 0},
        {"id": "s-a", "hex": "0505", "sp": 4},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(1, 1))
    c = resolved(rec)
    assert c["modifier"] == -1 and c["roll"] == 2  # 1+1-1 = 1 reads row 2 (R6)
    assert any("R6" in line for line in c["explanation"])


def test_5_6_2_disorganization_tests_use_the_morale_table() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 4}, {"id": "s-a", "hex": "0505", "sp": 4}]
    setup = scenario(units, start=GERMAN_COMBAT)
    # 1:1, roll 4: "• / D1": the attacker tests (Wehrmacht limit 11)
    rec = play(
        setup, "attack g-a -> 0505", "soviet: retreat s-a 0404", "german: pass", dice=(1, 3, 6, 5)
    )
    assert rec.state.units["g-a"].disorganized
    ev = [e for e in rec.events if e.kind == "disorganized"]
    assert ev[0].data["rule"] == "5.6.2"
    rec = play(
        setup, "attack g-a -> 0505", "soviet: retreat s-a 0404", "german: pass", dice=(1, 3, 5, 5)
    )
    assert not rec.state.units["g-a"].disorganized  # 10 < 11


def test_5_3_9_one_test_per_retreated_hex_after_the_first() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 12},
        {"id": "s-a", "hex": "0505", "sp": 4, "nation": "guards"},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    # 3:1, roll 7: "- / D2": retreat 2 hexes, 1 test (guards: 11)
    rec = play(
        setup,
        "attack g-a -> 0505",
        "soviet: retreat s-a 0404 0304",
        "german: pass",
        dice=(3, 4, 6, 5),
    )
    assert rec.state.units["s-a"].disorganized and rec.state.units["s-a"].hex == "0304"
    rolls = [e for e in rec.events if e.kind == "dice_rolled"]
    assert len(rolls) == 2


def test_5_6_4_disorganized_units_fight_at_half_strength_r5() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 7, "disorganized": True, "oos": 1},
        {"id": "s-a", "hex": "0505", "sp": 2},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(6, 6))
    c = resolved(rec)
    assert c["attack_sp"] == 2  # 7 -> 4 -> 2 (R5)
    assert "disorganized 4" in c["attackers"][0]["why"]


def test_5_6_5_r22_recovery_after_a_full_turn_inactive() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4, "disorganized": False},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-far", "hex": "0101", "sp": 4},
        {"id": "g-far", "hex": "1008", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT, turns=3)
    # 1:1, roll 12: "A2D -1 / -1": g-a loses a CEL, retreats and is disorganized
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    assert [(d.side, d.kind) for d in rec.state.pending] == [("german", "retreat")]
    rec = play(
        setup, "attack g-a -> 0505", "german: retreat g-a 0704 0804", "soviet: pass", dice=(6, 6)
    )
    g = rec.state.units["g-a"]
    assert g.disorganized and g.disorganized_at == (1, 9)
    # turn 2: nobody moves; g-a recovers at the end of the German Combat Phase (R22)
    rec = play(
        setup,
        "attack g-a -> 0505",
        "german: retreat g-a 0704 0804",
        "soviet: pass",
        "german: done",
        "soviet: done",
        "german: done",
        dice=(6, 6),
    )
    recovered = [e for e in rec.events if e.kind == "recovered"]
    assert [e.data["unit"] for e in recovered] == ["g-a"]
    assert not rec.state.units["g-a"].disorganized


def test_9_1_6_r17_hq_loss_cms_in_the_next_two_combat_phases() -> None:
    """E32: an HQ falls in the Soviet Combat Phase; the Soviets, its opponents, may use
    5 CMs in the German Combat Phase of that turn and their own of the next, within 8
    hexes, all in one combat or spread."""
    units = [
        {"id": "s-a", "hex": "0604", "sp": 6, "ff": True},
        {"id": "g-hq", "hex": "0505", "type": "hq", "sp": 0},
        {"id": "g-b", "hex": "0704", "sp": 8},
    ]
    setup = scenario(units, start={"turn": 1, "phase": "combat", "active": "soviet"})
    lines = ["soviet: attack s-a -> 0505", "soviet: pass", "soviet: done", "german: done"]
    rec = play(setup, *lines, dice=(6, 6))
    assert rec.state.units["g-hq"].eliminated
    assert rec.state.hq_losses[0]["gainer"] == "soviet"
    rec = play(setup, *lines, "german: attack g-b -> 0604", dice=(6, 6))
    (d,) = rec.state.pending
    assert d.kind == "defence" and d.options["cms"] == 5
    assert "only 5 HQ-loss CMs" in reject(rec, "soviet: defend cms 6").message
    rec = play(
        setup, *lines, "german: attack g-b -> 0604", "soviet: defend cms 2", dice=(6, 6, 3, 4)
    )
    c = resolved(rec)
    assert any("2 CMs for an HQ eliminated nearby" in x for x in c["explanation"])
    assert c["initial"] == "4:1" and c["column"] == "1:1"  # 8 vs 6 reduced 3, disorg. 2
    assert rec.state.hq_losses[0]["spent"] == 2


def test_5_1_5_k26_an_attack_may_not_make_another_duty_impossible() -> None:
    """5.1.5 example (c): unit 1 in the ZoC of A and B must attack both hexes at once
    when nobody else can reach B."""
    units = [
        {"id": "s-1", "hex": "0505", "sp": 6},
        {"id": "g-a", "hex": "0604", "sp": 2},
        {"id": "g-b", "hex": "0404", "sp": 2},
    ]
    setup = scenario(units, start={"turn": 1, "phase": "combat", "active": "soviet"})
    r = reject(play(setup), "attack s-1 -> 0604")
    assert r.rule == "5.1.4" and "0404" in r.message
    rec = play(setup, "attack s-1 -> 0604 0404", dice=(3, 4))
    assert {d["unit"] for d in resolved(rec)["defenders"]} == {"g-a", "g-b"}


def test_legal_actions_list_attacks_and_whether_done_is_allowed() -> None:
    from engine.wb95.game import legal_actions

    rec = play(e5_setup())
    acts = legal_actions(rec.state, "german")
    assert {"units": ["g-a", "g-b", "g-c"], "hexes": ["0505"]} in acts["attacks"]
    assert acts["done"] is False  # the attack is mandatory (5.1.3)
    assert legal_actions(rec.state, "soviet")["done"] is False  # not its phase


def test_5_4_k95_a_pursuit_or_advance_may_not_over_stack_the_hex() -> None:
    """K95: 3.2.1 holds when the Combat Phase ends and nothing moves after a pursuit, so
    the pursuer that would bring the emptied hex over 8 CELs is refused; it may pass."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8, "cel": 4},
        {"id": "g-b", "hex": "0605", "sp": 4, "cel": 4},
        {"id": "g-c", "hex": "0506", "sp": 2, "cel": 2},
        {"id": "s-a", "hex": "0505", "sp": 1, "cel": 1},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    lines = ["attack g-a g-b g-c -> 0505", "german: losses g-c"]  # 10:1, roll 2: -1 / D5D -1
    lines += ["german: pursue g-a 0505", "german: pursue g-b 0505"]  # s-a eliminated: 8 CELs
    rec = play(setup, *lines, dice=(1, 1))
    assert rec.state.units["s-a"].eliminated
    r = reject(rec, "german: pursue g-c 0505")
    assert r.rule == "3.2.1" and r.ruling == "K95" and "9 CELs" in r.message
    rec = play(setup, *lines, "german: pass", dice=(1, 1))
    assert not rec.state.pending and rec.state.units["g-c"].hex == "0506"


def test_5_4_17_a_stack_advances_in_one_order_and_is_checked_unit_by_unit() -> None:
    """Issue #17: `pursue A B HEX` moves both; the decision closes when no pursuer is left.
    The units are checked in turn on the position the previous one left, so the third
    unit that would over-stack refuses the whole order (3.2.1, K95) and nothing moves."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8, "cel": 4},
        {"id": "g-b", "hex": "0605", "sp": 4, "cel": 4},
        {"id": "g-c", "hex": "0506", "sp": 2, "cel": 2},
        {"id": "s-a", "hex": "0505", "sp": 1, "cel": 1},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    lines = ["attack g-a g-b g-c -> 0505", "german: losses g-c"]
    rec = play(setup, *lines, dice=(1, 1))
    r = reject(rec, "german: pursue g-a g-b g-c 0505")
    assert r.rule == "3.2.1" and r.ruling == "K95"
    assert rec.state.units["g-a"].hex == "0604"  # all or nothing
    rec = play(setup, *lines, "german: pursue g-a @0605 0505", dice=(1, 1))
    assert rec.state.units["g-a"].hex == rec.state.units["g-b"].hex == "0505"
    assert [d.kind for d in rec.state.pending] == ["pursuit"]  # g-c may still go
    assert rec.state.pending[0].info["left"] == ["g-c"]
    r = reject(rec, "german: pursue g-c s-a 0505")
    assert "s-a is not yours" in r.message
