"""7.1 Building field fortifications and keeping the FF / IF markers (7.1.5, 7.1.6, 7.2.1);
K20, K21, K22."""

from __future__ import annotations

import json

from conftest import play, reject, scenario

from engine.core import Ctx, Event
from engine.wb95 import flow
from engine.wb95.fortification_markers import marker_at, markers
from engine.wb95.fortifications import retreated_since_last_movement
from engine.wb95.game import replay
from engine.wb95.reducer import reduce


def ff(rec) -> dict[str, str | None]:  # type: ignore[no-untyped-def]
    return {k: u.fortification for k, u in sorted(rec.state.units.items())}


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def test_7_1_4_k21_fortify_costs_all_mps_and_covers_the_stack() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "cel": 2},
            {"id": "s-b", "hex": "0203", "cel": 2},
            {"id": "s-c", "hex": "0205"},
        ]
    )
    rec = play(setup, "fortify s-a")
    ev = rec.events[-1]
    assert ev.kind == "fortified" and ev.data["units"] == ["s-a"] and ev.data["hex"] == "0203"
    assert ff(rec) == {"s-a": "ff", "s-b": "ff", "s-c": None}  # K21: at once, whole stack
    assert rec.state.units["s-a"].mp_spent == 4
    assert marker_at(rec.state, "0203") == {"kind": "ff", "side": "soviet"}
    r = reject(rec, "move s-a 0303")
    assert r.rule == "7.1.2" and "building field fortifications" in r.message
    rec = play(setup, "fortify s-a", "move s-b 0303", "move s-c 0204 0203")
    assert ff(rec) == {"s-a": "ff", "s-b": None, "s-c": "ff"}  # 7.1.5 note: s-c uses it
    assert replays(rec)


def test_7_1_2_a_unit_that_moved_cannot_fortify() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}])
    r = reject(play(setup, "move s-a 0303"), "fortify s-a")
    assert r.rule == "7.1.2" and "moved" in r.message


def test_7_1_2_k20_only_regular_units_build() -> None:
    setup = scenario(
        [
            {"id": "s-hq", "hex": "0203", "type": "hq", "sp": 0, "mp": 10},
            {"id": "s-art", "hex": "0205", "type": "art", "sp": [6, 2]},
            {"id": "s-vs", "hex": "0207", "type": "vs"},
            {"id": "s-sp", "hex": "0403", "type": "sp-art", "sp": [6, 4], "mp": 6},
            {"id": "s-at", "hex": "0405", "type": "at", "mp": 6},
        ]
    )
    rec = play(setup)
    for unit, what in (("s-hq", "an HQ"), ("s-art", "towed artillery"), ("s-vs", "Volkssturm")):
        r = reject(rec, f"fortify {unit}")
        assert r.rule == "7.1.2" and f"{what} is not a regular unit" in r.message
    rec = play(setup, "fortify s-sp s-at")  # mechanized artillery is regular (1.2)
    assert ff(rec)["s-sp"] == "ff" and ff(rec)["s-at"] == "ff"
    assert len([e for e in rec.events if e.kind == "fortified"]) == 2  # one per hex


def test_7_1_8_no_field_fortifications_in_swamps() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}], terrain={"0203": "swamp"})
    r = reject(play(setup), "fortify s-a")
    assert r.rule == "7.1.8" and "swamp" in r.message


def test_7_1_9_k21_no_field_fortifications_on_a_fixed_position() -> None:
    setup = scenario(
        [{"id": "s-a", "hex": "0203"}, {"id": "s-b", "hex": "0303"}, {"id": "s-c", "hex": "0205"}],
        hexsides=[{"hexes": ["0203", "0303"], "feature": "fixed-position"}],
    )
    rec = play(setup)
    assert reject(rec, "fortify s-a").rule == "7.1.9"
    assert reject(rec, "fortify s-b").rule == "7.1.9"  # both hexes of the line
    assert ff(play(setup, "fortify s-c"))["s-c"] == "ff"


def test_7_1_1_k21_a_fortified_hex_takes_no_second_marker() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "s-b", "hex": "0203"},
            {"id": "s-i", "hex": "0205", "fortification": "if"},
        ]
    )
    rec = play(setup, "fortify s-a")
    r = reject(rec, "fortify s-b")
    assert r.rule == "7.1.1" and "already has field fortifications" in r.message
    r = reject(rec, "fortify s-i")
    assert r.rule == "7.1.1" and "improved fortifications" in r.message
    rec = play(setup, "fortify s-a s-b")  # together: one marker, both spend their MPs
    assert rec.events[-1].data["units"] == ["s-a", "s-b"]


def test_7_1_2_fortify_only_in_the_movement_phase() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "s-b", "hex": "0205"}])
    rec = play(setup, "strategic s-b", "done")
    assert flow.current_phase(rec.state).kind == "strategic"
    r = reject(rec, "fortify s-a")
    assert r.rule == "7.1.2" and "Movement Phase" in r.message
    r = reject(play(setup, "strategic s-b"), "fortify s-b")
    assert r.rule == "12.1.2"


def test_7_1_5_empty_ff_goes_at_the_end_of_the_phase() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203", "ff": True}, {"id": "g-a", "hex": "0808"}])
    rec = play(setup, "move s-a 0303")
    assert ff(rec)["s-a"] is None
    assert marker_at(rec.state, "0203") is not None  # still there during the phase
    rec = play(setup, "move s-a 0303", "done")
    ev = next(e for e in rec.events if e.kind == "fortification_removed")
    assert ev.data["hex"] == "0203" and ev.data["rule"] == "7.1.5"
    assert marker_at(rec.state, "0203") is None
    rec = play(setup, "move s-a 0303 0203", "done")  # back in it by the end of the phase
    assert ff(rec)["s-a"] == "ff" and marker_at(rec.state, "0203") is not None
    assert replays(rec)


def test_7_2_1_improved_fortifications_stay_until_an_enemy_enters() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "fortification": "if"},
            {"id": "s-b", "hex": "0205"},
            {"id": "g-a", "hex": "0503", "mp": 6},
        ]
    )
    rec = play(setup, "move s-a 0102", "done")  # soviet's phases, to german's Movement
    assert flow.current_phase(rec.state).kind == "movement"
    assert markers(rec.state) == {"0203": {"kind": "if", "side": "soviet"}}
    rec2 = play(setup, "move s-a 0102", "move s-b 0204 0203")
    assert ff(rec2)["s-b"] == "if"  # a friendly unit moves into the empty IF
    rec = play(setup, "move s-a 0102", "done", "german: move g-a 0403 0303 0203")
    ev = rec.events[-1]
    assert ev.kind == "fortification_removed" and ev.data["rule"] == "7.2.1"
    assert markers(rec.state) == {} and ff(rec)["g-a"] is None
    assert replays(rec)


def test_7_1_6_an_enemy_entering_removes_the_ff() -> None:
    """An enemy unit can enter a fortified hex by overrunning a lone HQ (9.1.5)."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "g-hq", "hex": "0303", "type": "hq", "sp": 0, "mp": 10, "ff": True},
        ]
    )
    rec = play(setup, "move s-a 0303")
    kinds = [e.kind for e in rec.events[-4:]]
    assert kinds == ["moved", "unit_eliminated", "hq_lost", "fortification_removed"]
    assert rec.events[-1].data["rule"] == "7.1.6"
    assert ff(rec)["s-a"] is None and markers(rec.state) == {}  # not usable by the enemy
    assert replays(rec)


def test_7_1_7_ff_can_be_rebuilt_by_either_side() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "g-hq", "hex": "0303", "type": "hq", "sp": 0, "mp": 10, "ff": True},
            {"id": "s-b", "hex": "0205", "ff": True},
            {"id": "g-a", "hex": "0808"},
        ]
    )
    rec = play(setup, "move s-a 0303", "move s-b 0305", "done")
    assert markers(rec.state) == {}
    rec = play(setup, "move s-a 0303", "done", "german: done", "done")  # next turn
    assert rec.state.turn == 2 and flow.current_phase(rec.state).kind == "movement"
    rec = play(setup, "move s-a 0303", "done", "german: done", "fortify s-a")
    assert ff(rec)["s-a"] == "ff"


def test_5_3_10_k22_a_unit_that_retreated_cannot_fortify() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "g-a", "hex": "0808"}])
    rec = play(setup, "done", "german: done")  # turn 2, soviet Movement Phase
    rec.state.units["s-a"].retreated_turn = 1  # as the retreat code records it (5.3)
    rec.state.units["s-a"].retreated_phase = 3  # in its own Combat Phase 4
    r = reject(rec, "fortify s-a")
    assert r.rule == "5.3.10" and "retreated" in r.message
    rec.state.units["s-a"].retreated_turn = 0  # the turn before: long enough ago
    assert rec.submit(None, _fortify("s-a")).__class__.__name__ == "Applied"


def test_7_1_3_k22_a_retreated_unit_held_in_enemy_zoc_may_fortify() -> None:
    """K22: no hex it could move to is free of enemy ZoC."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0101"},
            {"id": "g-a", "hex": "0102"},
            {"id": "g-b", "hex": "0201"},
            {"id": "s-b", "hex": "0305"},
            {"id": "g-c", "hex": "0405"},
        ]
    )
    rec = play(setup)
    for u in ("s-a", "s-b"):
        rec.state.units[u].retreated_turn = 0
        rec.state.units[u].retreated_phase = 9
    r = reject(rec, "fortify s-b")  # in ZoC, but it could step out of it
    assert r.rule == "5.3.10"
    assert rec.submit(None, _fortify("s-a")).__class__.__name__ == "Applied"


def test_5_3_10_k22_which_retreats_count() -> None:
    """Retreats after the side's previous Movement Phase count, in either Combat Phase."""
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "g-a", "hex": "0808"}])
    rec = play(setup, "done")  # german Movement Phase (index 8), turn 1
    st = rec.state
    g = st.units["g-a"]
    cases = [((0, 3), False), ((0, 9), True), ((1, 3), True), ((None, None), False)]
    for (turn, ph), blocked in cases:
        g.retreated_turn, g.retreated_phase = turn, ph
        assert retreated_since_last_movement(st, g) is blocked, (turn, ph)
    g.retreated_turn, g.retreated_phase = 0, None  # phase unknown: the later Combat Phase
    assert retreated_since_last_movement(st, g)


def test_7_1_5_moves_made_outside_the_movement_code_are_put_right_at_phase_end() -> None:
    """A unit moved by an event that did not call `after_move` (as a retreat might)."""
    setup = scenario([{"id": "s-a", "hex": "0203", "ff": True}, {"id": "g-a", "hex": "0808"}])
    rec = play(setup)
    ctx = Ctx(rec.state, reduce)
    ctx.emit("moved", unit="s-a", side="soviet", to="0303", cost="0", path=["0203", "0303"])
    assert ctx.state.units["s-a"].fortification == "ff"  # stale until the phase ends
    flow.finish_phase(ctx)
    kinds = [e.kind for e in ctx.events]
    assert kinds.index("fortification_synced") < kinds.index("fortification_removed")
    assert ctx.state.units["s-a"].fortification is None
    assert marker_at(ctx.state, "0203") is None


def _fortify(unit: str):  # type: ignore[no-untyped-def]
    from engine.notation import parse_order

    return parse_order(f"fortify {unit}")


def test_events_survive_json_and_replay() -> None:
    """Every event of this section keeps its kind through `to_json` (no data key clobbers
    it) and rebuilds the state from JSON."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "ff": True},
            {"id": "s-b", "hex": "0205"},
            {"id": "s-c", "hex": "0207"},
            {"id": "g-hq", "hex": "0303", **{"type": "hq", "sp": 0, "mp": 10}, "ff": True},
            {"id": "g-a", "hex": "0808"},
        ]
    )
    rec = play(
        setup, "move s-a 0303", "fortify s-b", "strategic s-c", "done", "move s-c 0307", "done"
    )
    events = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in rec.events]
    assert [e.kind for e in events] == [e.kind for e in rec.events]
    kinds = {e.kind for e in events}
    assert {"fortified", "fortification_left", "fortification_removed"} <= kinds
    assert {"unit_eliminated", "hq_lost", "strategic_marked", "strategic_unmarked"} <= kinds
    state = replay(setup, 0, (), events)
    assert state.snapshot() == rec.state.snapshot()
