"""Kursk 1943 game rules 17.0-22.0 (Armor Repair, mines, Fortified Lines, field
fortifications, Panther breakdown) and the scenarios' special rules, with E7 and the
rulings K56, K57, K58, K59, K60."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.model import Setup
from engine.notation import format_order, parse_order
from engine.record import GameRecord
from engine.wb95 import flow
from engine.wb95.fortified_lines import in_line
from engine.wb95.sequence import PHASES
from scenarios import ScenarioError
from scenarios.tables import load_game_rules, load_table

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}
GERMAN_MOVE = {"turn": 1, "phase": "movement", "active": "german"}
SOVIET_COMBAT = {"turn": 1, "phase": "combat", "active": "soviet"}
FL = "fortified-line"


def kursk(units: list[dict[str, Any]], **extra: Any) -> Setup:
    """A Kursk scenario: German initiative, 5 July 1943, the southern front."""
    special = extra.pop("special", {"fronts": {"south": {}}})
    extra.setdefault("start", GERMAN_COMBAT)
    return scenario(
        units,
        game="kursk",
        initiative="german",
        calendar={"start": "1943-07-05"},
        special=special,
        **extra,
    )


def line(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"hexes": list(p), "feature": FL} for p in pairs]


def resolved(rec: GameRecord) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == "combat_resolved").data


def events(rec: GameRecord, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in rec.events if e.kind == kind]


def phase(rec: GameRecord) -> tuple[str, str]:
    return PHASES[rec.state.phase].kind, flow.acting_sides(rec.state)[0]


def check_replay(rec: GameRecord) -> None:
    assert rec.rebuild().snapshot() == rec.state.snapshot()


# --- game data -----------------------------------------------------------------------------


def test_kursk_rules_are_game_data_and_korsun_has_none() -> None:
    rules = load_game_rules("kursk")
    assert rules.fronts == ("north", "south")
    assert rules.mines is not None and dict(rules.mines.dice) == {"north": 4, "south": 6}
    assert rules.repair is not None and rules.repair.excluded == {"panther", "ferdinand"}
    assert rules.breakdown is not None and rules.breakdown.hits == {1, 2, 3}
    assert rules.fortified_line is not None and rules.fortified_line.owner == "soviet"
    empty = load_game_rules("korsun")
    assert empty.mines is None and empty.fortified_line is None and not empty.fronts


# --- 20.0 field fortifications ---------------------------------------------------------------


def test_20_1_1_field_fortifications_give_1_cm_and_2_in_towns_r15() -> None:
    assert dict(load_table("kursk").ff_cms) == {"town": 2, "city": 2, "*": 1}
    columns = {}
    for terrain in ("clear", "town", "city", "forest"):
        units = [
            {"id": "g-a", "hex": "0604", "sp": 16},
            {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
        ]
        rec = play(kursk(units, terrain={"0505": terrain}), "attack g-a -> 0505", dice=(6, 6))
        columns[terrain] = resolved(rec)["column"]
    # 4:1; clear: FF -1; town/city: terrain -1 and FF -2; forest: terrain -1 and FF -1
    assert columns == {"clear": "3:1", "town": "1:1", "city": "1:1", "forest": "2:1"}


# --- 19.0 fortified lines ----------------------------------------------------------------------


def e7(**dfn: Any) -> Setup:
    """E7: a German armoured division (20 SPs) supported by 9 SPs of artillery attacks a
    Soviet division (7 SPs) across a fortified line. (The air support of the example is
    given by artillery here: 19.1.1 halves both alike.)"""
    units = [
        {"id": "g-pz", "hex": "0604", "type": "arm", "sp": 20},
        {"id": "g-art1", "hex": "0704", "type": "art", "sp": [5, 2], "mp": 3},
        {"id": "g-art2", "hex": "0703", "type": "art", "sp": [4, 2], "mp": 3},
        {"id": "s-div", "hex": "0505", "sp": 7, **dfn},
    ]
    return kursk(units, hexsides=line(("0604", "0505")))


def test_19_1_e7_k57_fortified_line_halves_everything_and_gives_two_cms() -> None:
    rec = play(e7(), "attack g-pz -> 0505 support g-art1 g-art2", dice=(3, 3))
    c = resolved(rec)
    assert c["attack_sp"] == 15 and c["defence_sp"] == 7  # 29 halved, rounded up
    assert c["initial"] == "2:1" and c["column"] == "1:2"
    text = "\n".join(c["explanation"])
    assert "29 SPs attacking across the fortified line count 15 (19.1.1, R5)" in text
    assert "fortified line: 20 of 20 attacking SPs across it" in text
    check_replay(rec)


def test_19_1_2_k57_no_cms_unless_more_than_half_cross_but_the_crossers_are_halved() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "g-b", "hex": "0605", "sp": 8},
        {"id": "s-a", "hex": "0505", "sp": 6},
    ]
    rec = play(kursk(units, hexsides=line(("0604", "0505"))), "attack g-a g-b -> 0505", dice=(6, 6))
    c = resolved(rec)
    assert c["attack_sp"] == 12 and c["column"] == "2:1"  # 4 + 8 vs 6; half is not more
    assert not any("fortified line:" in x for x in c["explanation"])


def test_19_1_3_k57_small_defenders_get_one_cm_instead_of_two() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 16}, {"id": "s-a", "hex": "0505", "sp": 4}]
    rec = play(kursk(units, hexsides=line(("0604", "0505"))), "attack g-a -> 0505", dice=(6, 6))
    c = resolved(rec)
    assert c["attack_sp"] == 8 and c["initial"] == "2:1" and c["column"] == "1:1"
    assert any("(19.1.3)" in x or "held by 4 SPs" in x for x in c["explanation"])


def test_19_1_4_k57_german_units_in_a_fortified_line_get_one_cm_and_no_halving() -> None:
    units = [{"id": "s-a", "hex": "0604", "sp": 8}, {"id": "g-a", "hex": "0505", "sp": 4}]
    setup = kursk(units, hexsides=line(("0504", "0505")), start=SOVIET_COMBAT)
    rec = play(setup, "attack s-a -> 0505", dice=(6, 6))
    c = resolved(rec)
    assert c["attack_sp"] == 8 and c["initial"] == "2:1" and c["column"] == "1:1"
    assert any("german units in a fortified line" in x for x in c["explanation"])


def test_19_1_k57_fortified_line_and_field_fortifications_do_not_add_up() -> None:
    rec = play(e7(ff=True), "attack g-pz -> 0505 support g-art1 g-art2", dice=(3, 3))
    assert resolved(rec)["column"] == "1:2"  # FL 2 instead of FF 1, not 3
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
    ]
    setup = kursk(units, hexsides=line(("0604", "0505")), terrain={"0505": "town"})
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    c = resolved(rec)  # 8 vs 4 = 2:1; town -1; FF in a town 2 beats the small FL's 1
    assert c["column"] == "1:3"
    assert any("field fortifications in town" in x for x in c["explanation"])


def test_19_1_r20_k57_defenders_in_a_fortified_line_are_fortified_for_stars() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 16, "stars": ["black"]},
        {"id": "s-a", "hex": "0505", "sp": 7},
    ]
    setup = kursk(units, hexsides=line(("0604", "0505")))
    assert reject(play(setup), "attack g-a -> 0505 stars g-a").rule == "15.1.2"
    play(kursk(units), "attack g-a -> 0505 stars g-a", dice=(6, 6))  # no line: usable


def test_19_1_k57_units_in_a_fortified_line_need_not_attack_5_1_3() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 4}, {"id": "s-a", "hex": "0505", "sp": 4}]
    setup = kursk(units, hexsides=line(("0505", "0504")), start=SOVIET_COMBAT)
    rec = play(setup, "done")  # s-a is in the line: no duty to attack (7.3.5 by analogy)
    assert phase(rec) != ("combat", "soviet")
    setup = kursk(units, start=SOVIET_COMBAT)
    assert reject(play(setup), "done").rule == "5.1.7"


def test_19_0_fortified_lines_mean_nothing_in_korsun() -> None:
    units = [{"id": "g-a", "hex": "0604", "sp": 8}, {"id": "s-a", "hex": "0505", "sp": 4}]
    setup = scenario(units, hexsides=line(("0604", "0505")), start=GERMAN_COMBAT, game="korsun")
    rec = play(setup, "attack g-a -> 0505", dice=(6, 6))
    assert not in_line(rec.state, "0505")
    assert resolved(rec)["column"] == "2:1"


# --- 18.0 mines ---------------------------------------------------------------------------------


def mines_setup(**extra: Any) -> Setup:
    """g-a and g-b attack (3 CELs each); g-c only moves; g-d crosses a fortified line."""
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 4, "cel": 3},
        {"id": "g-b", "hex": "0607", "type": "arm", "sp": 4, "cel": 3},
        {"id": "g-c", "hex": "0203", "type": "arm", "sp": 4},
        {"id": "g-d", "hex": "0202", "type": "arm", "sp": 4},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
        {"id": "s-b", "hex": "0507", "sp": 4, "ff": True},
    ]
    return kursk(units, start=GERMAN_MOVE, hexsides=line(("0202", "0302")), **extra)


MINES_TURN = ("move g-c 0204", "move g-d 0302", "done", "attack g-a -> 0505", "attack g-b -> 0507")
ATTACKS = (3, 3, 3, 3)  # 1:1, FF -1: 1:2; roll 6: "-1 / -1", one CEL each


def test_18_1_k59_mines_cost_cels_of_units_that_attacked_or_crossed_a_fortified_line() -> None:
    rec = play(mines_setup(), *MINES_TURN, "done", dice=(*ATTACKS, 1, 2, 3, 4, 5, 6))
    (m,) = events(rec, "mines")
    assert m["front"] == "south" and m["hits"] == 3 and m["units"] == ["g-a", "g-b", "g-d"]
    assert m["faces"] == [1, 2, 3, 4, 5, 6]  # 18.1.2: 6K6 on the southern front
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.rule == "18.1.3"
    assert d.options == {"count": 3, "units": {"g-a": 2, "g-b": 2, "g-d": 2}, "must_include": []}
    assert phase(rec) == ("supply", "german")  # the Supply Phase waits for the answer (K56)
    assert reject(rec, "german: done").rule == "18.1.3"
    assert reject(rec, "german: losses g-c g-a g-a").rule == "18.1.3"  # g-c did not attack
    rec.submit(None, parse_order("german: losses g-a g-a g-d"))  # type: ignore[arg-type]
    cels = {u: rec.state.units[u].cel for u in ("g-a", "g-b", "g-c", "g-d")}
    assert cels == {"g-a": 0, "g-b": 2, "g-c": 2, "g-d": 1} and rec.state.units["g-a"].eliminated
    (d,) = rec.state.pending  # 17.1.2: g-d, damaged, supplied and out of enemy ZoC
    assert d.kind == "repair" and d.options["fronts"] == {"south": ["g-d"]}
    rec.submit(None, parse_order("german: repair none"))  # type: ignore[arg-type]
    assert phase(rec) == ("movement", "soviet") and not rec.state.activity
    check_replay(rec)


def test_18_1_3_k59_a_single_choice_is_taken_at_once() -> None:
    rec = play(mines_setup(), *MINES_TURN, "done", dice=(*ATTACKS, 1, 6, 6, 6, 6, 6))
    (m,) = events(rec, "mines")
    assert m["hits"] == 1
    (d,) = rec.state.pending  # three units could pay the one CEL: the owner chooses
    assert d.options["count"] == 1
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 4, "cel": 3},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
    ]
    rec = play(kursk(units), "attack g-a -> 0505", "done", dice=(3, 3, 1, 1, 1, 6, 6, 6))
    assert rec.state.units["g-a"].eliminated  # 2 CELs left, 3 hits: all of them
    assert [e["cause"] for e in events(rec, "cel_lost")][-2:] == [
        "mines on the south front (automatic: the only choice)"
    ] * 2
    assert phase(rec) == ("movement", "soviet")


def test_18_1_1_mines_only_from_5_to_11_july() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 4, "cel": 3},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
    ]
    setup = scenario(
        units,
        game="kursk",
        initiative="german",
        calendar={"start": "1943-07-12"},
        special={"fronts": {"south": {}}},
        start=GERMAN_COMBAT,
    )
    rec = play(setup, "attack g-a -> 0505", "done", dice=(3, 3))
    assert not events(rec, "mines") and phase(rec) == ("movement", "soviet")


def test_18_1_2_each_front_rolls_its_own_dice() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 4, "cel": 3},
        {"id": "s-a", "hex": "0505", "sp": 4, "ff": True},
    ]
    fronts = {"north": {"rows": [1, 4]}, "south": {"rows": [5, 8]}}
    rec = play(
        kursk(units, special={"fronts": fronts}),
        "attack g-a -> 0505",
        "done",
        dice=(3, 3, 1, 1, 1, 1, 6, 6, 6, 6, 6, 6),
    )
    north, south = events(rec, "mines")
    assert (north["front"], len(north["faces"]), north["hits"]) == ("north", 4, 4)
    assert north["units"] == ["g-a"]  # g-a stands in row 4
    assert (south["front"], len(south["faces"]), south["hits"]) == ("south", 6, 0)
    assert rec.state.units["g-a"].eliminated


# --- 22.0 Panther breakdown --------------------------------------------------------------------


def panther_setup(**extra: Any) -> Setup:
    units = [
        {
            "id": "g-p",
            "hex": "0203",
            "type": "arm",
            "sp": 6,
            "equipment": "panther",
            "cel": 1,
            "max_cel": 2,
        },
        {"id": "g-q", "hex": "0205", "type": "arm", "sp": 6, "equipment": "panther"},
        {"id": "g-x", "hex": "0207", "type": "arm", "sp": 6},
        {"id": "s-a", "hex": "0909", "sp": 4},
    ]
    return kursk(units, start=GERMAN_MOVE, rows=(1, 10), **extra)


def test_22_1_k59_activated_panthers_roll_after_the_mines() -> None:
    rec = play(
        panther_setup(), "move g-q 0305", "move g-x 0307", "done", dice=(1, 1, 1, 1, 1, 1, 2)
    )
    kinds = [e.kind for e in rec.events if e.kind in ("mines", "breakdown_roll")]
    assert kinds == ["mines", "breakdown_roll"]  # 22.1.1: on top of the mine losses
    (b,) = events(rec, "breakdown_roll")
    assert b["unit"] == "g-q" and b["face"] == 2 and b["lost"]  # g-p did not move: no roll
    assert rec.state.units["g-q"].cel == 1
    assert events(rec, "mines")[0]["units"] == []  # moving is not enough for mines
    rec = play(panther_setup(), "move g-q 0305", "done", dice=(6, 6, 6, 6, 6, 6, 4))
    assert not events(rec, "breakdown_roll")[0]["lost"] and rec.state.units["g-q"].cel == 2
    check_replay(rec)


# --- 17.0 Armor Repair --------------------------------------------------------------------------


GERMAN_SUPPLY = {"turn": 1, "phase": "supply", "active": "german"}


def repair_setup(extra_units: list[dict[str, Any]] = (), **extra: Any) -> Setup:  # type: ignore[assignment]
    units = [
        *extra_units,
        {"id": "g-r", "hex": "0203", "type": "arm", "sp": 6, "cel": 1, "max_cel": 2},
        {"id": "g-s", "hex": "0205", "type": "ag", "sp": 6, "cel": 1, "max_cel": 2},
        {
            "id": "g-p",
            "hex": "0206",
            "type": "arm",
            "sp": 6,
            "cel": 1,
            "max_cel": 2,
            "equipment": "panther",
        },
        {
            "id": "g-f",
            "hex": "0207",
            "type": "arm",
            "sp": 6,
            "cel": 1,
            "max_cel": 2,
            "equipment": "ferdinand",
        },
        {"id": "g-i", "hex": "0208", "type": "inf", "sp": 6, "cel": 1, "max_cel": 2},
        {"id": "g-full", "hex": "0209", "type": "arm", "sp": 6},
        {"id": "s-a", "hex": "0505", "sp": 4},
    ]
    extra.setdefault("start", GERMAN_SUPPLY)
    return kursk(units, rows=(1, 10), **extra)


def test_17_1_2_k56_a_repair_decision_waits_in_the_supply_phase() -> None:
    rec = play(repair_setup())
    (d,) = rec.state.pending
    assert d.kind == "repair" and d.options["fronts"] == {"south": ["g-r", "g-s"]}
    assert phase(rec) == ("supply", "german")
    assert "repair" in reject(rec, "german: done").message
    r = reject(rec, "german: repair g-p")
    assert r.rule == "17.1.2" and "Panthers cannot be repaired (17.1.3)" in r.message
    assert "has lost no CEL" in reject(rec, "german: repair g-full").message
    assert "not an armoured unit" in reject(rec, "german: repair g-i").message
    assert reject(rec, "german: repair g-r g-s").rule == "17.1.1"  # one counter per front
    rec2 = play(repair_setup(), "german: repair none")
    assert not rec2.state.repairs and phase(rec2) == ("movement", "soviet")
    rec.submit(None, parse_order("german: repair g-r"))  # type: ignore[arg-type]
    assert [r["unit"] for r in rec.state.repairs] == ["g-r"]
    assert phase(rec) == ("movement", "soviet")
    check_replay(rec)


def test_17_1_2_k58_an_idle_unit_regains_a_cel_in_the_next_supply_phase() -> None:
    rec = play(repair_setup(), "german: repair g-r", "soviet: done", "german: done")
    assert rec.state.units["g-r"].cel == 2 and not rec.state.repairs
    (ev,) = events(rec, "repaired")
    assert ev["unit"] == "g-r" and ev["cels"] == 1
    (d,) = rec.state.pending  # the counter is free again: g-s can have it now
    assert d.kind == "repair" and d.options["fronts"] == {"south": ["g-s"]}
    check_replay(rec)


def test_17_1_2_k58_a_unit_that_moves_or_meets_enemy_zoc_loses_its_counter() -> None:
    rec = play(repair_setup(), "german: repair g-r", "soviet: done", "german: move g-r 0303")
    (ev,) = events(rec, "repair_spoiled")
    assert ev["unit"] == "g-r" and ev["reason"] == "it moved" and not rec.state.repairs
    rec = play(repair_setup(), "german: repair g-r", "soviet: move s-a 0304")
    (ev,) = events(rec, "repair_spoiled")
    assert ev["reason"] == "it is in enemy ZoC" and not rec.state.repairs
    check_replay(rec)


def test_17_1_2_k58_a_unit_fired_at_loses_its_counter() -> None:
    units = [
        {"id": "g-r", "hex": "0203", "type": "arm", "sp": 6, "cel": 1, "max_cel": 2},
        {"id": "s-art", "hex": "0403", "type": "art", "sp": [6, 2], "mp": 3},
    ]
    setup = kursk(units, start=GERMAN_SUPPLY)
    rec = play(
        setup, "german: repair g-r", "soviet: done", "soviet: fire s-art -> 0203", dice=(4, 3)
    )
    (ev,) = events(rec, "repair_spoiled")
    assert ev["unit"] == "g-r" and ev["reason"] == "it was fired at"
    check_replay(rec)


def test_17_1_2_k58_only_supplied_units_outside_enemy_zoc_get_a_counter() -> None:
    units = [
        {"id": "g-r", "hex": "0505", "type": "arm", "sp": 6, "cel": 1, "max_cel": 2},
        {"id": "s-a", "hex": "0604", "sp": 4},
    ]
    rec = play(kursk(units, start=GERMAN_SUPPLY))
    assert not rec.state.pending  # g-r is in enemy ZoC: nothing to decide (K6)
    assert phase(rec) == ("movement", "soviet")
    units = [
        {"id": "g-r", "hex": "1008", "type": "arm", "sp": 6, "cel": 1, "max_cel": 2},
        {"id": "s-a", "hex": "0101", "sp": 4},
    ]
    sides = {
        "soviet": {"nation": "soviet", "supply": [{"edge": "W"}]},
        "german": {"nation": "german", "supply": [{"hex": "0101"}]},
    }
    rec = play(kursk(units, start=GERMAN_SUPPLY, sides=sides))
    assert rec.state.units["g-r"].oos == 1 and not rec.state.pending  # out of supply


# --- scenario special rules (K60) ---------------------------------------------------------------

SOVIET_MOVE = {"turn": 1, "phase": "movement", "active": "soviet"}


def test_scenario_k60_activation_units_cannot_move_before_their_day() -> None:
    units = [
        {"id": "s-2ta", "hex": "0808", "type": "arm", "sp": 6, "formation": "2TA"},
        {"id": "s-inf", "hex": "0806", "sp": 4},
        {"id": "g-a", "hex": "0202", "sp": 4},
    ]
    special = {
        "fronts": {"north": {}},
        "activation": [{"formations": ["2TA"], "from": "1943-07-06", "label": "2nd Armoured Army"}],
    }
    setup = kursk(units, special=special, start=SOVIET_MOVE)
    r = reject(play(setup), "move s-2ta 0708")
    assert (
        r.rule == "scenario"
        and "2nd Armoured Army cannot move before turn 2 (06 July)" in r.message
    )
    assert reject(play(setup), "strategic s-2ta").rule == "scenario"
    play(setup, "move s-inf 0706")  # others move
    rec = play(setup, "done", "german: done", "soviet: move s-2ta 0708")  # 6 July
    assert rec.state.units["s-2ta"].hex == "0708"


def test_scenario_k60_half_mps_on_a_day_and_on_arrival() -> None:
    units = [
        {"id": "s-1gta", "hex": "0808", "sp": 6, "mp": 4},
        {"id": "s-res", "sp": 4, "mp": 4, "arrives": {"turn": 1, "hex": "1004"}},
        {"id": "g-a", "hex": "0202", "sp": 4},
    ]
    special = {
        "half_mp": [
            {"units": ["s-1gta"], "dates": ["1943-07-05"]},
            {"units": ["s-res"], "arrival": True, "label": "STAWKA reserves"},
        ]
    }
    setup = kursk(units, special=special, start=SOVIET_MOVE)
    assert reject(play(setup), "move s-1gta 0508").rule == "3.1.5"  # 3 hexes for 2 MPs
    play(setup, "move s-1gta 0608")
    assert reject(play(setup), "enter s-res 1004 0904 0804").rule == "3.1.5"
    rec = play(setup, "enter s-res 1004 0904")
    assert rec.state.units["s-res"].hex == "0904"
    assert reject(rec, "move s-res 0804").rule == "3.1.6"
    rec = play(setup, "done", "german: done", "soviet: move s-1gta 0408")  # 6 July: 4 MPs
    assert rec.state.units["s-1gta"].hex == "0408"


def test_scenario_k60_no_crossing_a_river_north_of_a_hex() -> None:
    river = [
        {"hexes": ["0503", "0603"], "feature": "big-river"},
        {"hexes": ["0506", "0606"], "feature": "big-river"},
    ]
    units = [
        {"id": "s-7ga", "hex": "0603", "sp": 4, "formation": "7GA"},
        {"id": "s-7gb", "hex": "0606", "sp": 4, "formation": "7GA"},
        {"id": "s-other", "hex": "0603", "sp": 4},
        {"id": "g-a", "hex": "0101", "sp": 4},
    ]
    special = {
        "no_crossing": [
            {
                "formations": ["7GA"],
                "feature": "big-river",
                "area": {"rows": [1, 4]},
                "label": "7th Guards Army",
            }
        ]
    }
    setup = kursk(units, special=special, start=SOVIET_MOVE, hexsides=river)
    r = reject(play(setup), "move s-7ga 0603 0503")
    assert (
        r.rule == "scenario" and "7th Guards Army may not cross between 0603 and 0503" in r.message
    )
    play(setup, "move s-other 0603 0503")
    play(setup, "move s-7ga 0503")  # around the river: 0602, 0503
    play(setup, "move s-7gb 0506")  # south of the limit


def test_scenario_k60_withdrawal_must_be_made_on_its_day() -> None:
    units = [
        {"id": "g-4pz", "hex": "0303", "type": "arm", "size": "D", "sp": 8},
        {"id": "g-9pz", "hex": "0304", "type": "arm", "size": "D", "sp": 8},
        {"id": "g-inf", "hex": "0305", "size": "D", "sp": 6},
        {"id": "s-a", "hex": "0808", "sp": 4},
    ]
    special = {"withdraw": [{"side": "german", "date": "1943-07-05", "units": ["g-4pz"]}]}
    setup = kursk(units, special=special, start=GERMAN_MOVE)
    r = reject(play(setup), "done")
    assert r.rule == "scenario" and "withdraw 1 of g-4pz (or an equivalent" in r.message
    assert reject(play(setup), "withdraw g-inf").rule == "scenario"
    rec = play(setup, "withdraw g-9pz", "done")  # an equivalent: armoured division
    u = rec.state.units["g-9pz"]
    assert u.hex is None and u.withdrawn == 1 and not u.on_map and not u.eliminated
    assert reject(play(setup, "move g-4pz 0403"), "withdraw g-4pz").rule == "scenario"
    rec = play(setup, "withdraw g-4pz")
    assert reject(rec, "withdraw g-9pz").rule == "scenario"  # one is enough
    check_replay(rec)


def test_scenario_k60_destroyed_bridges_are_down_at_the_start() -> None:
    river = [{"hexes": ["0503", "0603"], "feature": "river"}]
    units = [{"id": "s-a", "hex": "0603", "sp": 4}, {"id": "g-a", "hex": "0101", "sp": 4}]
    special = {"destroyed_bridges": [["0503", "0603"]]}
    setup = kursk(
        units, special=special, start=SOVIET_MOVE, hexsides=river, bridges=[["0503", "0603"]]
    )
    rec = play(setup)
    assert rec.state.bridges == {"0503/0603": "destroyed"}


@pytest.mark.parametrize(
    ("special", "key"),
    [
        ({"fronts": {"east": {}}}, "special.fronts.east"),
        ({"activation": [{"units": ["s-x"], "from_turn": 2}]}, "special.activation[0].units[0]"),
        ({"activation": [{"units": ["s-a"]}]}, "special.activation[0]"),
        (
            {"withdraw": [{"side": "german", "turn": 9, "units": ["g-a"]}]},
            "special.withdraw[0].turn",
        ),
        (
            {"withdraw": [{"side": "german", "turn": 2, "units": ["s-a"]}]},
            "special.withdraw[0].units[0]",
        ),
        (
            {"no_crossing": [{"units": ["s-a"], "feature": "river"}]},
            "special.no_crossing[0].feature",
        ),
        ({"destroyed_bridges": [["0503", "0603"]]}, "special.destroyed_bridges[0]"),
    ],
)
def test_scenario_special_rules_are_checked_on_load(special: dict[str, Any], key: str) -> None:
    units = [{"id": "s-a", "hex": "0603", "sp": 4}, {"id": "g-a", "hex": "0101", "sp": 4}]
    with pytest.raises(ScenarioError) as e:
        kursk(units, special=special)
    assert key in str(e.value)


def test_scenario_dates_need_a_calendar() -> None:
    units = [{"id": "s-a", "hex": "0603", "sp": 4}, {"id": "g-a", "hex": "0101", "sp": 4}]
    with pytest.raises(ScenarioError) as e:
        scenario(units, special={"activation": [{"units": ["s-a"], "from": "1943-07-06"}]})
    assert "calendar" in str(e.value)


def test_notation_repair_and_withdraw_round_trip() -> None:
    for text in ("german: repair g-a g-b", "repair none", "withdraw g-4pz @0405"):
        order = parse_order(text)
        assert order is not None and parse_order(format_order(order)) == order
    assert format_order(parse_order("REPAIR None")) == "repair none"  # type: ignore[arg-type]


def test_17_1_2_k93_a_repair_never_over_stacks_its_hex() -> None:
    """K93 (found by the fuzzer on prokhorovka): the counter gives no CEL where the hex
    already holds 8 CELs at the end of the Supply Phase (3.2.1)."""
    rec = play(  # g-r (1 CEL) shares 0203 with a 7-CEL stack-mate: 8 CELs
        repair_setup(extra_units=[{"id": "g-mate", "hex": "0203", "sp": 6, "cel": 7}]),
        "german: repair g-r",
        "soviet: done",
        "german: done",
    )
    (ev,) = events(rec, "repaired")
    assert ev["unit"] == "g-r" and ev["cels"] == 0 and rec.state.units["g-r"].cel == 1
    check_replay(rec)
