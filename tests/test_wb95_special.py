"""15.0 special units in combat (K19) and 7.3 fixed positions."""

from __future__ import annotations

from typing import Any

from conftest import play, reject, scenario

from engine.record import GameRecord

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}


def resolved(rec: GameRecord) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == "combat_resolved").data


def duel(att: dict[str, Any], dfn: dict[str, Any], **extra: Any):  # type: ignore[no-untyped-def]
    a = {"id": "g-a", "hex": "0604", "sp": 4, **att}
    d = {"id": "s-a", "hex": "0505", "sp": 4, **dfn}
    return scenario([a, d], start=GERMAN_COMBAT, **extra)


def test_15_1_3_each_star_used_is_one_cm_and_use_is_optional() -> None:
    setup = duel({"stars": ["blue", "yellow"]}, {})
    rec = play(setup, "attack g-a -> 0505 stars g-a", dice=(6, 6))
    assert resolved(rec)["column"] == "3:1"  # 1:1 + 2
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    assert resolved(rec)["column"] == "1:1"  # 15.1.6: not used


def test_15_1_2_white_disables_black_and_yellow_and_the_defender_answers_first() -> None:
    setup = duel(
        {"stars": ["black", "yellow"]},
        {"stars": ["white"], "type": "at"},
    )
    # a towed AT gun may use its star in defence (15.1.5), white needs mechanized enemies
    rec = play(setup, "attack g-a -> 0505 stars g-a", dice=(6, 6))
    assert not rec.state.pending  # g-a is not mechanized: the white star has no use
    setup = duel({"stars": ["black", "yellow"], "type": "arm"}, {"stars": ["white"], "type": "at"})
    rec = play(setup, "attack g-a -> 0505 stars g-a")
    (d,) = rec.state.pending
    assert d.kind == "defence" and d.options["abilities"] == {"s-a": ["white"]}
    rec = play(setup, "attack g-a -> 0505 stars g-a", "soviet: defend stars s-a", dice=(6, 6))
    c = resolved(rec)
    assert c["column"] == "1:2"  # attacker's black and yellow disabled, defender +1
    text = "\n".join(c["explanation"])
    assert "black star of g-a disabled by the enemy's white" in text
    rec = play(setup, "attack g-a -> 0505 stars g-a", "soviet: pass", dice=(6, 6))
    assert resolved(rec)["column"] == "3:1"


def test_15_1_black_star_not_against_fortified_defenders_r20() -> None:
    setup = duel({"stars": ["black"]}, {"ff": True})
    r = reject(play(setup), "attack g-a -> 0505 stars g-a")
    assert r.rule == "15.1.2"


def test_15_1_5_towed_units_use_stars_only_in_defence() -> None:
    setup = duel({"stars": ["blue"], "type": "at"}, {})
    assert reject(play(setup), "attack g-a -> 0505").rule == "5.1.10"


def test_15_1_7_losses_must_hit_a_star_user_first() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4, "stars": ["blue"]},
        {"id": "g-b", "hex": "0605", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 8},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a g-b -> 0505 stars g-a", dice=(5, 6))
    c = resolved(rec)
    assert c["column"] == "2:1" and c["result"] == "-1 / -1"  # 8:8 + blue star, roll 11
    # 15.1.7 leaves one legal answer (`losses g-a`): taken at once (DESIGN §4, issue #16)
    auto = [e.data for e in rec.events if e.kind == "decision_automatic"]
    assert auto and auto[0]["side"] == "german" and auto[0]["answer"] == "losses g-a"
    assert [e.data["unit"] for e in rec.events if e.kind == "cel_lost"][:1] == ["g-a"]
    assert not any(d.side == "german" and d.kind == "losses" for d in rec.state.pending)


def test_5_1_8_a_loss_with_two_legal_answers_still_waits() -> None:
    """DESIGN §4 only takes a decision with exactly one legal answer."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4, "stars": ["blue"]},
        {"id": "g-c", "hex": "0604", "sp": 4, "stars": ["blue"]},
        {"id": "g-b", "hex": "0605", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 8},
    ]
    attack = "attack g-a g-c g-b -> 0505 stars g-a g-c"
    rec = play(scenario(units, start=GERMAN_COMBAT), attack, dice=(5, 6))
    (d,) = rec.state.pending  # two star users: `losses g-a` or `losses g-c`
    assert d.kind == "losses" and d.options["must_include"] == ["g-a", "g-c"]
    assert not any(e.kind == "decision_automatic" for e in rec.events)
    assert reject(rec, "german: losses g-b").rule == "15.1.7"


def test_15_2_resilience_groups_add_a_cm_and_never_retreat() -> None:
    setup = duel({"sp": 8}, {"type": "rg", "sp": 4})
    rec = play(setup, "attack g-a -> 0505", dice=(3, 4))  # 2:1 - 1 = 1:1, roll 7: -1 / -1
    c = resolved(rec)
    assert c["column"] == "1:1" and "resilience group" in "\n".join(c["explanation"])


def test_15_3_volkssturm_gives_the_enemy_two_cms_less_one_per_regular() -> None:
    setup = duel({"type": "vs", "nation": "volkssturm"}, {})
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    assert resolved(rec)["column"] == "1:3"  # the defender gains 2 against VS
    units = [
        {"id": "g-vs", "hex": "0604", "sp": 4, "type": "vs", "nation": "volkssturm", "ff": True},
        {"id": "g-inf", "hex": "0604", "sp": 4, "ff": True},  # fortified: need not attack
        {"id": "s-a", "hex": "0505", "sp": 8},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-vs -> 0505", dice=(6, 6))
    assert resolved(rec)["column"] == "1:3"  # 1:2, one regular stacked: enemy +1


def test_15_4_fortification_units_add_two_in_fortifications() -> None:
    setup = duel({"sp": 8}, {"type": "fu", "ff": True})
    rec = play(setup, "attack g-a -> 0505")
    (d,) = rec.state.pending
    assert d.options["abilities"] == {"s-a": ["fu"]}
    rec = play(setup, "attack g-a -> 0505", "soviet: defend stars s-a", dice=(6, 6))
    assert resolved(rec)["column"] == "1:3"  # 2:1, FF -1, FU -2


def test_7_3_fixed_positions_halve_the_front_and_give_three_cms() -> None:
    fp = [{"hexes": ["0604", "0505"], "feature": "fixed-position"}]
    setup = duel({"sp": 8}, {}, hexsides=fp)
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    c = resolved(rec)
    assert c["attack_sp"] == 4 and c["initial"] == "1:1" and c["column"] == "1:4"


def test_7_3_4_example_rear_attack_stronger_gives_only_ff() -> None:
    """E24: A (15 SPs) through the FP line, B (5) and C (10) from the rear."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 15},
        {"id": "g-b", "hex": "0605", "sp": 5},
        {"id": "g-c", "hex": "0506", "sp": 10},
        {"id": "s-a", "hex": "0505", "sp": 6},
    ]
    fp = [{"hexes": ["0604", "0505"], "feature": "fixed-position"}]
    rec = play(
        scenario(units, start=GERMAN_COMBAT, hexsides=fp), "attack g-a g-b g-c -> 0505", dice=(6, 6)
    )
    c = resolved(rec)
    assert c["attack_sp"] == 8 + 15  # A halved always (7.3.4 note)
    assert any("fixed position (15 SPs in front, 15 from the rear)" in x for x in c["explanation"])
    units[1]["sp"] = 6  # more from the rear: treated as FF (1 CM in clear)
    rec = play(
        scenario(units, start=GERMAN_COMBAT, hexsides=fp), "attack g-a g-b g-c -> 0505", dice=(6, 6)
    )
    assert any("as field fortifications" in x for x in resolved(rec)["explanation"])


def test_7_3_5_units_in_fixed_positions_need_not_attack() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 4}, {"id": "s-a", "hex": "0505", "sp": 4}]
    fp = [{"hexes": ["0604", "0505"], "feature": "fixed-position"}]
    setup = scenario(units, start={"turn": 1, "phase": "combat", "active": "soviet"}, hexsides=fp)
    # s-a need not attack (7.3.5), so g-a need not be attacked either (5.1.4, K17)
    rec = play(setup, "done")
    assert rec.state.phase != 3


def test_7_3_6_sustained_retreat_in_a_fixed_position_costs_one_less() -> None:
    fp = [{"hexes": ["0604", "0505"], "feature": "fixed-position"}]
    setup = duel({"sp": 24}, {"sp": 3}, hexsides=fp)
    rec = play(setup, "attack g-a -> 0505", "soviet: retreat s-a", dice=(3, 3))
    c = resolved(rec)
    assert c["column"] == "1:1" and c["result"] == "- / D1"  # 12:3 = 4:1, FP -3
    assert rec.state.units["s-a"].cel == 2  # D1 held in FP: no loss


def test_15_3_3_volkssturm_gives_a_cel_to_infantry_that_stays_put() -> None:
    units = [
        {"id": "g-inf", "hex": "0303", "cel": 1, "max_cel": 2},
        {"id": "g-vs", "hex": "0303", "type": "vs", "nation": "volkssturm", "cel": 2},
        {"id": "g-pz", "hex": "0303", "type": "mot", "cel": 1, "max_cel": 2},
        {"id": "s-x", "hex": "0808"},
    ]
    setup = scenario(units, start={"turn": 1, "phase": "movement", "active": "german"})
    rec = play(setup, "reinforce g-inf from g-vs")
    assert rec.state.units["g-inf"].cel == 2 and rec.state.units["g-vs"].cel == 1
    assert reject(rec, "move g-inf 0403").rule == "3.1.6"  # both stay put this phase
    assert reject(play(setup), "reinforce g-pz from g-vs").rule == "15.3.3"
    assert reject(play(setup, "move g-vs 0403"), "reinforce g-inf from g-vs").rule == "15.3.3"


def test_15_3_4_one_cel_per_turn_per_infantry_unit() -> None:
    units = [
        {"id": "g-inf", "hex": "0303", "cel": 1, "max_cel": 3},
        {"id": "g-vs", "hex": "0303", "type": "vs", "nation": "volkssturm", "cel": 2},
        {"id": "g-vs2", "hex": "0303", "type": "vs", "nation": "volkssturm", "cel": 1},
        {"id": "s-x", "hex": "0808"},
    ]
    setup = scenario(units, start={"turn": 1, "phase": "movement", "active": "german"})
    rec = play(setup, "reinforce g-inf from g-vs2")
    assert rec.state.units["g-vs2"].eliminated  # its last CEL
    assert reject(rec, "reinforce g-inf from g-vs").rule == "15.3.4"


def test_16_1_3_stacks_that_fought_are_seen_until_the_phase_ends() -> None:
    from engine.view import view

    units = [
        {"id": "g-a", "hex": "0604", "sp": 9},
        {"id": "s-a", "hex": "0505", "sp": 2},
        {"id": "s-b", "hex": "0505", "sp": 2},
        {"id": "s-c", "hex": "0303", "sp": 2},
        {"id": "s-d", "hex": "0303", "sp": 2},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(6, 6))
    ids = {u.id for u in view(rec.state, "german").units}
    assert {"s-a", "s-b"} <= ids and "s-d" not in ids
