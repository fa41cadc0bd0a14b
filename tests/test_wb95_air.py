"""8.0 Air units (and Kursk 21.0): air strength, the sealed Air Phase, air battles and the
missions, with the worked examples E26-E31 and the project's rulings (K71-K78)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest
from conftest import play, reject, scenario

from engine.core import Applied
from engine.model import Setup
from engine.notation import format_order, parse_order
from engine.orders import Air
from engine.record import GameRecord
from engine.view import view, visible_events
from engine.wb95 import flow
from engine.wb95.choices import candidate_orders
from engine.wb95.game import legal_actions
from engine.wb95.sequence import PHASES
from scenarios import ScenarioError

A_PHASE = {"turn": 1, "phase": "air", "active": "soviet"}


def air_game(
    units: list[dict[str, Any]],
    air: dict[str, Any],
    *,
    initiative: str = "soviet",
    game: str = "korsun",
    **kw: Any,
) -> Setup:
    """A test map that starts in the first Air Phase, `initiative` being player A."""
    return scenario(
        units,
        game=game,
        initiative=initiative,
        start={"turn": 1, "phase": "air", "active": initiative},
        air=air,
        **kw,
    )


def replays(rec: GameRecord) -> bool:
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def kinds(rec: GameRecord) -> list[str]:
    return [e.kind for e in rec.events]


def last(rec: GameRecord, kind: str) -> dict[str, Any]:
    return next(e.data for e in reversed(rec.events) if e.kind == kind)


def phase(rec: GameRecord) -> tuple[int, str]:
    ph = PHASES[rec.state.phase]
    return (ph.number, ph.kind)


def mission(rec: GameRecord, mid: str) -> dict[str, Any]:
    return next(m for m in rec.state.air_missions if m["id"] == mid)


# --- notation ------------------------------------------------------------------------------


def test_8_2_8_the_air_order_names_a_bridge_by_its_hexside() -> None:
    order = parse_order("german: air 4 object 1618/1619")
    assert order == Air("object", "1618/1619", amount=4, side="german", line=1)
    assert format_order(Air("object", "1618/1619", amount=4)) == "air 4 object 1618/1619"
    assert parse_order("air g-air1 Defensive 619") == Air(
        "defensive", "0619", counter="g-air1", line=1
    )


# --- air strength (8.1.1, E26) -------------------------------------------------------------


def test_8_1_1_an_sp_pool_per_turn_by_turn_or_date() -> None:
    setup = air_game(
        [{"id": "s-a", "hex": "0303"}],
        {
            "soviet": 6,
            "german": {"sp": {"1944-01-24": 4, "1944-01-25": 2}, "forbid": ["disorganise"]},
        },
        calendar={"start": "1944-01-24"},
    )
    g, s = setup.air_sides["german"], setup.air_sides["soviet"]
    assert (g.pool(1), g.pool(2), g.pool(3), s.pool(1), s.pool(3)) == (4, 2, 0, 6, 6)
    assert g.forbid == frozenset({"disorganize"})
    assert setup.air == {
        "soviet": 6,
        "german": {"sp": {"1944-01-24": 4, "1944-01-25": 2}, "forbid": ["disorganise"]},
    }


def test_e26_8_1_1_counters_without_printed_strength_are_5_sps_soviet_4() -> None:
    setup = air_game(
        [{"id": "s-a", "hex": "0303"}],
        {
            "german": {
                "counters": [{"id": "g-stuka", "sp": 8, "stars": ["white"]}, {"id": "g-ju88"}],
                "fly": 2,
            },
            "soviet": {"counters": 2},
        },
        game="kursk",
    )
    g, s = setup.air_sides["german"], setup.air_sides["soviet"]
    assert [(c.id, c.sp, c.stars, c.printed) for c in g.counters] == [
        ("g-stuka", 8, ("white",), True),
        ("g-ju88", 5, (), False),
    ]
    assert [(c.id, c.sp) for c in s.counters] == [("s-air1", 4), ("s-air2", 4)]
    assert g.fly == 2 and g.pool(1) == 0


@pytest.mark.parametrize(
    ("air", "key", "text"),
    [
        ({"german": {"sp": 4, "counters": 2}}, "air.german", "not both"),
        ({"german": {"sp": 4, "forbid": ["parachutes"]}}, "air.german.forbid[0]", "unknown air"),
        ({"italian": 4}, "air.italian", "unknown side"),
        ({"german": {"counters": [{"id": "s-a"}]}}, "air.german.counters", "also a unit id"),
        ({"german": {"sp": 4, "last": 0}}, "air.german.last", "numbered from 1"),
    ],
)
def test_8_1_1_bad_air_keys_are_named(air: dict[str, Any], key: str, text: str) -> None:
    with pytest.raises(ScenarioError) as e:
        air_game([{"id": "s-a", "hex": "0303"}], air)
    assert key in str(e.value) and text in str(e.value)


def test_2_1_4_k13_an_air_phase_without_air_strength_is_skipped() -> None:
    units = [{"id": "s-a", "hex": "0303"}, {"id": "g-a", "hex": "0808"}]
    rec = play(air_game(units, {"german": {"sp": {2: 4}}}))
    skipped = next(e.data for e in rec.events if e.kind == "phase_skipped")
    assert skipped["phase"] == "air" and "no side has air strength" in skipped["reason"]
    assert phase(rec) == (3, "movement")
    # in turn 2 the Germans have 4 SPs: the Air Phase is played
    rec = play(air_game(units, {"german": {"sp": 4, "first": 2}}))
    assert phase(rec) == (3, "movement")
    rec = play(rec.setup, "soviet: done", "german: done")
    assert (rec.state.turn, phase(rec)) == (2, (1, "air"))


# --- the Air Phase: sealed, then revealed together (8.1.7) ---------------------------------

DUEL = [
    {"id": "s-a", "hex": "0303"},
    {"id": "s-b", "hex": "0307"},
    {"id": "g-a", "hex": "0606"},
    {"id": "g-b", "hex": "0803"},
]


def test_8_1_7_k27_missions_are_sealed_until_both_sides_are_done() -> None:
    setup = air_game(DUEL, {"soviet": 6, "german": 4})
    rec = play(setup, "german: air 4 attack 0307")
    sub = rec.events[-1]
    assert sub.kind == "sealed_submitted" and sub.data["item"]["target"] == "0307"
    seen = visible_events(rec.events, "soviet")[-1]
    assert seen.data["sealed"] and "0307" not in repr(seen.data)
    assert view(rec.state, "soviet").sealed == () and view(rec.state, "soviet").air == ()
    assert view(rec.state, "german").air_left == {"german": {"sp": 0, "counters": []}}
    assert view(rec.state, "soviet").air_left == {"soviet": {"sp": 6, "counters": []}}
    rec = play(setup, "german: air 4 attack 0307", "german: done", "soviet: air 2 attack 0803")
    assert "revealed" not in kinds(rec)
    assert "german has said done" in reject(rec, "german: air 1 attack 0307").message
    rec = play(
        setup,
        "german: air 4 attack 0307",
        "german: done",
        "soviet: air 2 attack 0803",
        "soviet: done",
        dice=(3, 4, 3, 4),
    )
    rev = last(rec, "revealed")
    assert rev["reason"] == "every side has submitted"
    flown = last(rec, "air_missions_flown")["missions"]
    assert [(m["side"], m["mission"], m["target"], m["sp"]) for m in flown] == [
        ("german", "attack", "0307", 4),
        ("soviet", "attack", "0803", 2),
    ]
    assert len(view(rec.state, "spectator").air) == 2
    assert phase(rec) == (3, "movement")  # flown at once, then the phase ended
    assert replays(rec)


def test_8_1_2_air_orders_only_in_an_air_phase_and_not_after_done() -> None:
    setup = air_game(DUEL, {"soviet": 6, "german": 4})
    rec = play(setup, "german: done")
    assert reject(rec, "german: air 4 attack 0307").rule == "8.1.7"
    rec = play(setup, "german: done", "soviet: done")
    r = reject(rec, "soviet: air 4 attack 0606")
    assert r.rule == "8.1.2" and "Air Phase" in r.message


def test_8_1_1_8_1_5_an_sp_pool_is_spent_over_the_turn() -> None:
    setup = air_game(DUEL, {"german": 6})
    rec = play(setup, "german: air 4 attack 0307")
    assert "2 air SPs left" in reject(rec, "german: air 3 attack 0303").message
    assert reject(rec, "german: air g-air1 attack 0303").rule == "8.1.1"
    rec = play(
        setup,
        "german: air 4 attack 0307",
        "german: done",
        "soviet: done",  # Soviet Movement Phase
        dice=(3, 4),
    )
    assert phase(rec) == (7, "air")  # 2 SPs are left for the second Air Phase
    r = reject(rec, "german: air 3 attack 0303")
    assert "2 air SPs left this turn (of 6)" in r.message
    rec.submit(None, parse_order("german: air 2 attack 0303"))  # type: ignore[arg-type]
    assert rec.state.sealed


def test_8_1_3_8_1_5_21_1_2_counters_fly_once_a_turn_two_per_hex() -> None:
    setup = air_game(
        DUEL,
        {"german": {"counters": [{"id": "g-1"}, {"id": "g-2"}, {"id": "g-3"}], "fly": 3}},
        game="kursk",
    )
    rec = play(setup, "german: air g-1 attack 0307", "german: air g-2 attack 0307")
    assert reject(rec, "german: air g-1 attack 0303").rule == "8.1.3"
    r = reject(rec, "german: air g-3 attack 0307")
    assert (r.rule, r.ruling) == ("21.1.2", "K78")
    assert reject(rec, "german: air 4 attack 0303").rule == "8.1.1"  # name a counter
    assert reject(rec, "german: air g-9 attack 0303").rule == "8.1.1"
    play(
        setup,
        "german: air g-1 attack 0307",
        "german: air g-2 attack 0307",
        "german: air g-3 attack 0303",
    )
    setup2 = air_game(DUEL, {"german": {"counters": 3, "fly": 2}}, game="kursk")
    rec = play(setup2, "german: air g-air1 attack 0307", "german: air g-air2 attack 0303")
    r = reject(rec, "german: air g-air3 attack 0303")
    assert "at most 2 air counter" in r.message and r.ruling == "K78"


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("german: air 4 attack 0304", "8.2.6"),  # no enemy unit there
        ("german: air 4 support-attack 0606", "8.2.2, R16"),  # own units
        ("german: air 4 support-defence 0307", "8.2.4, R16"),  # not its units
        ("german: air 4 attack 1212", "1.1"),
        ("german: air 4 parachute 0307", "8.2.1"),
        ("german: air 3 object 0303/0304", "8.2.8"),  # no bridge
        ("german: air 4 object 0303", "8.2.8"),
        ("german: air 4 river 0303", "8.2.17, 8.2.20"),
        ("german: air 4 supply 0606", "8.2.23"),
        ("german: air 3 disorganize 0303", "8.2.15"),  # Korsun: at most 2 SPs a hex
    ],
)
def test_8_2_missions_are_checked_as_they_are_given(line: str, rule: str) -> None:
    rec = play(air_game(DUEL, {"german": 8, "soviet": 8}))
    assert reject(rec, line).rule == rule


def test_8_2_5_soviet_air_flies_no_defensive_support() -> None:
    rec = play(air_game(DUEL, {"german": 8, "soviet": 8}))
    r = reject(rec, "soviet: air 4 support-defence 0303")
    assert r.rule == "8.2.5" and "soviet air cannot fly defensive support" in r.message


def test_korsun_scenario_german_air_may_not_disorganize_movement() -> None:
    rec = play(air_game(DUEL, {"german": {"sp": 8, "forbid": ["disorganize"]}}))
    r = reject(rec, "german: air 1 disorganize 0304")
    assert "forbids german air the movement disorganization" in r.message
    assert r.rule == "8.2.11"


# --- air battles (8.1.8, 8.1.9, R16) -------------------------------------------------------


def test_8_1_8_r16_opposing_missions_next_to_each_other_fight_an_air_battle() -> None:
    units = [
        {"id": "s-a", "hex": "0404"},
        {"id": "g-a", "hex": "0405"},
        {"id": "g-b", "hex": "0808"},
    ]
    setup = air_game(units, {"soviet": 3, "german": 4})
    lines = ["soviet: air 3 attack 0405", "german: air 4 support-defence 0405"]
    # Soviet 3 + 2 = 5 against German 4 + 1 = 5: a tie, rolled again; 3 + 4 = 7 beats 4 + 2
    rec = play(setup, *lines, "soviet: done", "german: done", dice=(2, 1, 4, 2, 3, 4))
    b = last(rec, "air_battle")
    assert b["rolls"] == [{"soviet": 2, "german": 1}, {"soviet": 4, "german": 2}]
    assert (b["winner"], b["loser"], b["totals"]) == (
        "soviet",
        "german",
        {"soviet": 7, "german": 6},
    )
    german = next(m for m in rec.state.air_missions if m["side"] == "german")
    assert german["status"] == "aborted" and b["aborted"] == [german["id"]]
    fired = last(rec, "fire_resolved")  # the winner flies its mission
    assert fired["mode"] == "air" and fired["side"] == "soviet" and fired["dice"] == [3, 4]
    assert replays(rec)


def test_r16_air_battles_chain_through_opposing_missions_and_skip_distant_ones() -> None:
    units = [
        {"id": "s-a", "hex": "0707"},
        {"id": "g-a", "hex": "0203"},
        {"id": "g-b", "hex": "0808"},
    ]
    setup = air_game(units, {"soviet": 3, "german": 4})
    lines = [
        "soviet: air 3 attack 0203",
        "german: air 1 disorganize 0202",  # next to 0203
        "german: air 1 disorganize 0204",  # next to 0203, not to 0202
        "german: air 1 disorganize 0208",  # far away: no battle
    ]
    rec = play(setup, *lines, "soviet: done", "german: done", dice=(6, 1, 1, 1))
    b = last(rec, "air_battle")
    assert b["hexes"] == ["0202", "0203", "0204"] and b["sp"] == {"soviet": 3, "german": 2}
    assert b["loser"] == "german" and len(b["aborted"]) == 2
    far = next(m for m in rec.state.air_missions if m["target"] == "0208")
    assert far["status"] == "flying"
    assert kinds(rec).count("air_battle") == 1


def test_8_1_9_a_counter_that_lost_an_air_battle_cannot_fly_again_that_turn() -> None:
    units = [{"id": "s-a", "hex": "0404"}, {"id": "g-a", "hex": "0406"}]
    setup = air_game(
        units,
        {"soviet": {"counters": 2}, "german": {"counters": [{"id": "g-1", "sp": 9}]}},
        game="kursk",
    )
    lines = ["soviet: air s-air1 attack 0406", "german: air g-1 disorganize 0405"]
    rec = play(setup, *lines, "soviet: done", "german: done", "soviet: done", dice=(1, 1))
    assert last(rec, "air_battle")["aborted"] == ["s-air1"]
    assert phase(rec) == (7, "air")
    r = reject(rec, "soviet: air s-air1 attack 0406")
    assert r.rule == "8.1.9"
    assert rec.state.air_used["soviet"]["aborted"] == ["s-air1"]
    assert reject(rec, "german: air g-1 attack 0404").rule == "8.1.5"
    rec.submit(None, parse_order("soviet: air s-air2 attack 0406"))  # type: ignore[arg-type]
    assert rec.state.sealed


# --- support (8.2.2-8.2.5, R16) -----------------------------------------------------------

FRONT = [{"id": "s-a", "hex": "0404"}, {"id": "g-a", "hex": "0405"}]


def test_8_2_2_r16_offensive_support_joins_the_attack_on_its_hex() -> None:
    setup = air_game(FRONT, {"german": 4}, initiative="german")
    rec = play(
        setup,
        "german: air 4 support-attack 0404",
        "german: done",
        "german: done",  # German Movement Phase
        "german: attack g-a -> 0404",
        dice=(3, 4),
    )
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["defence_sp"], c["initial"]) == (8, 4, "2:1")
    line = c["support"]["attacker"][0]
    assert (line["kind"], line["sp"], line["rule"]) == ("air", 4, "8.2.2, R16")
    assert rec.state.air_missions[0]["status"] == "spent"
    assert replays(rec)


def test_r16_naming_air_in_the_attack_checks_it_is_over_the_defending_hex() -> None:
    setup = air_game(FRONT, {"german": 4}, initiative="german")
    rec = play(setup, "german: air 4 support-attack 0404", "german: done", "german: done")
    mid = rec.state.air_missions[0]["id"]
    r = reject(rec, "german: attack g-a -> 0404 air g-air9")
    assert r.ruling == "R16" and "g-air9" in r.message
    rec.submit(None, parse_order(f"german: attack g-a -> 0404 air {mid}"))  # type: ignore[arg-type]
    assert last(rec, "combat_resolved")["attack_sp"] == 8


def test_e27_8_2_4_r5_defensive_support_adds_half_the_total_rounded_up() -> None:
    setup = air_game(FRONT, {"german": 13})
    rec = play(
        setup,
        "german: air 6 support-defence 0405",
        "german: air 7 support-defence 0405",
        "soviet: done",
        "german: done",
        "soviet: done",  # Soviet Movement Phase
        "soviet: attack s-a -> 0405",
        dice=(3, 4),
    )
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["defence_sp"]) == (4, 4 + 7)  # 13 SPs add 7 (E27)
    line = c["support"]["defender"][0]
    assert (line["kind"], line["sp"]) == ("air", 7) and "13 SPs, half 7" in line["why"]
    assert all(m["status"] == "spent" for m in rec.state.air_missions)
    assert replays(rec)


def test_8_2_3_offensive_support_joins_a_ranged_attack_on_its_hex() -> None:
    units = [
        {"id": "s-a", "hex": "0404"},
        {"id": "g-art", "type": "art", "sp": [6, 3], "hex": "0406"},
        {"id": "g-a", "hex": "0808"},
    ]
    setup = air_game(units, {"german": 4}, initiative="german")
    rec = play(
        setup,
        "german: air 4 support-attack 0404",
        "german: done",
        "german: done",
        "german: fire g-art -> 0404",
        dice=(3, 4),
    )
    f = last(rec, "fire_resolved")
    assert f["mode"] == "ranged" and f["sp"] == 10
    assert [s["kind"] for s in f["sources"]] == ["artillery", "air"]
    assert rec.state.air_missions[0]["status"] == "spent"
    assert replays(rec)


# --- air attacks (8.2.6, 8.2.7, E28) and objects (8.2.8-8.2.10) -------------------------


def test_e28_8_2_7_air_attack_less_twice_the_terrain_cms_losses_by_the_owner() -> None:
    units = [
        {"id": "s-a", "hex": "0405"},
        {"id": "s-b", "hex": "0405"},
        {"id": "g-a", "hex": "0808"},
    ]
    setup = air_game(units, {"german": 20}, terrain={"0405": "hills"})
    rec = play(setup, "german: air 20 attack 0405", "german: done", dice=(2, 5))
    f = last(rec, "fire_resolved")
    # hills are 1 CM in the Korsun table (the example's "2 CMs" is A-21): 20 - 2 = 18, 17+
    assert (f["sp"], f["terrain_cms"], f["used"], f["roll"], f["result"]) == (20, 1, 18, 7, "-1")
    assert phase(rec) == (1, "air") and rec.state.pending[0].kind == "losses"
    assert rec.state.pending[0].side == "soviet"
    rec.submit(None, parse_order("soviet: losses s-b"))  # type: ignore[arg-type]
    assert rec.state.units["s-b"].cel == 1
    assert phase(rec) == (3, "movement")  # the phase ends once the losses are taken
    assert replays(rec)


def test_r7_an_air_attack_without_sps_left_has_no_effect() -> None:
    units = [{"id": "s-a", "hex": "0405"}, {"id": "g-a", "hex": "0808"}]
    setup = air_game(units, {"german": 2}, terrain={"0405": "forest"})
    rec = play(setup, "german: air 2 attack 0405", "german: done", dice=(6, 6))
    f = last(rec, "fire_resolved")
    assert f["used"] == 0 and f["result"] is None
    assert rec.state.units["s-a"].cel == 2


def test_8_2_8_8_2_10_an_air_attack_on_a_bridge_no_terrain() -> None:
    units = [{"id": "s-a", "hex": "0303"}, {"id": "g-a", "hex": "0808"}]
    setup = air_game(
        units,
        {"german": 8},
        hexsides=[{"hexes": ["0404", "0405"], "feature": "river"}],
        bridges=[["0404", "0405"]],
        terrain={"0404": "forest"},
    )
    rec = play(setup)
    r = reject(rec, "german: air 3 object 0404/0405")
    assert r.rule == "8.2.10" and "at least 4 SPs" in r.message
    rec = play(setup, "german: air 4 object 0405/0404", "german: done", "soviet: done", dice=(1, 2))
    f = last(rec, "fire_resolved")
    assert (f["mode"], f["target"], f["used"], f["result"]) == ("object", "0404/0405", 4, "D")
    assert rec.state.bridges == {"0404/0405": "destroyed"}
    assert last(rec, "bridge_destroyed")["rule"] == "8.2.8"
    assert replays(rec)


# --- supply missions (8.2.23-8.2.26, E31) -----------------------------------------------------


def test_e31_8_2_26_each_successful_supply_mission_lowers_oos_by_one() -> None:
    units = [
        {"id": "g-a", "hex": "0505", "oos": 4},
        {"id": "g-b", "hex": "0505", "oos": 4},
        {"id": "s-a", "hex": "0101"},
    ]
    setup = air_game(units, {"german": {"sp": 21, "supply": True}})
    lines = ["german: air 7 supply 0505"] * 3
    rec = play(setup, *lines, "soviet: done", "german: done", dice=(1, 4, 6))
    assert [e["success"] for e in (x.data for x in rec.events if x.kind == "air_supply")] == [
        True,
        True,
        False,
    ]
    assert rec.state.units["g-a"].oos == 2 == rec.state.units["g-b"].oos
    assert replays(rec)


def test_8_2_23_8_2_24_supply_missions_are_allied_and_need_7_sps() -> None:
    units = [{"id": "g-a", "hex": "0505", "oos": 2}, {"id": "s-a", "hex": "0101"}]
    rec = play(air_game(units, {"german": 14}))
    r = reject(rec, "german: air 7 supply 0505")
    assert (r.rule, r.ruling) == ("8.2.23", "K76")
    rec = play(air_game(units, {"german": {"sp": 14, "supply": True}}))
    assert reject(rec, "german: air 6 supply 0505").rule == "8.2.24"


# --- movement disorganization (8.2.11-8.2.16, E29, E29b) --------------------------------------


def test_e29_8_2_13_8_2_16_korsun_each_sp_costs_an_mp_and_the_start_hex_too() -> None:
    units = [{"id": "s-a", "hex": "0303"}, {"id": "g-a", "hex": "0808"}]
    setup = air_game(units, {"german": 2})
    lines = ["german: air 1 disorganize 0303", "german: air 1 disorganize 0304"]
    rec = play(setup, *lines, "soviet: done", "german: done")
    assert phase(rec) == (3, "movement")
    r = reject(rec, "soviet: move s-a 0303 0304 0305")  # 1.5 + 1 + 1 start, + 1.5 = 5
    assert "needs 5 MP" in r.message
    rec.submit(None, parse_order("soviet: move s-a 0304"))  # type: ignore[arg-type]
    assert last(rec, "moved")["cost"] == "7/2"  # 1.5 + 1 (8.2.13) + 1 (8.2.16)
    assert "air_harassed" not in kinds(rec)  # 1 SP: no loss roll
    assert replays(rec)


def test_e29_8_2_14_korsun_two_sps_on_a_hex_make_a_loss_roll() -> None:
    units = [{"id": "s-a", "hex": "0303", "mp": 6}, {"id": "g-a", "hex": "0808"}]
    setup = air_game(units, {"german": 2})
    rec = play(
        setup,
        "german: air 2 disorganize 0304",
        "soviet: done",
        "german: done",
        "soviet: move s-a 0304 0305",
        dice=(1, 2),
    )
    assert last(rec, "moved")["cost"] == "5"  # 1.5 + 2, then 1.5
    h = last(rec, "air_harassed")
    assert (h["hex"], h["sp"], h["roll"], h["hit"], h["rule"]) == ("0304", 2, 3, True, "8.2.14")
    assert rec.state.units["s-a"].cel == 1
    assert replays(rec)


def test_e29b_kursk_a_mission_of_7_sps_covers_its_hex_and_the_hexes_around() -> None:
    units = [
        {"id": "s-a", "hex": "0402"},
        {"id": "s-b", "hex": "0406"},
        {"id": "g-a", "hex": "0909"},
    ]
    setup = air_game(
        units,
        {"german": {"counters": [{"id": "g-1", "sp": 7}, {"id": "g-2"}]}},
        game="kursk",
        rows=(1, 10),
    )
    rec = play(setup)
    assert reject(rec, "german: air g-2 disorganize 0405").rule == "8.2.12"  # 5 SPs
    rec = play(setup, "german: air g-1 disorganize 0405", "soviet: done", "german: done")
    rec.submit(None, parse_order("soviet: move s-a 0403 0404"))  # type: ignore[arg-type]
    assert last(rec, "moved")["cost"] == "3"  # 1, then 1 + 1 next to 0405
    rec.submit(None, parse_order("soviet: move s-b 0407"))  # type: ignore[arg-type]
    assert last(rec, "moved")["cost"] == "2"  # 1 + 1 lost at the start (8.2.14)
    assert "air_harassed" not in kinds(rec)  # no loss roll in this edition
    assert replays(rec)


def test_8_2_11_only_soviet_movement_is_disorganized() -> None:
    units = [{"id": "s-a", "hex": "0303"}, {"id": "g-a", "hex": "0808"}]
    rec = play(air_game(units, {"soviet": 2, "german": 2}))
    r = reject(rec, "soviet: air 1 disorganize 0707")
    assert r.rule == "8.2.11" and "german has none" in r.message


# --- river crossing attacks (8.2.17-8.2.22, E30) -----------------------------------------------


def _crossable(setup: Setup) -> Setup:
    """The Korsun table with its big river crossable without a bridge, as a game whose big
    rivers may be forded would have it (R24 closes the Dnieper)."""
    t = setup.table
    row = dataclasses.replace(
        t.hexsides["big-river"],
        cost={"foot": Fraction(2), "trucked": Fraction(2), "mechanized": Fraction(2)},
        bridge_only=False,
        no_attack=False,
    )
    table = dataclasses.replace(t, hexsides={**t.hexsides, "big-river": row})
    return dataclasses.replace(setup, table=table)


def test_e30_8_2_18_8_2_20_each_air_attack_on_a_river_crossing_rolls_a_die() -> None:
    units = [
        {"id": "s-a", "hex": "0303", "mp": 6},
        {"id": "s-b", "hex": "0403", "mp": 6},
        {"id": "g-a", "hex": "0808"},
    ]
    setup = _crossable(
        air_game(
            units,
            {"german": 2},
            hexsides=[
                {"hexes": ["0303", "0304"], "feature": "big-river"},
                {"hexes": ["0403", "0404"], "feature": "big-river"},
            ],
            bridges=[["0403", "0404"]],
        )
    )
    rec = play(setup)
    assert reject(rec, "german: air 1 river 0606").rule == "8.2.17, 8.2.20"
    rec = play(
        setup,
        "german: air 1 river 0304",
        "german: air 1 river 0404",
        "soviet: done",
        "german: done",
        "soviet: move s-a 0303 0304",  # straight across
        dice=(6, 2),
    )
    a = last(rec, "air_river_attack")
    assert (a["hex"], a["attacks"], a["dice"], a["hits"]) == ("0304", 2, [6, 2], 1)
    assert rec.state.units["s-a"].cel == 1
    rec.submit(None, parse_order("soviet: move s-b 0403 0404"))  # type: ignore[arg-type]
    assert kinds(rec).count("air_river_attack") == 1  # 8.2.22: by the bridge, no attack
    assert replays(rec)


# --- Kursk white stars (21.1.1, A-34) -----------------------------------------------------------


def test_21_1_1_a_white_star_counter_shifts_a_column_against_mechanized_units() -> None:
    units = [{"id": "s-t", "type": "arm", "hex": "0404"}, {"id": "g-a", "hex": "0405"}]
    setup = air_game(
        units,
        {"german": {"counters": [{"id": "g-w", "sp": 5, "stars": ["white"]}]}},
        initiative="german",
        game="kursk",
    )
    rec = play(
        setup,
        "german: air g-w support-attack 0404",
        "german: done",
        "german: done",
        "german: attack g-a -> 0404",
        dice=(3, 4),
    )
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["initial"], c["column"]) == (9, "2:1", "3:1")
    assert c["support"]["attacker"][0]["cms"] == 1


def test_21_1_1_a_white_star_counter_moves_an_air_attack_one_row_down() -> None:
    units = [{"id": "s-t", "type": "arm", "hex": "0404"}, {"id": "g-a", "hex": "0808"}]
    setup = air_game(
        units,
        {"german": {"counters": [{"id": "g-w", "sp": 5, "stars": ["white"]}]}},
        game="kursk",
    )
    rec = play(setup, "german: air g-w attack 0404", "soviet: done", "german: done", dice=(1, 2))
    f = last(rec, "fire_resolved")
    # 5 SPs read the 3 - 5 row ("-" at 3); one row down, 6 - 8, is "-1"
    assert (f["used"], f["roll"], f["result"]) == (5, 3, "-1")
    assert any("white-star" in line for line in f["explanation"])


# --- how long missions last (K73) and self-play ---------------------------------------


def test_r16_missions_act_until_the_next_air_phase() -> None:
    setup = air_game(DUEL, {"german": 4, "soviet": 4})
    rec = play(
        setup,
        "german: air 4 support-defence 0606",
        "german: done",
        "soviet: done",
        "soviet: done",  # Soviet Movement Phase
    )
    assert phase(rec) == (7, "air")
    assert rec.state.air_missions == [] and "air_missions_ended" in kinds(rec)
    assert replays(rec)


def test_self_play_offers_air_missions_in_the_air_phase() -> None:
    rec = play(air_game(DUEL, {"german": 4, "soviet": {"sp": 4}}))
    orders = candidate_orders(rec.state, "german")
    air = [x for x in orders if isinstance(x, Air)]
    assert air and all(x.amount for x in air)
    for order in air:
        assert isinstance(GameRecord(rec.setup).submit("german", order), Applied)


# --- gaps closed: split river attacks, grounded sides, stars in ranged fire, options -------

RIVERS = [
    {"hexes": ["0303", "0304"], "feature": "big-river"},
    {"hexes": ["0403", "0404"], "feature": "big-river"},
    {"hexes": ["0703", "0704"], "feature": "big-river"},
]


def test_8_2_19_river_attacks_are_split_over_connected_hexes() -> None:
    order = parse_order("german: air 2 river 304:3 404:1")
    assert order == Air("river", "0304:3 0404:1", amount=2, side="german", line=1)
    assert format_order(Air("river", "0304:3 0404:1", amount=2)) == "air 2 river 0304:3 0404:1"
    units = [
        {"id": "s-a", "hex": "0303", "mp": 6},
        {"id": "s-b", "hex": "0403", "mp": 6},
        {"id": "g-a", "hex": "0808"},
    ]
    setup = _crossable(air_game(units, {"german": 4}, hexsides=RIVERS))
    rec = play(setup)
    r = reject(rec, "german: air 2 river 0304 0404")
    assert (r.rule, r.ruling) == ("8.2.19", "K84") and "how many of the 4 attacks" in r.message
    assert reject(rec, "german: air 2 river 0304:3 0404:2").rule == "8.2.18, 8.2.19"
    r = reject(rec, "german: air 2 river 0304:3 0704:1")
    assert r.rule == "8.2.19" and "connected" in r.message and "0704" in r.message
    assert reject(rec, "german: air 2 attack 0304:3").rule == "8.2.6"
    rec = play(
        setup,
        "german: air 2 river 0304:3 0404:1",
        "german: done",
        "soviet: move s-a 0303 0304",
        "soviet: move s-b 0403 0404",
        dice=(6, 6, 2, 6),
    )
    m = rec.state.air_missions[0]
    assert (m["target"], m["attacks"]) == ("0304 0404", {"0304": 3, "0404": 1})
    hits = [(e.data["hex"], e.data["attacks"]) for e in rec.events if e.kind == "air_river_attack"]
    assert hits == [("0304", 3), ("0404", 1)]
    assert replays(rec)


def test_k84_8_1_7_a_side_without_air_is_not_awaited_in_the_air_phase() -> None:
    setup = air_game(DUEL, {"german": 4})
    rec = play(setup)
    assert view(rec.state, "spectator").awaited == ("german",)
    rec = play(setup, "german: air 4 attack 0307")
    assert "0307" not in repr(visible_events(rec.events, "soviet")[-1].data)  # still sealed
    rec = play(setup, "german: air 4 attack 0307", "german: done", dice=(3, 4))
    assert last(rec, "revealed")["reason"] == "every side has submitted"
    assert phase(rec) == (3, "movement") and replays(rec)
    # the Soviets spend their pool in phase 1: in phase 7 only the Germans are awaited
    setup = air_game(DUEL, {"german": 6, "soviet": 2})
    rec = play(
        setup,
        "german: air 2 attack 0303",
        "soviet: air 2 attack 0606",
        "soviet: done",
        "german: done",
        "soviet: done",  # Soviet Movement Phase
        dice=(3, 4, 3, 4),
    )
    assert phase(rec) == (7, "air") and flow.awaited_sides(rec.state) == ["german"]
    assert legal_actions(rec.state, "soviet")["air"] == {}


def test_21_1_1_8_2_3_a_white_star_counter_moves_a_ranged_attack_one_row_down() -> None:
    units = [
        {"id": "s-t", "type": "arm", "hex": "0404"},
        {"id": "g-art", "type": "art", "sp": [3, 3], "hex": "0406"},
        {"id": "g-a", "hex": "0808"},
    ]
    air = {"german": {"counters": [{"id": "g-w", "sp": 5, "stars": ["white"]}]}}
    setup = air_game(units, air, initiative="german", game="kursk")
    lines = ["german: air g-w support-attack 0404", "german: done", "german: done"]
    rec = play(setup, *lines, "german: fire g-art -> 0404", dice=(1, 2))
    f = last(rec, "fire_resolved")
    assert f["mode"] == "ranged" and [s["kind"] for s in f["sources"]] == ["artillery", "air"]
    assert any("white-star" in line and "K84" in line for line in f["explanation"])
    plain = dict(air, german={"counters": [{"id": "g-p", "sp": 5}]})
    rec2 = play(
        air_game(units, plain, initiative="german", game="kursk"),
        "german: air g-p support-attack 0404",
        "german: done",
        "german: done",
        "german: fire g-art -> 0404",
        dice=(1, 2),
    )
    assert not any("white-star" in line for line in last(rec2, "fire_resolved")["explanation"])
    assert replays(rec)


def test_15_1_8_no_white_star_for_air_support_of_an_assault_through_a_big_river() -> None:
    units = [{"id": "s-t", "type": "arm", "hex": "0404"}, {"id": "g-a", "hex": "0405"}]
    setup = air_game(
        units,
        {"german": {"counters": [{"id": "g-w", "sp": 5, "stars": ["white"]}]}},
        initiative="german",
        game="kursk",
        hexsides=[{"hexes": ["0404", "0405"], "feature": "big-river"}],
        bridges=[["0404", "0405"]],
    )
    t = setup.table
    row = dataclasses.replace(t.hexsides["big-river"], bridge_only=True)  # a real big river
    setup = dataclasses.replace(
        setup, table=dataclasses.replace(t, hexsides={**t.hexsides, "big-river": row})
    )
    rec = play(
        setup,
        "german: air g-w support-attack 0404",
        "german: done",
        "german: done",
        "german: attack g-a -> 0404",
        dice=(3, 4),
    )
    line = last(rec, "combat_resolved")["support"]["attacker"][0]
    assert line["kind"] == "air" and line["cms"] == 0
    assert replays(rec)


def test_8_1_6_4_legal_actions_list_air_missions_and_artillery_targets() -> None:
    setup = air_game(DUEL, {"german": 6, "soviet": 4})
    rec = play(setup, "german: air 2 attack 0307")
    acts = legal_actions(rec.state, "german")
    assert acts["air"]["sp"] == 4 and acts["air"]["counters"] == []  # type: ignore[index]
    assert "attack" in acts["air"]["missions"]  # type: ignore[index]
    assert "supply" not in acts["air"]["missions"]  # type: ignore[index]  # 8.2.23
    assert "support-defence" not in legal_actions(rec.state, "soviet")["air"]["missions"]  # type: ignore[index]
    units = [
        {"id": "s-a", "hex": "0404"},
        {"id": "g-art", "type": "art", "sp": [6, 3], "hex": "0406"},
        {"id": "g-a", "hex": "0808"},
    ]
    rec = play(air_game(units, {"german": 4}, initiative="german"), "german: done")
    assert legal_actions(rec.state, "german")["setup"] == {"g-art": ["transport"]}
    rec = play(rec.setup, "german: done", "german: done")
    assert legal_actions(rec.state, "german")["fire"] == {"0404": ["g-art"]}
    assert legal_actions(rec.state, "soviet")["fire"] == {}


def test_8_2_4_issue_16_the_odds_preview_counts_revealed_defensive_air() -> None:
    """Issue #16: with the German defensive air over the hex revealed (Air Phase over),
    the Soviet preview counted 4:4; the combat resolved at 4:11 (E27's 7 air SPs)."""
    from engine.wb95 import odds

    setup = air_game(FRONT, {"german": 13})
    lines = [
        "german: air 6 support-defence 0405",
        "german: air 7 support-defence 0405",
        "soviet: done",
        "german: done",
        "soviet: done",  # Soviet Movement Phase
    ]
    rec = play(setup, *lines)
    p = odds.preview(rec.state, "soviet", parse_order("attack s-a -> 0405"))  # type: ignore[arg-type]
    assert isinstance(p, dict)
    assert (p["attack_sp"], p["defence_sp"]) == (4, 4 + 7)
    assert [(x["kind"], x["sp"]) for x in p["defender_support"]] == [("air", 7)]
    rec = play(setup, *lines, "soviet: attack s-a -> 0405", dice=(3, 4))
    c = last(rec, "combat_resolved")
    assert (c["attack_sp"], c["defence_sp"]) == (p["attack_sp"], p["defence_sp"])
    assert c["column"] == p["column"]
