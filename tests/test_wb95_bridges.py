"""14.0 Bridges: control with "first at the bridge" (14.1.3, E43, K29), destroying and
rebuilding by units (14.1.4, 14.2, 14.3.1, K30), building over a big river with a sealed
note (14.3.2-14.3.4, E44, K27, K31), and movement over the bridges standing now (K2, R24)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from conftest import play, reject, scenario

from engine.core import Ctx
from engine.view import view, visible_events
from engine.wb95 import bridges, flow
from engine.wb95.game import legal_moves, replay
from engine.wb95.reducer import reduce
from engine.wb95.results import retreat_paths

RIVER = [{"hexes": ["0404", "0504"], "feature": "river"}]


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def where(rec) -> tuple[str, int, str]:  # type: ignore[no-untyped-def]
    ph = flow.current_phase(rec.state)
    return (ph.kind, rec.state.turn, flow.acting_sides(rec.state)[0])


# --- control (14.1.3, E43) ----------------------------------------------------------------


def test_14_1_3_k29_e43_whoever_was_first_at_the_bridge_keeps_it() -> None:
    """E43: a German garrison holds B; the Allies come to A; the Germans leave B and the
    bridge is Allied; Germans come back to B, the Allies keep it until they leave A."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0303", "mp": 6},
            {"id": "g-hq", "hex": "0504", "type": "hq", "mp": 10},
            {"id": "g-b", "hex": "0705", "type": "hq", "mp": 10},
        ],
        hexsides=RIVER,
        bridges=[["0404", "0504"]],
    )
    rec = play(setup)
    assert bridges.controller(rec.state, "0404/0504") == "german"  # the garrison (K29)
    rec = play(setup, "move s-a 0404")
    assert bridges.controller(rec.state, "0404/0504") == "german"  # the Germans were first
    r = reject(rec, "bridge destroy 0404/0504")
    assert (r.rule, r.ruling) == ("14.1.4", "K29") and "german controls it" in r.message
    german_moves = ("move s-a 0404", "done", "done")
    rec = play(setup, *german_moves)
    assert where(rec) == ("movement", 1, "german")
    rec = play(setup, *german_moves, "move g-hq 0606")
    assert bridges.controller(rec.state, "0404/0504") == "soviet"
    ev = next(e for e in reversed(rec.events) if e.kind == "bridge_control_changed")
    assert ev.data == {"changes": {"0404/0504": "soviet"}, "rule": "14.1.3"}
    rec = play(setup, *german_moves, "move g-hq 0606", "move g-b 0604 0504")
    assert rec.state.units["g-b"].hex == "0504"
    assert bridges.controller(rec.state, "0404/0504") == "soviet"  # the Allies were first
    back = (*german_moves, "move g-hq 0606", "move g-b 0604 0504", "done")
    rec = play(setup, *back)
    assert where(rec) == ("movement", 2, "soviet")
    assert bridges.controller(rec.state, "0404/0504") == "soviet"
    rec = play(setup, *back, "move s-a 0303")
    assert bridges.controller(rec.state, "0404/0504") == "german"  # they emptied A
    assert view(rec.state, "soviet").bridges == {
        "0404/0504": {"intact": True, "printed": True, "controller": "german"}
    }
    assert replays(rec)


def test_14_1_3_k29_an_unwatched_bridge_follows_the_control_of_its_ends() -> None:
    setup = scenario(
        [{"id": "s-a", "hex": "0202"}, {"id": "g-a", "hex": "0908"}],
        hexsides=RIVER,
        bridges=[["0404", "0504"]],
        control={"0404": "soviet", "0504": "soviet"},
    )
    rec = play(setup)
    assert bridges.controller(rec.state, "0404/0504") == "soviet"
    setup = scenario(
        [{"id": "s-a", "hex": "0202"}, {"id": "g-a", "hex": "0908"}],
        hexsides=RIVER,
        bridges=[["0404", "0504"]],
        control={"0404": "soviet", "0504": "german"},
    )
    assert bridges.controller(play(setup).state, "0404/0504") is None
    both = scenario(
        [{"id": "s-a", "hex": "0404"}, {"id": "g-a", "hex": "0504"}],
        hexsides=RIVER,
        bridges=[["0404", "0504"]],
    )
    assert bridges.controller(play(both).state, "0404/0504") is None  # nobody was first


# --- destroying and rebuilding (14.1.4, 14.2, 14.3.1, K30) ---------------------------------

UNITS: list[dict[str, Any]] = [
    {"id": "s-a", "hex": "0404"},
    {"id": "s-b", "hex": "0304"},
    {"id": "s-gun", "hex": "0404", "type": "art", "sp": [4, 2]},
    {"id": "s-hq", "hex": "0303", "type": "hq", "mp": 10},
    {"id": "s-slow", "hex": "0606", "mp": 2},
    {"id": "g-a", "hex": "0908"},
]
SIDES = [
    *RIVER,
    {"hexes": ["0606", "0706"], "feature": "big-river"},
    {"hexes": ["0403", "0503"], "feature": "stream"},
]
SPANS = [["0404", "0504"], ["0606", "0706"]]


def test_14_2_1_k30_a_unit_at_either_end_destroys_the_bridge_for_1_mp() -> None:
    setup = scenario(UNITS, hexsides=SIDES, bridges=SPANS)
    before = legal_moves(play(setup).state, "s-a")["0504"].cost
    rec = play(setup, "bridge destroy 0404/0504")
    ev = next(e for e in rec.events if e.kind == "bridge_destroyed")
    assert ev.data["unit"] == "s-a" and ev.data["cost"] == "1" and ev.data["rule"] == "14.2.1"
    assert rec.state.bridges == {"0404/0504": "destroyed"}
    assert rec.state.units["s-a"].mp_spent == Fraction(1)
    r = reject(rec, "move s-a 0405")
    assert r.rule == "3.1.6"  # the work ended its movement (K30, K9)
    r = reject(rec, "bridge destroy 0404/0504")
    assert r.rule == "14.1.2"
    # K2: now the river costs its crossing
    s_b = legal_moves(rec.state, "s-b")
    assert "0504" not in s_b or s_b["0504"].cost > before
    assert view(rec.state, "german").bridges["0404/0504"]["intact"] is False
    assert replays(rec)


def test_14_2_1_k30_who_may_destroy_and_when() -> None:
    setup = scenario(UNITS, hexsides=SIDES, bridges=SPANS)
    rec = play(setup)
    r = reject(rec, "bridge destroy 0404/0504 by s-gun")
    assert (r.rule, r.ruling) == ("14.2.1", "K30")
    assert "neither a regular unit nor an HQ" in r.message
    r = reject(rec, "bridge destroy 0404/0504 by s-b")
    assert "not at either end" in r.message
    r = reject(rec, "bridge destroy 0606/0706")
    assert r.rule == "14.3.1" and "s-slow has 2 MP left and destroying costs 3" in r.message
    r = reject(rec, "bridge destroy 0403/0503")
    assert r.rule == "14.1.2"  # no bridge on that stream
    r = reject(rec, "bridge destroy 0404/0606")
    assert r.rule == "14.1.1"
    # a unit that moved up to the bridge blows it with the MPs it kept (K30)
    rec = play(setup, "move s-b 0404", "bridge destroy 0404/0504")
    ev = next(e for e in rec.events if e.kind == "bridge_destroyed")
    assert ev.data["unit"] == "s-b"
    rec = play(setup, "done")
    r = reject(rec, "soviet: bridge destroy 0404/0504")
    assert r.rule == "2.1.2"


def test_14_3_1_k30_a_big_river_bridge_costs_3_mp_and_then_bars_the_crossing() -> None:
    units = [dict(u, mp=4) if u["id"] == "s-slow" else u for u in UNITS]
    setup = scenario(units, hexsides=SIDES, bridges=SPANS)
    rec = play(setup)
    assert legal_moves(rec.state, "s-slow")["0706"].path == ("0706",)
    assert ("0706",) in retreat_paths(rec.state, rec.state.units["s-slow"], 1)
    rec = play(setup, "bridge destroy 0606/0706 by s-slow")
    assert rec.state.units["s-slow"].mp_spent == Fraction(3)
    state = rec.state.clone()
    state.units["s-slow"] = replace(state.units["s-slow"], moved=False, mp_spent=Fraction(0))
    assert legal_moves(state, "s-slow")["0706"].path != ("0706",)  # R24: round, not across
    assert ("0706",) not in retreat_paths(state, state.units["s-slow"], 1)  # 5.3.5
    assert replays(rec)


def test_14_2_2_k30_a_printed_river_bridge_is_rebuilt_for_3_mps_within_hq_range() -> None:
    setup = scenario(UNITS, hexsides=SIDES, bridges=SPANS)
    rec = play(setup, "bridge destroy 0404/0504", "move s-b 0404")
    r = reject(rec, "bridge build s-b 0404/0504")
    assert "s-b has 2.5 MP left and rebuilding costs 3" in r.message
    r = reject(rec, "bridge build s-gun 0404/0504")
    assert "artillery" in r.message
    rec = play(setup, "bridge destroy 0404/0504", "move s-hq 0404", "bridge build s-hq 0404/0504")
    ev = rec.events[-1] if rec.events[-1].kind == "bridge_rebuilt" else None
    assert ev is not None and ev.data["unit"] == "s-hq" and ev.data["rule"] == "14.2.2"
    assert rec.state.bridges == {}
    assert replays(rec)
    far = [dict(u, hex="0101") if u["id"] == "s-hq" else u for u in UNITS]
    far.append({"id": "s-c", "hex": "0504"})
    rec = play(scenario(far, hexsides=SIDES, bridges=SPANS), "bridge destroy 0404/0504")
    r = reject(rec, "bridge build s-c 0404/0504")
    assert "not within range of a friendly HQ" in r.message and r.rule == "14.2.2"
    r = reject(rec, "bridge build s-a 0403/0503")
    assert r.rule == "14.2.3"


def test_14_1_1_attacks_on_objects_destroy_a_bridge_through_the_module_function() -> None:
    rec = play(scenario(UNITS, hexsides=SIDES, bridges=SPANS))
    ctx = Ctx(rec.state, reduce)
    assert bridges.destroy(ctx, "0504/0404", "hit by artillery (ATTACK ON OBJECTS)", "6.4.7")
    assert not bridges.destroy(ctx, ("0404", "0504"), "again", "6.4.7")
    assert ctx.state.bridges == {"0404/0504": "destroyed"}
    ev = ctx.events[0]
    assert ev.kind == "bridge_destroyed" and ev.data["unit"] is None
    rebuilt = replay(rec.setup, rec.seed, rec.dice, [*rec.events, *ctx.events])
    assert rebuilt.snapshot() == ctx.state.snapshot()


# --- building over a big river (14.3.2-14.3.4, E44) ---------------------------------------

DNIEPER = [{"hexes": ["0505", "0605"], "feature": "big-river"}]


def builders(**german: str) -> list[dict[str, Any]]:
    return [
        {"id": "s-hq", "hex": "0505", "type": "hq", "mp": 10},
        {"id": "s-a", "hex": "0504", "mp": 6},
        {"id": "g-a", "hex": german.get("g_a", "0806")},
    ]


def test_14_3_2_k31_e44_the_bridge_stands_in_the_next_turns_movement_phase() -> None:
    setup = scenario(builders(), hexsides=DNIEPER)
    rec = play(setup, "bridge build s-hq 0505/0605")
    kinds = [e.kind for e in rec.events[-2:]]
    assert kinds == ["sealed_submitted", "bridge_building_declared"]
    assert rec.state.units["s-hq"].mp_spent == Fraction(10)  # all its MPs
    r = reject(rec, "move s-hq 0506")
    assert r.rule == "14.3.4"
    assert view(rec.state, "german").bridge_works == (
        {"hq": "s-hq", "side": "soviet", "hex": "0505", "stage": "building"},
    )
    assert view(rec.state, "soviet").bridge_works[0]["hexside"] == "0505/0605"
    note = visible_events(rec.events, "german")[-2]
    assert note.data == {
        "side": "soviet",
        "sealed": True,
        "note": "soviet submitted a sealed input",
    }
    state = rec.state.clone()
    assert retreat_paths(state, state.units["s-hq"], 1) == []  # 14.3.4: it must stay
    rec = play(setup, "bridge build s-hq 0505/0605", "done")
    assert where(rec) == ("movement", 1, "german")
    assert not bridges.standing(rec.state, "0505", "0605")
    rec = play(setup, "bridge build s-hq 0505/0605", "done", "done")
    assert where(rec) == ("movement", 2, "soviet")
    assert bridges.standing(rec.state, "0505", "0605")
    assert rec.state.bridges == {"0505/0605": "built"}
    built = next(e for e in rec.events if e.kind == "bridge_built")
    revealed = next(e for e in rec.events if e.kind == "revealed")
    assert revealed.seq < built.seq and revealed.data["items"][0]["item"]["held"] is True
    assert legal_moves(rec.state, "s-a")["0605"].path == ("0505", "0605")
    assert reject(rec, "move s-hq 0506").rule == "14.3.4"  # it spends all MPs again
    assert view(rec.state, "german").bridges["0505/0605"] == {
        "intact": True,
        "printed": False,
        "controller": "soviet",
    }
    rec = play(setup, "bridge build s-hq 0505/0605", "done", "done", "done")
    assert rec.state.bridge_works == []
    assert replays(rec)


def test_14_3_2_k27_k31_a_broken_hold_fails_without_telling_the_enemy_early() -> None:
    held = play(scenario(builders(), hexsides=DNIEPER), "bridge build s-hq 0505/0605", "done")
    broken = play(
        scenario(builders(), hexsides=DNIEPER),
        "bridge build s-hq 0505/0605",
        "done",
        "move g-a 0706",  # next to the far hex: it is in German ZoC
    )

    def sealed_for_german(rec) -> list[tuple[str, object]]:  # type: ignore[no-untyped-def]
        """What the Germans read of the note before it is revealed."""
        log = []
        for e in rec.events:
            if e.kind == "revealed":
                break
            log.append(e)
        return [(e.kind, e.data) for e in visible_events(log, "german") if "sealed" in e.kind]

    assert sealed_for_german(held) == sealed_for_german(broken)
    held = play(
        scenario(builders(), hexsides=DNIEPER), "bridge build s-hq 0505/0605", "done", "done"
    )
    broken = play(
        scenario(builders(), hexsides=DNIEPER),
        "bridge build s-hq 0505/0605",
        "done",
        "move g-a 0706",
        "done",
    )
    assert sealed_for_german(held) == sealed_for_german(broken)
    fail = next(e for e in broken.events if e.kind == "bridge_building_failed")
    assert fail.data["hexside"] == "0505/0605" and "in enemy ZoC" in fail.data["reason"]
    assert not bridges.standing(broken.state, "0505", "0605")
    assert broken.state.bridge_works == [] and broken.state.sealed == []
    assert legal_moves(broken.state, "s-hq")  # free again
    amends = [e for e in broken.events if e.kind == "sealed_amended"]
    assert len(amends) == len([e for e in held.events if e.kind == "sealed_amended"]) > 3
    assert replays(broken)


def test_14_3_2_k31_who_may_build_and_where() -> None:
    setup = scenario(builders(), hexsides=DNIEPER)
    rec = play(setup)
    r = reject(rec, "bridge build s-a 0504/0605")
    assert r.rule == "14.1.1"  # not adjacent
    r = reject(rec, "bridge build s-a 0505/0605")
    assert "only an HQ" in r.message and r.rule == "14.3.2"
    rec = play(setup, "move s-hq 0506")
    r = reject(rec, "bridge build s-hq 0505/0605")
    assert "must stand at 0505 or 0605" in r.message
    rec = play(setup, "move s-hq 0506 0505")
    r = reject(rec, "bridge build s-hq 0505/0605")
    assert r.ruling == "K31" and "moved" in r.message
    near = scenario(builders(g_a="0706"), hexsides=DNIEPER)
    r = reject(play(near), "bridge build s-hq 0505/0605")
    assert "far bank is not held" in r.message and "enemy ZoC" in r.message
    rec = play(setup, "bridge build s-hq 0505/0605")
    assert reject(rec, "bridge build s-hq 0505/0605").rule == "14.3.3"
    assert reject(rec, "bridge destroy 0505/0605").rule == "14.1.2"
    state = play(setup).state.clone()
    hq = replace(state.units["s-hq"], retreated_turn=0, retreated_phase=9)
    assert bridges.retreated_since_supply(state, hq)  # the enemy's Combat Phase before
    hq = replace(hq, retreated_phase=3)
    assert not bridges.retreated_since_supply(state, hq)


def test_14_3_4_k31_the_building_fails_when_the_hq_is_eliminated() -> None:
    setup = scenario(builders(g_a="0507"), hexsides=DNIEPER)
    rec = play(setup, "bridge build s-hq 0505/0605", "done", "move g-a 0506 0505")
    assert rec.state.units["s-hq"].eliminated  # 9.1.5: a lone HQ overrun
    rec = play(setup, "bridge build s-hq 0505/0605", "done", "move g-a 0506 0505", "done")
    fail = next(e for e in rec.events if e.kind == "bridge_building_failed")
    assert fail.data["reason"] == "the HQ s-hq was eliminated"
    assert rec.state.bridge_works == [] and rec.state.sealed == []
    assert replays(rec)
