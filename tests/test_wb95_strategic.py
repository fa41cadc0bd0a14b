"""12.0 Strategic movement: marking in the Movement Phase, moving in the Strategic Movement
Phase with 2 MPs less, never into enemy ZoC; K24, K25."""

from __future__ import annotations

from fractions import Fraction

from conftest import play, reject, scenario

from engine.core import Ctx
from engine.wb95 import flow
from engine.wb95.game import legal_moves
from engine.wb95.movement import reachable
from engine.wb95.reducer import reduce


def phase(rec) -> str:  # type: ignore[no-untyped-def]
    return flow.current_phase(rec.state).kind


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def test_12_1_4_marked_units_wait_for_the_strategic_movement_phase() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "s-b", "hex": "0205"}])
    rec = play(setup, "strategic s-a")
    ev = rec.events[-1]
    assert ev.kind == "strategic_marked" and ev.data["units"] == ["s-a"]
    assert rec.state.units["s-a"].strategic and not rec.state.units["s-b"].strategic
    r = reject(rec, "move s-a 0303")
    assert r.rule == "12.0" and "marked for strategic movement" in r.message
    assert legal_moves(rec.state, "s-a") == {}
    rec = play(setup, "strategic s-a", "move s-b 0305", "done")
    assert phase(rec) == "strategic"  # the Combat Phase had nothing to do (K13)
    r = reject(rec, "move s-b 0405")
    assert r.rule == "12.1.4" and "only units marked" in r.message
    rec = play(setup, "strategic s-a", "move s-b 0305", "done", "move s-a 0303")
    assert rec.state.units["s-a"].hex == "0303"
    assert replays(rec)


def test_12_2_3_strategic_movement_costs_two_mp() -> None:
    """E10: a motorized regiment with 7 MPs has 5 in strategic movement."""
    setup = scenario(
        [{"id": "s-mot", "hex": "0203", "type": "mot", "mp": 7}, {"id": "s-inf", "hex": "0205"}]
    )
    rec = play(setup, "strategic s-mot s-inf")
    assert rec.events[-1].data["mp"] == {"s-mot": "5", "s-inf": "2"}
    rec = play(setup, "strategic s-mot s-inf", "done")
    r = reject(rec, "move s-inf 0305 0405")  # 1.5 + 1.5 = 3 > 4 - 2
    assert r.rule == "3.1.5" and "has 2" in r.message
    r = reject(rec, "move s-mot 0303 0403")  # trucked clear 3 + 3 = 6 > 7 - 2
    assert r.rule == "3.1.5" and "has 5" in r.message
    rec = play(setup, "strategic s-mot s-inf", "done", "move s-inf 0305", "move s-mot 0303")
    assert rec.events[-1].data["mp"] == "5"
    assert rec.state.units["s-inf"].mp_spent == Fraction(3, 2)
    assert replays(rec)


def test_12_2_3_k24_r13_cap_uses_the_reduced_mps() -> None:
    """K24: 3.1.13's minimum move caps a step at the MPs left after 12.2.3."""
    setup = scenario(
        [{"id": "s-mech", "hex": "0203", "type": "arm", "mp": 4}],
        terrain={"0303": "hills"},
        hexsides=[{"hexes": ["0203", "0303"], "feature": "river"}],
    )
    rec = play(setup, "strategic s-mech", "done", "move s-mech 0303")  # 2.5 + 2, capped at 2
    assert rec.state.units["s-mech"].mp_spent == 2


def test_12_2_3_k24_a_unit_left_without_mps_cannot_be_marked() -> None:
    """K24: out of supply (10.2.2) halves first, then 12.2.3 takes 2: 4 -> 2 -> 0."""
    setup = scenario([{"id": "s-oos", "hex": "0203", "oos": 1}, {"id": "s-inf", "hex": "0205"}])
    r = reject(play(setup), "strategic s-oos")
    assert r.rule == "12.2.3" and "2 MP less 2" in r.message
    assert play(setup, "strategic s-inf").events[-1].data["mp"] == {"s-inf": "2"}


def test_12_2_1_a_unit_in_enemy_zoc_cannot_be_marked() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "g-a", "hex": "0303"}])
    r = reject(play(setup), "strategic s-a")
    assert r.rule == "12.2.1" and "enemy ZoC" in r.message


def test_12_1_2_a_unit_that_moved_or_fortified_cannot_be_marked() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "s-b", "hex": "0205"}])
    rec = play(setup, "move s-a 0303", "fortify s-b")
    r = reject(rec, "strategic s-a")
    assert r.rule == "12.1.2" and "moved" in r.message
    r = reject(rec, "strategic s-b")
    assert r.rule == "12.1.2" and "field fortifications" in r.message
    r = reject(play(setup, "strategic s-a"), "strategic s-a")
    assert r.rule == "12.1.4" and "already marked" in r.message


def test_12_1_4_marking_only_in_the_movement_phase_and_units_that_can_move() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "s-b", "hex": "0205"},
            {"id": "s-art", "hex": "0207", "type": "art", "sp": [6, 2]},
        ]
    )
    rec = play(setup, "strategic s-a", "done")
    r = reject(rec, "strategic s-b")
    assert r.rule == "12.1.4" and "Movement Phase" in r.message
    r = reject(play(setup), "strategic s-art")
    assert r.rule == "6.2.3"
    r = reject(play(setup), "german: strategic g-x")
    assert r.rule == "2.1.2"


def test_12_2_2_strategic_movement_never_enters_enemy_zoc() -> None:
    setup = scenario([{"id": "s-a", "hex": "0403"}, {"id": "g-a", "hex": "0603"}])
    rec = play(setup, "strategic s-a", "done")
    r = reject(rec, "move s-a 0403 0503")
    assert r.rule == "12.2.2" and "strategic movement" in r.message
    r = reject(rec, "move s-a 0503")  # destination only: the same reason
    assert r.rule == "12.2.2"
    reach = reachable(rec.state, rec.state.units["s-a"])
    assert "0402" in reach and not {"0503", "0504"} & set(reach)
    rec = play(setup, "move s-a 0503")  # an ordinary move may (4.2.1)
    assert rec.state.units["s-a"].hex == "0503"


def test_12_2_2_k24_may_end_next_to_enemy_units_without_zoc() -> None:
    """K24: only enemy ZoC is closed; an enemy HQ has none (9.1.1)."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "g-hq", "hex": "0403", "type": "hq", "sp": 0, "mp": 10},
        ]
    )
    rec = play(setup, "strategic s-a", "done", "move s-a 0303")
    assert rec.state.units["s-a"].hex == "0303"
    assert replays(rec)


def test_12_1_3_roads_and_the_r12_extra_hex_apply_in_strategic_movement() -> None:
    line = [f"{c:02d}03" for c in range(1, 11)]
    setup = scenario(
        [
            {"id": "s-truck", "hex": "0103", "type": "mot", "mp": 3},
            {"id": "s-foot", "hex": "0503", "mp": 4},
        ],
        roads=[{"kind": "main", "hexes": line[:5]}, {"kind": "side", "hexes": line[4:]}],
    )
    rec = play(setup, "strategic s-truck s-foot", "done", "move s-truck 0403")  # 3 x 1/3 MP
    assert rec.state.units["s-truck"].mp_spent == 1
    rec = play(setup, "strategic s-truck s-foot", "done", "move s-foot 0803")
    assert rec.events[-1].data["bonus"] is True  # 2 side-road hexes for 2 MP, then one more
    r = reject(play(setup, "strategic s-truck s-foot", "done"), "move s-foot 0903")
    assert r.rule == "3.1.5"


def test_12_2_1_k24_marked_units_all_in_enemy_zoc_skip_the_phase() -> None:
    """K24: the phase is omitted when no marked unit may move (2.1.4, K13)."""
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "g-a", "hex": "0605"}])
    rec = play(setup, "strategic s-a", "done")
    state = rec.state.clone()
    assert flow.skip_reason(state) is None
    state.units["g-a"].hex = "0303"  # an enemy next to it (only possible after combat)
    assert "in enemy ZoC (12.2.1)" in (flow.skip_reason(state) or "")


def test_12_1_4_markers_go_when_the_strategic_movement_phase_ends() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "s-b", "hex": "0205"}])
    rec = play(setup, "strategic s-a s-b", "done", "move s-a 0303", "done")
    assert phase(rec) == "movement"  # german's
    ev = next(e for e in rec.events if e.kind == "strategic_unmarked")
    assert ev.data["units"] == ["s-a", "s-b"] and ev.data["rule"] == "12.1.4"
    assert not rec.state.units["s-a"].strategic and not rec.state.units["s-b"].strategic
    assert replays(rec)


def test_12_1_2_k25_a_marked_unit_that_fought_loses_its_marker() -> None:
    """K25: it may attack, but then makes no strategic movement."""
    setup = scenario(
        [
            {"id": "s-a", "hex": "0303"},
            {"id": "s-b", "hex": "0101"},
            {"id": "g-hq", "hex": "0403", "type": "hq", "sp": 0, "mp": 10},
        ]
    )
    rec = play(setup, "strategic s-a s-b", "done")
    assert phase(rec) == "combat"
    ctx = Ctx(rec.state, reduce)
    ctx.state.units["s-a"].fought = True  # as the combat code records an attack (5.1.1)
    flow.finish_phase(ctx)
    unmarked = [e for e in ctx.events if e.kind == "strategic_unmarked"]
    assert unmarked[0].data["units"] == ["s-a"] and unmarked[0].data["rule"] == "12.1.2"
    assert flow.current_phase(ctx.state).kind == "strategic"
    assert ctx.state.units["s-b"].strategic and not ctx.state.units["s-a"].strategic


def test_12_2_2_strategic_move_may_overrun_a_lone_hq() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "g-hq", "hex": "0503", "type": "hq", "sp": 0, "mp": 10},
        ],
        roads=[{"kind": "side", "hexes": ["0203", "0303", "0403", "0503"]}],
    )
    rec = play(setup, "strategic s-a", "done", "move s-a 0303 0403")
    assert rec.state.units["s-a"].hex == "0403"
    rec = play(setup, "strategic s-a", "done", "move s-a 0303 0403 0503")  # R12 extra hex
    assert rec.state.units["g-hq"].eliminated
    assert rec.state.hq_losses[0]["number"] == 5  # fell in the Strategic Movement Phase
    assert replays(rec)
