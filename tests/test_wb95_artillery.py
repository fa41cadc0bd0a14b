"""6.0 Artillery: setup (6.2), support fire (6.3), ranged attacks and fire at bridges (6.4),
barrage (6.5), artillery in direct combat (6.6) and overrunning towed guns (6.1.7), with the
examples E17, E19-E23."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.core import Event
from engine.notation import NotationError, format_order, parse_order
from engine.orders import Barrage, Defend, Fire, SetupChange
from engine.record import GameRecord
from engine.wb95 import artillery
from engine.wb95.choices import candidate_orders
from engine.wb95.flow import awaited_sides, current_phase
from engine.wb95.game import legal_moves
from scenarios import ScenarioError, load_scenario_data

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}
SOVIET_COMBAT = {"turn": 1, "phase": "combat", "active": "soviet"}
GERMAN_BARRAGE = {"turn": 1, "phase": "barrage", "active": "german"}
GUN = {"type": "art", "sp": [4, 2], "mp": 6}


def last(rec: GameRecord, kind: str) -> dict[str, Any]:
    return next(e for e in reversed(rec.events) if e.kind == kind).data


def events(rec: GameRecord, kind: str) -> list[Event]:
    return [e for e in rec.events if e.kind == kind]


def replays(rec: GameRecord) -> bool:
    return rec.rebuild().snapshot() == rec.state.snapshot()


# --- 6.2 setup -------------------------------------------------------------------------------


def test_6_2_4_k54_a_setup_change_costs_1_mp_of_the_move() -> None:
    units = [
        {"id": "s-gun", "hex": "0203", **GUN},
        {"id": "s-sp", "hex": "0207", "type": "sp-art", "sp": [4, 2], "mp": 6},
        {"id": "s-inf", "hex": "0101"},
        {"id": "g-a", "hex": "0908"},
    ]
    setup = scenario(units)
    rec = play(setup)
    assert reject(rec, "move s-gun 0303").rule == "6.2.3"  # combat setup does not move
    assert reject(rec, "setup s-gun combat").rule == "6.2.2"
    assert reject(rec, "setup s-sp transport").rule == "6.6.5"
    assert reject(rec, "setup s-inf transport").rule == "6.2.2"
    rec = play(setup, "setup s-gun transport")
    u = rec.state.units["s-gun"]
    assert (u.setup, u.mp_spent) == ("transport", Fraction(1))
    ev = last(rec, "setup_changed")
    assert (ev["from"], ev["to"], ev["cost"], ev["rule"]) == ("combat", "transport", "1", "6.2.4")
    # 6 MPs, 1 spent: one clear hex (3 MP for a trucked unit) and not two
    assert legal_moves(rec.state, "s-gun")["0303"].cost == 4
    assert "0403" not in legal_moves(rec.state, "s-gun")
    assert reject(rec, "move s-gun 0303 0403").rule == "3.1.5"
    rec = play(setup, "setup s-gun transport", "move s-gun 0303", "setup s-gun combat")
    u = rec.state.units["s-gun"]
    assert (u.hex, u.setup, u.mp_spent) == ("0303", "combat", Fraction(5))
    assert replays(rec)


def test_6_2_4_k54_after_a_move_a_setup_change_needs_1_mp_left() -> None:
    units = [
        {"id": "s-gun", "hex": "0203", **GUN, "setup": "transport"},
        {"id": "g-a", "hex": "0908"},
    ]
    rec = play(scenario(units), "move s-gun 0403")  # 2 clear hexes: all 6 MPs
    r = reject(rec, "setup s-gun combat")
    assert r.rule == "6.2.4" and "0 MP left" in r.message


def test_6_2_4_setup_changes_only_in_the_movement_phase() -> None:
    units = [
        {"id": "g-gun", "hex": "0705", **GUN, "setup": "transport"},
        {"id": "g-a", "hex": "0604"},
        {"id": "s-a", "hex": "0505"},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT))
    assert reject(rec, "setup g-gun combat").rule == "6.2.4"


# --- 6.3 support fire ------------------------------------------------------------------------


def support_setup(**extra: Any):  # type: ignore[no-untyped-def]
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-near", "hex": "0605", **GUN},  # next to 0505
        {"id": "g-far", "hex": "0705", **GUN},  # 2 hexes from 0505, 1 from 0604
        {"id": "g-out", "hex": "0901", **GUN},  # 5 hexes from 0604
        {"id": "g-tr", "hex": "0704", **GUN, "setup": "transport"},
        {"id": "s-a", "hex": "0505", "sp": 2},
    ]
    return scenario(units, start=GERMAN_COMBAT, **extra)


def test_6_3_1_k46_support_adds_the_attack_sps_and_fires_once_per_phase() -> None:
    setup = support_setup()
    rec = play(setup)
    assert reject(rec, "attack g-a -> 0505 support g-out").rule == "6.3.2"
    assert reject(rec, "attack g-a -> 0505 support g-tr").rule == "6.1.3"
    rec = play(setup, "attack g-a -> 0505 support g-far", dice=(3, 4))
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["defence_sp"], c["initial"]) == (8, 2, "4:1")
    (line,) = c["support"]["attacker"]
    assert (line["unit"], line["sp"], line["takes_effects"]) == ("g-far", 4, False)
    assert "6.3.4" in line["why"]
    assert rec.state.units["g-far"].fired_at == (1, rec.state.phase)
    assert not rec.state.units["g-far"].fought
    assert replays(rec)


def test_e17_6_3_5_5_6_3_k46_support_next_to_the_enemy_shares_the_results() -> None:
    # 12 vs 2 = 6:1; roll 12: "D -1 / D2": the attacker is disorganized and loses 1 CEL
    rec = play(support_setup(), "attack g-a -> 0505 support g-near g-far", dice=(6, 6))
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["result"]) == (12, "D -1 / D2")
    near = {x["unit"]: x["takes_effects"] for x in c["support"]["attacker"]}
    assert near == {"g-near": True, "g-far": False}
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.side == "german"
    assert d.options["units"] == {"g-a": 2, "g-near": 1}  # not the remote g-far (6.3.4)
    rec2 = play(
        support_setup(),
        "attack g-a -> 0505 support g-near g-far",
        "german: losses g-a",
        dice=(6, 6),
    )
    (d,) = rec2.state.pending
    assert d.kind == "retreat" and d.side == "soviet"
    path = d.options["paths"]["s-a"][-1]
    rec2.submit(None, parse_order(f"soviet: retreat s-a {' '.join(path)}"))  # type: ignore[arg-type]
    if rec2.state.pending and rec2.state.pending[0].kind == "pursuit":
        assert rec2.state.pending[0].options["units"] == ["g-a"]  # 6.3.4: no artillery
        rec2.submit(None, parse_order("german: pass"))  # type: ignore[arg-type]
    units = rec2.state.units
    assert units["g-a"].disorganized and units["g-near"].disorganized  # 6.3.5, 5.6.3
    assert not units["g-far"].disorganized  # E17: 2 hexes away
    assert replays(rec2)
    # each gun has fired for this phase (6.1.4)
    rec3 = play(support_setup(), "attack g-a -> 0505 support g-far", dice=(3, 4))
    assert artillery.has_fired(rec3.state, rec3.state.units["g-far"])


def test_6_1_4_k46_a_gun_supports_one_combat_per_phase() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "g-b", "hex": "0602", "sp": 8},
        {"id": "g-gun", "hex": "0703", **GUN},
        {"id": "s-a", "hex": "0505", "sp": 2},
        {"id": "s-b", "hex": "0502", "sp": 2},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505 support g-gun")
    while rec.state.pending:  # answer whatever the result asks with the first option
        d = rec.state.pending[0]
        line = candidate_orders(rec.state, d.side)[0]
        rec.submit(d.side, line)
    r = reject(rec, "attack g-b -> 0502 support g-gun")
    assert r.rule == "6.1.4" and "already fired" in r.message


# --- 6.6 direct combat and defensive support (E23, E21) --------------------------------------


def e23_units(extra_regular: bool = False) -> list[dict[str, Any]]:
    units: list[dict[str, Any]] = [
        {"id": "g-cav", "hex": "0504", "type": "cav", "sp": 5},
        {"id": "g-art1", "hex": "0505", "type": "art", "sp": [5, 3]},
        {"id": "g-art2", "hex": "0505", "type": "art", "sp": [5, 3]},
        {"id": "s-a", "hex": "0404", "sp": 6},
    ]
    if extra_regular:
        units.append({"id": "g-inf", "hex": "0505", "sp": 1})
    return units


def test_e23_6_6_3_k47_lone_guns_defend_with_1_sp_per_hex() -> None:
    rec = play(scenario(e23_units(), start=SOVIET_COMBAT), "attack s-a -> 0504 0505", dice=(3, 4))
    c = last(rec, "combat_resolved")
    assert c["defence_sp"] == 6  # 5 + 1
    sps = {x["unit"]: x["sp"] for x in c["defenders"]}
    assert sps == {"g-cav": 5, "g-art1": 1, "g-art2": 0}
    assert "6.6.3" in c["defenders"][1]["why"]


def test_e23_6_6_1_k47_with_a_regular_unit_the_guns_support_their_own_hex() -> None:
    setup = scenario(e23_units(extra_regular=True), start=SOVIET_COMBAT)
    rec = play(setup, "attack s-a -> 0504 0505")
    (d,) = rec.state.pending
    assert d.kind == "defence" and d.options["support"] == {"artillery": ["g-art1", "g-art2"]}
    rec = play(
        setup, "attack s-a -> 0504 0505", "german: defend support g-art1 g-art2", dice=(3, 4)
    )
    c = last(rec, "combat_resolved")
    assert c["defence_sp"] == 5 + 1 + 6  # "they could use their 6 defensive SPs"
    assert {x["unit"]: x["sp"] for x in c["support"]["defender"]} == {"g-art1": 3, "g-art2": 3}
    assert all(x["takes_effects"] for x in c["support"]["defender"])
    rec = play(setup, "attack s-a -> 0504 0505", "german: pass", dice=(3, 4))
    assert last(rec, "combat_resolved")["defence_sp"] == 6  # without support: 5 + 1 + 0 + 0
    assert replays(rec)


def test_6_6_1_k47_guns_alone_in_a_defending_hex_cannot_support() -> None:
    units = [*e23_units(), {"id": "g-art3", "hex": "0706", **GUN}]  # 3 hexes from 0504
    rec = play(scenario(units, start=SOVIET_COMBAT), "attack s-a -> 0504 0505")
    (d,) = rec.state.pending
    assert d.options["support"] == {"artillery": ["g-art3"]}
    r = reject(rec, "german: defend support g-art1")
    assert r.rule == "6.6.1"


def test_e23_the_guns_attacking_would_use_15_sps() -> None:
    units = [
        {"id": "g-cav", "hex": "0504", "type": "cav", "sp": 5},
        {"id": "g-art1", "hex": "0505", "type": "art", "sp": [5, 3]},
        {"id": "g-art2", "hex": "0505", "type": "art", "sp": [5, 3]},
        {"id": "s-a", "hex": "0404", "sp": 6},
    ]
    rec = play(
        scenario(units, start=GERMAN_COMBAT),
        "attack g-cav -> 0404 support g-art1 g-art2",
        dice=(3, 4),
    )
    assert last(rec, "combat_resolved")["attack_sp"] == 15


def test_6_3_1_k46_no_defensive_support_without_a_regular_defender() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "s-hq", "hex": "0505", "type": "hq"},
        {"id": "s-gun", "hex": "0405", **GUN},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(3, 4))
    assert not any(
        e.kind == "decision_opened" and e.data["decision"] == "defence" for e in rec.events
    )
    assert "5.1.9" in last(rec, "combat_resolved")["explanation"][0]


def test_e21_6_4_6_k46_disorganized_by_fire_a_gun_still_supports_at_half() -> None:
    units = [
        {"id": "g-gun", "hex": "0705", **GUN},  # 2 hexes from 0505
        {"id": "g-a", "hex": "0403", "sp": 4},
        {"id": "s-gun", "hex": "0505", "type": "art", "sp": [4, 3]},
        {"id": "s-a", "hex": "0404", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    # 4 SPs in clear: row 3-5, roll 3 = "D" (6.4.2)
    rec = play(setup, "fire g-gun -> 0505", dice=(1, 2))
    f = last(rec, "fire_resolved")
    assert (f["used"], f["result"]) == (4, "D")
    assert rec.state.units["s-gun"].disorganized
    rec = play(
        setup,
        "fire g-gun -> 0505",
        "attack g-a -> 0404",
        "soviet: defend support s-gun",
        dice=(1, 2, 3, 4),
    )
    (line,) = last(rec, "combat_resolved")["support"]["defender"]
    assert line["sp"] == 2 and "disorganized 2" in line["why"]  # 3 halved, rounded up (R5)
    assert replays(rec)


def test_6_6_4_k47_a_lone_gun_in_transport_setup_defends_like_an_hq() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 2},
        {"id": "s-gun", "hex": "0505", **GUN, "setup": "transport"},
    ]
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(3, 4))
    c = last(rec, "combat_resolved")
    assert c["column"] == "10:1" and "6.6.4" in c["explanation"][0]
    assert rec.state.units["s-gun"].eliminated  # no retreat: losses as sustained retreat
    held = last(rec, "retreat_held")
    assert held["rule"] == "6.6.4"


def test_6_6_3_k48_k99_lone_guns_pay_the_retreat_then_the_attacker_advances() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "s-gun1", "hex": "0505", **GUN},
        {"id": "s-gun2", "hex": "0505", **GUN},
    ]
    # 4 vs 1 = 4:1, roll 7: "- / D2": the guns cannot retreat (6.2.4), so the two hexes
    # cost their two CELs (5.3.7, K99) and the emptied hex is open to an advance (5.4)
    rec = play(scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505", dice=(3, 4))
    assert last(rec, "combat_resolved")["result"] == "- / D2"
    assert all(rec.state.units[u].eliminated for u in ("s-gun1", "s-gun2"))
    (d,) = rec.state.pending
    assert d.kind == "pursuit" and d.options["mode"] == "advance" and d.options["first"] == ["0505"]
    rec.submit(None, parse_order("german: pursue g-a 0505"))  # type: ignore[arg-type]
    assert rec.state.units["g-a"].hex == "0505"
    assert replays(rec)


# --- E20: 6.2.4 infantry and a gun in combat setup get D2 -------------------------------------


def e20(setup_mode: str = "combat") -> GameRecord:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "s-inf", "hex": "0505", "sp": 4, "cel": 2},
        {"id": "s-gun", "hex": "0505", **GUN, "setup": setup_mode},
    ]
    lines = ["attack g-a -> 0505"]
    if setup_mode == "combat":
        lines.append("soviet: pass")  # the gun could support the defence (6.6.1)
    # 8 vs 4 = 2:1, roll 6: "- / D2"
    rec = play(scenario(units, start=GERMAN_COMBAT), *lines, dice=(3, 3))
    assert last(rec, "combat_resolved")["result"] == "- / D2"
    return rec


def answer(rec: GameRecord, *lines: str) -> None:
    for line in lines:
        r = rec.submit(None, parse_order(line))  # type: ignore[arg-type]
        assert not hasattr(r, "message"), f"{line}: {r}"


def test_e20_a_k48_the_infantry_retreats_2_and_the_gun_falls_in_the_pursuit() -> None:
    rec = e20()
    (d,) = rec.state.pending
    assert d.kind == "retreat" and list(d.options["paths"]) == ["s-inf"]  # 6.2.4
    assert last(rec, "retreat_held")["rule"] == "6.2.4"
    path = next(p for p in d.options["paths"]["s-inf"] if len(p) == 2)
    answer(rec, f"soviet: retreat s-inf {' '.join(path)}")
    assert rec.state.units["s-gun"].cel == 1  # no sustained-retreat loss for the gun
    (p,) = rec.state.pending
    assert p.kind == "pursuit" and p.options["first"] == ["0505"]
    answer(rec, "german: pursue g-a 0505")
    gone = last(rec, "unit_eliminated")
    assert (gone["unit"], gone["rule"], gone["by"]) == ("s-gun", "6.1.7", "g-a")
    assert rec.state.units["s-inf"].cel == 2
    assert replays(rec)


def test_e20_b_k48_the_gun_pays_1_cel_so_the_infantry_retreats_1() -> None:
    rec = e20()
    path = next(p for p in rec.state.pending[0].options["paths"]["s-inf"] if len(p) == 1)
    answer(rec, f"soviet: retreat s-inf {path[0]}")
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.options["count"] == 1
    assert d.options["units"] == {"s-inf": 2, "s-gun": 1}
    answer(rec, "soviet: losses s-gun")
    assert rec.state.units["s-gun"].eliminated and rec.state.units["s-inf"].cel == 2
    assert replays(rec)


def test_e20_c_k48_both_lose_a_cel_and_the_infantry_keeps_its_position() -> None:
    rec = e20()
    answer(rec, "soviet: retreat s-inf")
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.options["count"] == 2
    answer(rec, "soviet: losses s-inf s-gun")
    units = rec.state.units
    assert units["s-gun"].eliminated and units["s-inf"].cel == 1 and units["s-inf"].hex == "0505"
    assert rec.state.combat is None and not rec.state.pending
    assert replays(rec)


def test_e20_k48_eliminating_the_infantry_does_not_save_the_gun() -> None:
    rec = e20()
    answer(rec, "soviet: retreat s-inf", "soviet: losses s-inf s-inf")
    assert rec.state.units["s-inf"].eliminated and not rec.state.units["s-gun"].eliminated
    (p,) = rec.state.pending
    assert p.kind == "pursuit" and p.options["mode"] == "advance"
    answer(rec, "german: pursue g-a 0505")
    assert rec.state.units["s-gun"].eliminated
    assert replays(rec)


def test_e20_k47_in_transport_setup_the_gun_retreats_without_losses() -> None:
    rec = e20("transport")
    c = last(rec, "combat_resolved")
    assert {x["unit"]: x["sp"] for x in c["defenders"]} == {"s-inf": 4, "s-gun": 0}
    (d,) = rec.state.pending
    assert set(d.options["paths"]) == {"s-inf", "s-gun"}
    for unit in ("s-inf", "s-gun"):
        path = next(p for p in d.options["paths"][unit] if len(p) == 2)
        answer(rec, f"soviet: retreat {unit} {' '.join(path)}")
    assert not events(rec, "cel_lost")
    assert replays(rec)


# --- 6.4 ranged attacks ------------------------------------------------------------------------


def fire_units(**extra: Any) -> list[dict[str, Any]]:
    return [
        {"id": "g-gun1", "hex": "0705", **GUN},  # 2 hexes from 0505
        {"id": "g-gun2", "hex": "0805", **GUN},  # 3 hexes
        {"id": "g-next", "hex": "0605", **GUN},  # adjacent
        {"id": "g-tiny", "hex": "0706", "type": "art", "sp": [2, 1]},
        {"id": "g-far", "hex": "0901", **GUN},
        {"id": "g-a", "hex": "0604", "sp": 4, **extra},
        {"id": "s-a", "hex": "0505", "sp": 2, "cel": 2},
        {"id": "s-b", "hex": "0505", "sp": 2, "cel": 2},
    ]


def test_6_4_2_k51_ranged_fire_subtracts_doubled_terrain_and_the_owner_takes_the_loss() -> None:
    setup = scenario(fire_units(ff=True), start=GERMAN_COMBAT, terrain={"0505": "forest"})
    # 8 SPs less 2 x 1 forest CM = 6: row 6-8, roll 2 = "-1D"
    rec = play(setup, "fire g-gun1 g-gun2 -> 0505", dice=(1, 1))
    f = last(rec, "fire_resolved")
    assert (f["sp"], f["terrain_cms"], f["used"], f["result"]) == (8, 1, 6, "-1D")
    assert f["mode"] == "ranged" and f["table"] == "artillery_fire"
    (d,) = rec.state.pending
    assert d.kind == "losses" and d.side == "soviet" and d.options["count"] == 1
    answer(rec, "soviet: losses s-b")
    units = rec.state.units
    assert units["s-b"].cel == 1 and units["s-a"].cel == 2
    assert units["s-a"].disorganized and units["s-b"].disorganized
    assert rec.state.combat is None
    # 6.4.5: the target cannot be attacked directly in this Combat Phase
    r = reject(rec, "attack g-a -> 0505")
    assert r.rule == "6.4.5"
    assert reject(rec, "fire g-gun1 -> 0505").rule == "6.1.4"
    assert replays(rec)


def test_6_4_3_6_4_2_range_setup_and_phase() -> None:
    rec = play(scenario(fire_units(ff=True), start=GERMAN_COMBAT))
    assert reject(rec, "fire g-next -> 0505").rule == "6.4.3"
    assert reject(rec, "fire g-far -> 0505").rule == "6.4.2"
    assert reject(rec, "fire g-gun1 -> 0606").rule == "6.4.1"  # nobody there
    assert reject(rec, "fire g-a -> 0505").rule == "6.1.1"
    assert reject(rec, "soviet: fire s-a -> 0705").rule == "2.1.2"  # R21: not in the enemy phase


def test_6_1_3_only_combat_setup_fires() -> None:
    units = [*fire_units(ff=True), {"id": "g-tr", "hex": "0704", **GUN, "setup": "transport"}]
    rec = play(scenario(units, start=GERMAN_COMBAT))
    assert reject(rec, "fire g-tr -> 0505").rule == "6.1.3"


def test_r7_k51_no_effect_at_0_sps_after_terrain_but_the_fire_is_spent() -> None:
    setup = scenario(fire_units(ff=True), start=GERMAN_COMBAT, terrain={"0505": "forest"})
    rec = play(setup, "fire g-tiny -> 0505", dice=(1, 1))
    f = last(rec, "fire_resolved")
    assert f["used"] == 0 and f["result"] is None and "R7" in f["explanation"][-1]
    assert rec.state.units["s-a"].cel == 2 and not rec.state.pending
    assert reject(rec, "attack g-a -> 0505").rule == "6.4.5"
    assert reject(rec, "fire g-tiny -> 0505").rule == "6.1.4"


def test_6_4_5_k26_k51_units_that_must_be_attacked_cannot_be_fired_at() -> None:
    rec = play(scenario(fire_units(), start=GERMAN_COMBAT))  # g-a is in their ZoC, not in FF
    r = reject(rec, "fire g-gun1 -> 0505")
    assert r.rule == "6.4.5" and "must be attacked" in r.message


def test_6_4_7_k52_fire_at_a_bridge_on_the_attack_on_objects_table() -> None:
    units = [
        {"id": "g-gun", "hex": "0604", **GUN},  # next to 0504: allowed for objects
        {"id": "g-a", "hex": "0908"},
        {"id": "s-a", "hex": "0404"},
    ]
    setup = scenario(
        units,
        start=GERMAN_COMBAT,
        hexsides=[{"hexes": ["0404", "0504"], "feature": "river"}],
        bridges=[["0404", "0504"]],
    )
    rec = play(setup)
    assert reject(rec, "fire g-gun -> 0505/0506").rule == "14.1.2"
    assert reject(rec, "fire g-gun -> 0404/0606").rule == "14.1.1"
    # 4 SPs, no terrain: row 3-5, roll 2 = "D": destroyed
    rec = play(setup, "fire g-gun -> 404/504", dice=(1, 1))
    f = last(rec, "fire_resolved")
    assert (f["mode"], f["target"], f["result"], f["table"]) == (
        "object",
        "0404/0504",
        "D",
        "attack_on_objects",
    )
    assert rec.state.bridges == {"0404/0504": "destroyed"}
    b = last(rec, "bridge_destroyed")
    assert (b["rule"], b["side"]) == ("6.4.7", "german")
    rec = play(setup, "fire g-gun -> 0404/0504", dice=(3, 4))  # roll 7: "-"
    assert rec.state.bridges == {} and last(rec, "fire_resolved")["result"] == "-"
    assert reject(rec, "fire g-gun -> 0404/0504").rule == "6.1.4"
    assert replays(rec)


# --- 6.5 barrage ---------------------------------------------------------------------------------


def barrage_units() -> list[dict[str, Any]]:
    return [
        {"id": "s-a", "hex": "0505", "sp": 2, "cel": 2, "ff": True},
        *({"id": f"g-b{i}", "hex": h, **GUN} for i, h in enumerate(("0705", "0706", "0704"))),
        {"id": "g-sp", "hex": "0805", "type": "sp-art", "sp": [4, 2], "mp": 6},
        *({"id": f"g-c{i}", "hex": h, **GUN} for i, h in enumerate(("0803", "0804", "0806"))),
        {"id": "g-inf", "hex": "0604", "sp": 4, "ff": True},
    ]


def barrage_setup(barrage: Any):  # type: ignore[no-untyped-def]
    return scenario(barrage_units(), start=GERMAN_BARRAGE, barrage=barrage)


def advance_to(rec: GameRecord, kind: str, side: str, turn: int) -> None:
    """Say `done` for whoever is awaited until the given phase is reached."""
    for _ in range(40):
        ph = current_phase(rec.state)
        awaited = awaited_sides(rec.state)
        if rec.state.turn == turn and ph.kind == kind and awaited == [side]:
            return
        answer(rec, f"{awaited[0]}: done")
    raise AssertionError(f"never reached {side}'s {kind} phase of turn {turn}")


def test_6_5_k53_barrage_doubles_the_sps_needs_2_units_and_spends_aus() -> None:
    setup = barrage_setup({"turns": [1, 2], "ammo": {"german": 3}})
    assert (setup.barrage, setup.barrage_turns, setup.ammo) == (True, (1, 2), {"german": 3})
    rec = play(setup)
    assert current_phase(rec.state).kind == "barrage"
    assert reject(rec, "barrage g-b0 -> 0505").rule == "6.5.4"
    assert reject(rec, "barrage g-b0 g-b1 g-b2 g-sp -> 0505").rule == "6.5.7"
    assert reject(rec, "fire g-b0 g-b1 -> 0505").rule == "6.1.4"  # not in a barrage phase
    # 2 x 4 SPs doubled = 16, FF is no terrain: row 13-16, roll 7 = "-"; roll 8 = "•"
    rec = play(setup, "barrage g-b0 g-sp -> 0505", dice=(4, 4, 6, 6))
    f = last(rec, "fire_resolved")
    assert (f["mode"], f["sp"], f["used"], f["result"]) == ("barrage", 16, 16, "•")
    assert "doubled 8 (6.5.3)" in f["sources"][0]["why"]
    assert rec.state.ammo_used == {"german": 2}
    assert artillery.ammo_left(rec.state, "german") == 1
    assert reject(rec, "barrage g-b0 g-b1 -> 0505").rule == "6.1.4"  # once per phase
    assert reject(rec, "barrage g-b1 g-b2 -> 0505").rule == "6.5.7"  # 1 AU left
    assert replays(rec)


def test_6_5_5_6_5_6_k53_barrage_units_do_not_move_then_nor_support_twice() -> None:
    units = [*barrage_units(), {"id": "s-gun", "hex": "0403", **GUN}]  # a Soviet Combat Phase
    setup = scenario(units, start=GERMAN_BARRAGE, barrage=True)  # every turn, no AU limit
    rec = play(setup, "barrage g-b0 g-sp -> 0505", dice=(3, 4))
    advance_to(rec, "movement", "german", 1)
    assert reject(rec, "move g-sp 0905").rule == "6.5.5"
    advance_to(rec, "combat", "german", 1)
    r = reject(rec, "attack g-inf -> 0505 support g-sp")
    assert r.rule == "6.5.6"
    answer(rec, "attack g-inf -> 0505 support g-b1")
    while rec.state.pending:
        d = rec.state.pending[0]
        rec.submit(d.side, candidate_orders(rec.state, d.side)[0])
    bans = []
    for turn, kind, side in ((2, "combat", "soviet"), (2, "combat", "german")):
        advance_to(rec, kind, side, turn)
        bans.append(artillery.barrage_ban(rec.state, rec.state.units["g-sp"]))
    assert bans == [True, False]  # the enemy's Combat Phase is the second (6.5.6)
    assert replays(rec)


def test_e22_k53_8_aus_3_in_turn_1_and_5_in_turn_2_then_no_more_barrage() -> None:
    setup = barrage_setup({"turns": [1, 2], "ammo": {"german": 8}})
    rec = play(setup, "barrage g-b0 g-b1 g-b2 -> 0505", dice=(3, 4))
    assert rec.state.ammo_used == {"german": 3}
    advance_to(rec, "barrage", "german", 2)
    answer(rec, "barrage g-sp g-c0 g-c1 g-c2 g-b0 -> 0505")
    assert rec.state.ammo_used == {"german": 8}
    answer(rec, "german: done")
    for _ in range(40):
        if rec.state.turn == 3 and rec.state.phase >= 7:
            break
        answer(rec, f"{awaited_sides(rec.state)[0]}: done")
    skipped = [e.data for e in events(rec, "phase_skipped") if e.data["phase"] == "barrage"]
    assert any("turn 3 (6.5.1)" in s["reason"] for s in skipped)
    # the Soviets have no AUs at all: their barrage phases are skipped (6.5.7)
    assert any("soviet has no Ammo Units" in s["reason"] for s in skipped)


def test_6_5_1_barrage_only_where_the_scenario_allows_it() -> None:
    units = [*barrage_units()]
    rec = play(scenario(units, start=GERMAN_COMBAT))
    skipped = [e.data["reason"] for e in rec.events if e.kind == "phase_skipped"]
    assert not any("(6.5.1)" in s for s in skipped)
    setup = scenario(units, start={"turn": 1, "phase": "barrage", "active": "german"})
    rec = play(setup)
    assert current_phase(rec.state).kind != "barrage"  # skipped: the scenario does not allow it


def test_6_5_k53_scenario_barrage_keys_are_checked() -> None:
    base: dict[str, Any] = {
        "id": "t",
        "system": "wb95",
        "game": "korsun",
        "initiative": "soviet",
        "turns": 3,
        "map": {"cols": [1, 4], "rows": [1, 4]},
        "sides": {"soviet": {}, "german": {}},
        "units": [],
    }
    with pytest.raises(ScenarioError, match=r"barrage\.ammo"):
        load_scenario_data({**base, "barrage": {"ammo": {"italian": 3}}}, name="t")
    with pytest.raises(ScenarioError, match=r"barrage\.turns"):
        load_scenario_data({**base, "barrage": {"turns": [4]}}, name="t")
    s = load_scenario_data({**base, "barrage": True}, name="t")
    assert (s.barrage, s.barrage_turns, s.ammo) == (True, (), None)
    s = load_scenario_data({**base, "barrage": {"ammo": {"soviet": 5}}}, name="t")
    assert (s.barrage, s.barrage_turns, s.ammo) == (True, (), {"soviet": 5})


# --- 6.1.7 overrunning towed artillery (E19) ---------------------------------------------------


def overrun_units(**gun: Any) -> list[dict[str, Any]]:
    return [
        {"id": "s-a", "hex": "0203", "mp": 6},
        {"id": "s-slow", "hex": "0204", "mp": 4},
        {"id": "s-hq", "hex": "0202", "type": "hq", "mp": 10},
        *({"id": f"g-art{i}", "hex": "0303", **GUN, **gun} for i in range(3)),
        {"id": "g-x", "hex": "0908"},
    ]


def test_e19_6_1_7_k49_three_guns_cost_3_mps_more_4_if_fortified() -> None:
    setup = scenario(overrun_units())
    rec = play(setup)
    assert legal_moves(rec.state, "s-a")["0303"].cost == Fraction(3, 2) + 3
    assert "0303" not in legal_moves(rec.state, "s-slow")  # 4.5 MPs > 4: R13 does not cap it
    assert reject(rec, "move s-slow 0303").rule == "3.1.5"
    r = reject(rec, "move s-hq 0303")
    assert r.rule == "6.1.7" and "only a regular unit" in r.message
    rec = play(setup, "move s-a 0303 0403")  # the unit goes on afterwards (no forced stop)
    assert all(rec.state.units[f"g-art{i}"].eliminated for i in range(3))
    assert [e.data["rule"] for e in events(rec, "unit_eliminated")] == ["6.1.7"] * 3
    assert rec.state.units["s-a"].hex == "0403"
    assert last(rec, "moved")["cost"] == "6"  # 1.5 + 3 + 1.5
    fortified = play(scenario(overrun_units(ff=True)))
    assert legal_moves(fortified.state, "s-a")["0303"].cost == Fraction(3, 2) + 4
    assert replays(rec)


def test_6_1_7_k49_an_hq_with_guns_only_falls_with_them() -> None:
    units = [
        {"id": "s-a", "hex": "0203"},
        {"id": "g-hq", "hex": "0303", "type": "hq", "mp": 10},
        {"id": "g-art", "hex": "0303", **GUN, "setup": "transport"},
    ]
    rec = play(scenario(units), "move s-a 0303")
    assert rec.state.units["g-hq"].eliminated and rec.state.units["g-art"].eliminated
    assert last(rec, "moved")["cost"] == "5/2"  # 1.5 + 1 gun
    assert [x["unit"] for x in rec.state.hq_losses] == ["g-hq"]  # 9.1.6
    assert replays(rec)


# --- 13.1.5, 7.3.2: organic artillery and fixed positions ------------------------------------


def test_13_1_5_k50_supporting_organic_artillery_counts_for_concentration() -> None:
    units = [
        {"id": "g-1", "hex": "0604", "sp": 4, "formation": "11PzD"},
        {"id": "g-2", "hex": "0605", "sp": 4, "formation": "11PzD"},
        {"id": "g-art", "hex": "0805", **GUN, "formation": "11PzD"},
        {"id": "s-a", "hex": "0505", "sp": 6},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-1 g-2 -> 0505 support g-art", dice=(3, 4))
    text = "\n".join(last(rec, "combat_resolved")["explanation"])
    assert "tactical concentration: 3 units of 11PzD" in text
    rec = play(setup, "attack g-1 g-2 -> 0505", dice=(3, 4))
    assert "tactical concentration" not in "\n".join(last(rec, "combat_resolved")["explanation"])


def test_7_3_2_k46_supporting_sps_are_halved_against_a_fixed_position() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "g-art", "hex": "0705", **GUN},
        {"id": "s-a", "hex": "0505", "sp": 2},
    ]
    setup = scenario(
        units,
        start=GERMAN_COMBAT,
        hexsides=[{"hexes": ["0604", "0505"], "feature": "fixed-position"}],
    )
    rec = play(setup, "attack g-a -> 0505 support g-art", dice=(3, 4))
    c = last(rec, "combat_resolved")
    assert c["attack_sp"] == 6
    assert any("12 SPs attacking through the fixed position count 6" in x for x in c["explanation"])


# --- notation, choices ------------------------------------------------------------------------


def test_notation_defend_support_and_fire_at_a_bridge() -> None:
    d = parse_order("soviet: defend support s-art @0505")
    assert d == Defend(support=("s-art", "@0505"), side="soviet", line=1)
    assert format_order(d) == "soviet: defend support s-art @0505"  # type: ignore[arg-type]
    d = parse_order("defend stars s-1 cms 1 support s-art")
    assert isinstance(d, Defend) and d.stars == ("s-1",) and d.support == ("s-art",)
    f = parse_order("fire g-art7 -> 1618/1619")
    assert f == Fire(("g-art7",), "1618/1619", line=1)
    assert parse_order("fire g-1 -> 618/619") == Fire(("g-1",), "0618/0619", line=1)
    assert format_order(Fire(("g-1",), "0618/0619")) == "fire g-1 -> 0618/0619"
    with pytest.raises(NotationError, match="not a hexside"):
        parse_order("fire g-1 -> 1618/1618")
    with pytest.raises(NotationError, match="extra words after the hexside"):
        parse_order("fire g-1 -> 1618/1619 1620")
    with pytest.raises(NotationError, match="'support' is not followed"):
        parse_order("defend support")


def test_choices_offer_setup_fire_support_and_barrage() -> None:
    units = [
        {"id": "s-gun", "hex": "0203", **GUN},
        {"id": "g-a", "hex": "0908"},
    ]
    rec = play(scenario(units))
    assert SetupChange(units=("s-gun",), mode="transport") in candidate_orders(rec.state, "soviet")
    rec = play(scenario(fire_units(ff=True), start=GERMAN_COMBAT))
    opts = candidate_orders(rec.state, "german")
    assert any(isinstance(x, Fire) for x in opts)
    assert any(getattr(x, "support", ()) for x in opts)
    rec = play(barrage_setup(True))
    assert any(isinstance(x, Barrage) for x in candidate_orders(rec.state, "german"))
    setup = scenario(e23_units(extra_regular=True), start=SOVIET_COMBAT)
    rec = play(setup, "attack s-a -> 0504 0505")
    assert Defend(support=("g-art1", "g-art2")) in candidate_orders(rec.state, "german")


def test_6_3_5_k48_supporting_guns_that_cannot_retreat_are_left_to_the_enemy() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 4},
        {"id": "g-near", "hex": "0605", **GUN},
        {"id": "s-a", "hex": "0505", "sp": 8},
    ]
    # 8 vs 8 = 1:1, roll 10: "A1 / -"
    rec = play(
        scenario(units, start=GERMAN_COMBAT), "attack g-a -> 0505 support g-near", dice=(4, 6)
    )
    assert last(rec, "combat_resolved")["result"] == "A1 / -"
    (d,) = rec.state.pending
    assert list(d.options["paths"]) == ["g-a"]
    answer(rec, f"german: retreat g-a {d.options['paths']['g-a'][0][0]}")
    assert not events(rec, "cel_lost")  # the gun's standing still costs nothing (K48)
    (p,) = rec.state.pending
    assert p.side == "soviet" and p.options["first"] == ["0604", "0605"]
    answer(rec, "soviet: pursue s-a 0605")
    assert rec.state.units["g-near"].eliminated
    assert replays(rec)


def test_6_2_4_k99_lone_towed_guns_pay_every_hex_of_a_retreat_in_cels() -> None:
    """Issue #16: two guns in combat setup, alone, take D2. They cannot retreat (6.2.3),
    so each hex not retreated costs a CEL (5.3.7; 6.2.4: they "must suffer losses"),
    before any pursuit: the attacker need not enter to destroy them."""
    units = [
        {"id": "g-a", "hex": "0604", "sp": 2},
        {"id": "s-gun1", "hex": "0505", **GUN, "setup": "combat"},
        {"id": "s-gun2", "hex": "0505", **GUN, "setup": "combat"},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a -> 0505", dice=(3, 3))  # 2:1 (6.6.3: 1 SP), roll 6
    assert last(rec, "combat_resolved")["result"] == "- / D2"
    assert {e.data["unit"] for e in events(rec, "cel_lost")} == {"s-gun1", "s-gun2"}
    assert all(e.data["rule"] == "5.3.7" for e in events(rec, "cel_lost"))
    assert rec.state.units["s-gun1"].eliminated and rec.state.units["s-gun2"].eliminated
    answer(rec, "german: pass")  # declining the pursuit saves nothing
    assert replays(rec)
    rec = play(setup, "attack g-a -> 0505", dice=(4, 3))  # roll 7: "- / D1"
    (d,) = rec.state.pending  # one CEL: the owner chooses which gun (5.1.8)
    assert (d.kind, d.options["count"], d.options["units"]) == (
        "losses",
        1,
        {"s-gun1": 1, "s-gun2": 1},
    )
